"""TL101: a tl.load that can read past the end of a tensor on a partial tail tile."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext

from .finding import TailTileFinding


class UnmaskedTailLoad(Rule):
    """
    ## What it does
    Flags a `tl.load` whose pointer walks a tiled dimension (offsets built from `tl.arange`, or a
    pointer advanced a tile per loop iteration) and which can run on a tile where that dimension
    is partial, with no mask bounding it. A tile can be partial where the kernel itself says so:
    the side of an evenness flag such as `EVEN_K` that does not guarantee full tiles, a loop whose
    last tile can be partial (`range(0, K, BLOCK_K)`, `range(tl.cdiv(K, BLOCK_K))`), or a sibling
    access of the same dimension that is masked. Or where a launch in the tree does: a grid
    rounded up over a size (`triton.cdiv(n, BLOCK)`), a block rounded up from a size it passes
    beside it (`BLOCK=triton.next_power_of_2(n)`), or a dispatch that launches a one-tile kernel
    only when the size fits in the block (`if n_cols <= BLOCK:`) while the kernel bounds that
    dimension by the size elsewhere (`cols < n_cols`).

    Loops that visit full tiles only are not flagged: `range(K // BLOCK_K)`, a loop that stops
    where a masked, peeled last tile starts (`prev = tl.cdiv(K, B) * B - B`), the interior loop
    of a split loop whose border loop is masked (`range(lo, hi - border, B)`), the tiles before
    the program's own (`range(0, pid * B, B)`), and loops under `K % BLOCK_K == 0` (an `if` or a
    `tl.static_assert`). A loop that only picks a row for a tile (`g = k * BLOCK_K // GROUP`, then
    `g * N + offs_n`) does not make that tile partial. Nor are a right-aligned last window
    (pointer shifted back, lanes masked from below), a one-row tile (`if BLOCK_M == 1:`) or a
    program's own scratch page (`P + pid * BLOCK_M * BLOCK_N + rows * BLOCK_N + cols`).

    ## Why is this bad?
    On the last, partial tile the load reads past the end of the tensor. Small overreads do not
    fault on a GPU: they return whatever bytes lie there. In vLLM's vendored `triton_kernels`,
    `_matmul_ogs` loaded MXFP4 weight scales unmasked on the non-`EVEN_K` path; when the bytes
    after the scale tensor were 0xff (an E8M0 NaN), GPT-OSS produced NaN and its accuracy fell to
    0% (vllm-project/vllm#47303, triton-lang/triton#10772).

    ## Example
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(X, S, Y, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(K, 0, -BLOCK_K):
            if EVEN_K:
                mask_k = tl.full([BLOCK_K], True, dtype=tl.int1)
            else:
                mask_k = offs_k < k
            x = tl.load(X + offs_k, mask=mask_k, other=0.0)
            s = tl.load(S + offs_k)
            acc += x * s
            X += BLOCK_K
            S += BLOCK_K
        tl.store(Y + offs_k, acc)
    ```

    ## Use instead
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(X, S, Y, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(K, 0, -BLOCK_K):
            if EVEN_K:
                mask_k = tl.full([BLOCK_K], True, dtype=tl.int1)
            else:
                mask_k = offs_k < k
            x = tl.load(X + offs_k, mask=mask_k, other=0.0)
            s = tl.load(S + offs_k, mask=mask_k, other=0.0)
            acc += x * s
            X += BLOCK_K
            S += BLOCK_K
        tl.store(Y + offs_k, acc)
    ```

    ## Fix safety
    The mask comes from the kernel's own bound for the dimension (a sibling access's mask, the
    loop bound, a comparison the kernel makes); `other=0` fills the lanes it switches off. The fix
    is safe exactly when the analysis proves that those lanes change no result: followed through
    the arithmetic after the load (the reading TL105 uses), they reach only a sum or a dot as 0
    (or a dot whose other operand is 0 there, or the scale of zeroed microscaled data), a max as
    -inf, a min as +inf, and stores whose own mask drops them. Anything else makes it unsafe,
    and the fix's title says what the lanes reach: a max or `tl.exp` that sees 0, a store without
    that mask, a helper or reshape whose effect on them is not read, a condition, an address. On
    the even side of a flag the mask is absent, so the even specialization compiles to the same
    unmasked loads. For E8M0 scales 0 is 2**-127, which scales the zeroed tail values to zero.
    `check --fix` lowers each fixed kernel with Triton's frontend first (when triton is
    installed) and writes no fix it rejects.

    ## Known problems
    Dimensions are identified by the offset variable built from `tl.arange`; offsets computed in
    a helper the kernel calls are not followed, and host-side padding that makes an overread
    harmless is not visible: suppress such findings with a reason. False alarms measured on the
    corpus (`docs/precision.md`) come from: whole-extent aranges whose buffer the host sizes
    exactly; masks that compare an in-group offset with an unrelated bound; loads on a constexpr
    path no launcher takes.
    """

    code = "TL101"
    name = "unmasked-tail-load"
    summary = "tl.load can read past the end of a tensor on a partial tail tile"
    fixable = True

    def check(self, kernel: KernelContext) -> Iterator[TailTileFinding]:
        return (TailTileFinding.of(hazard, kernel) for hazard in kernel.tail_hazards("load")
                if not hazard.guard)
