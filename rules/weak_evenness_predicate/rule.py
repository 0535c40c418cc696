"""TL103: an evenness flag set by a predicate that does not imply full tiles of the dimension the kernel walks."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext

from .finding import PredicateFinding


class WeakEvennessPredicate(Rule):
    """
    ## What it does
    Flags the predicate that sets a kernel's evenness flag (a launch argument such as
    `EVEN_K=(K % 2 == 0)`, or a `@triton.heuristics` lambda) when it does not imply that the tiles
    the kernel walks under that flag are full: it tests the walked extent against something that
    is not a multiple of the kernel's tile (`K % 2 == 0` while the loop walks K in tiles of
    `BLOCK_K = 32`; `K % BLOCK_K == 0` while the loop steps `BLOCK_K * SPLIT_K`). The unmasked
    accesses the flag lets through are reported as TL101/TL102, with a note naming the predicate.

    ## Why is this bad?
    The kernel is right under its own flag and still reads past the end: the flag promises full
    tiles, the masks are dropped, and the last tile is partial for every shape the weak predicate
    lets through (K = 48 with `BLOCK_K = 32`; K = 3 * BLOCK_K with `SPLIT_K = 2`).

    ## Example
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def row_sum(X, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr):
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
            if EVEN_K:
                acc += tl.load(X + offs)
            else:
                acc += tl.load(X + offs, mask=offs < K, other=0.0)
        tl.store(Y, tl.sum(acc))

    def launch(x, y):
        K = x.numel()
        row_sum[(1,)](x, y, K, EVEN_K=(K % 2 == 0), BLOCK_K=32)
    ```

    ## Use instead
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def row_sum(X, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr):
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
            if EVEN_K:
                acc += tl.load(X + offs)
            else:
                acc += tl.load(X + offs, mask=offs < K, other=0.0)
        tl.store(Y, tl.sum(acc))

    def launch(x, y):
        K = x.numel()
        row_sum[(1,)](x, y, K, EVEN_K=(K % 32 == 0), BLOCK_K=32)
    ```

    ## Fix safety
    The fix rewrites the predicate as `extent % tile == 0` with the setter's own names (the launch's
    arguments, or the lambda's `args[...]`), when every factor of the tile is named there, and only
    when the predicate is a single test. It is unsafe: shapes that took the fast unmasked path now
    take the masked one (correct, possibly slower). Where the tile is not named at the setter (an
    autotuned block) or the predicate is in another file, the fix is display-only.

    ## Known problems
    Predicates are read textually as conjunctions of `E % D == 0`; one that is computed elsewhere
    (a helper returning the flag) or tests something other than the walked extent is not judged.
    Launches are seen in the kernel's own module and in modules of its folder that import it; a
    predicate in another module is reported at the kernel's flag parameter.
    """

    code = "TL103"
    name = "weak-evenness-predicate"
    summary = "an evenness flag's predicate does not imply full tiles of the dimension the kernel walks"
    fixable = True

    def check(self, kernel: KernelContext) -> Iterator[PredicateFinding]:
        return (PredicateFinding(weak, kernel) for weak in kernel.weak_predicates)
