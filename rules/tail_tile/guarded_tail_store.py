"""TL112: a tl.store that would write past the end on a partial tail tile, kept from it by every launch's host code."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext

from .finding import TailTileFinding


class GuardedTailStore(Rule):
    """
    ## What it does
    Flags a `tl.store` that TL102 would flag, where every launch of the kernel in the analysed
    files keeps the partial tile from happening: an `assert n % BLOCK == 0` before the launch, an
    `if n % BLOCK != 0: raise` before it, or an `if n % BLOCK == 0:` that routes other shapes
    elsewhere. The same for a tile loop (`range(0, K, BLOCK_K)`, `range(tl.cdiv(K, BLOCK_K))`)
    whose extent and step every launch keeps multiples (`assert K % 128 == 0` beside
    `BLOCK_K=128`, or a host name assigned 128). The note names the guarding line. Not in the default selection: select it with
    `--select ALL` or `--select TL112`.

    ## Why is this bad?
    The kernel is correct only under a contract that lives in its callers. A new caller, a
    refactored launcher or a relaxed assert turns it into TL102, with nothing in the kernel to
    say so.

    ## Example
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, x * 2)

    def launch(x, y):
        n = x.numel()
        assert n % 1024 == 0
        scale[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    ```

    ## Use instead
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n, other=0.0)
        tl.store(Y + offs, x * 2, mask=offs < n)

    def launch(x, y):
        n = x.numel()
        assert n % 1024 == 0
        scale[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    ```

    ## Fix safety
    No fix is offered: the access is safe with today's callers; masking it is a choice (it costs
    little for an elementwise kernel), as is a `tl.static_assert` or a comment naming the contract.

    ## Known problems
    Only launch sites in the kernel's own module and in modules of the same folder that import
    it are seen; a guard is an `assert` or `if` in the launching function, read textually
    (`n % BLOCK == 0` with the grid's own names, or the loop's extent and step as the launch
    passes them).
    """

    code = "TL112"
    name = "guarded-tail-store"
    summary = "tl.store on a partial tail tile that every launch's host code keeps from happening"
    default = False

    def check(self, kernel: KernelContext) -> Iterator[TailTileFinding]:
        return (TailTileFinding.of(hazard, kernel, fixable=False) for hazard in kernel.tail_hazards("store")
                if hazard.guard)
