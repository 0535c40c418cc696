"""TL102: a tl.store (or a read-modify-write atomic) that can write past the end of a tensor on a partial
tail tile."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext

from .finding import TailTileFinding


class UnmaskedTailStore(Rule):
    """
    ## What it does
    Flags a `tl.store` whose pointer walks a tiled dimension and which can run on a tile where
    that dimension is partial (per an evenness flag, a loop's last tile, or a masked sibling
    access of the same dimension), with no mask bounding it. The read-modify-write atomics
    (`tl.atomic_add`, `atomic_max`, `atomic_min`, `atomic_and`, `atomic_or`, `atomic_xor`,
    `atomic_xchg`, `atomic_cas`) write like a store and are judged the same way, named by their call.

    ## Why is this bad?
    A store past the end of a tensor silently corrupts whatever the caching allocator placed
    there: another tensor's data, scales or indices. The damage shows up far from the kernel,
    depends on allocation order, and is invisible to tests that only launch even shapes.

    ## Example
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n, other=0.0)
        tl.store(Y + offs, x * 2)
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
    ```

    ## Fix safety
    The fix adds the mask of the sibling access of the same dimension when there is one, or one
    derived from the pointer's offsets and the loop bound. It is safe: the lanes the mask switches
    off are not written, and nothing reads a store's lanes. A masked store needs no `other=`.
    `check --fix` lowers each fixed kernel with Triton's frontend first (when triton is
    installed) and writes no fix it rejects. `tl.atomic_cas` takes no mask: its finding has no fix,
    only a note (keep the lanes past the end from it with a branch, or clamp its pointer).

    ## Known problems
    Output tensors padded on the host make the overwrite harmless; the checker cannot see that,
    so suppress such a finding with a reason.
    """

    code = "TL102"
    name = "unmasked-tail-store"
    summary = "tl.store can write past the end of a tensor on a partial tail tile"
    fixable = True

    def check(self, kernel: KernelContext) -> Iterator[TailTileFinding]:
        return (TailTileFinding.of(hazard, kernel) for hazard in kernel.tail_hazards("store")
                if not hazard.guard)
