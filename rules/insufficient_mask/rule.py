"""TL104: a masked tl.load or tl.store whose mask misses an axis the pointer walks past the end."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import Access

from .analysis import MaskSufficiency
from .finding import InsufficientMaskFinding


class InsufficientMask(Rule):
    """
    ## What it does
    Flags a masked `tl.load` or `tl.store` whose mask is there but does not bound, in the pointer's
    own terms, an axis the pointer walks past the tensor's end, or before its start. Seven shapes are read:

    - a shift the mask ignores: a loop advances the pointer a tile per iteration
      (`a_ptrs += BLOCK_K * stride`), or the base is moved to the program's block
      (`X += pid * BLOCK`), and every comparison bounding those offsets compares the in-tile
      offsets with the whole extent (`offs_k < K`, `offs < n`) instead of what is left
      (`offs_k < K - k * BLOCK_K`, `offs < n - pid * BLOCK`);
    - swapped axes: the mask bounds a dimension along another axis than the pointer walks it
      (`offs_m[:, None] < M` beside a transposed pointer's `offs_m[None, :]`);
    - units: a packed tile (`tl.arange(0, BLOCK_K // 2)`) compared with the very bound the kernel
      gives its unpacked twin of `BLOCK_K` (`K - k * BLOCK_K`);
    - a tile wider than its group: a launch in view passes `BLOCK=triton.next_power_of_2(G)`
      (directly or through a host name) beside `G` itself, the pointer steps by `G`
      (`g * group_size + cols`), the mask compares those group-crossing offsets with the tensor's
      end (`offs < n`) and no comparison's bound reads `G`. This is not out of bounds: the padding
      lanes read and write the next group's elements inside the allocation, and the finding says
      so in its own note;
    - an offset added after the mask was formed: `m_t = o_t < T`, then `o_cs = o_t + seq_offset`
      and the access walks `o_cs` under `m_t`, where `seq_offset` is a run-time scalar added as it
      is and no comparison of the mask reads `o_cs` or measures its bound from the offset
      (`T = eos - bos`);
    - an inclusive bound on an exclusive end: `offs_n <= dstate` where another access of the kernel
      bounds the very same offsets by `offs_n < dstate`, its own word that `dstate` is where the
      tensor ends (without such a twin, `offs <= last` is taken as an inclusive index);
    - a shift below the start: the pointer walks the offsets moved down by a constant or a run-time
      scalar (`cu + offs - 1`, `(rows - 1) * stride`, `out + offs - halo`) and the mask bounds them
      from above only (`offs < n`): on the first program (or the first iteration of a loop from 0),
      lane 0 is active and reaches before the tensor's start. A `tl.where(offs == 0, 0, tl.load(...))`
      around the load does not help: a select runs both arms.

    A mask with no comparison for the dimension at all is TL101's and TL102's (a 2-D tile whose
    mask bounds one axis while the other can be partial is reported there).

    ## Why is this bad?
    A reader sees a mask and moves on. On the last, partial tile an in-tile offset compared with
    the whole extent is always in range, so the access runs past the end exactly as an unmasked
    one would; a swapped mask (it compiles only for square tiles) switches off the wrong lanes; a
    bound in unpacked units lets twice (or eight times) the bytes through; a padded group's lanes
    fold the next group into this one's reduction and overwrite it, with no fault to show for it; a
    previous-element read on lane 0 reads (or writes) the memory before the tensor.
    About half the mask
    bugs fixed upstream in the last year were masks like these, not missing ones.

    ## Example
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(X, S, Y, K, BLOCK_K: tl.constexpr):
        offs_k = tl.arange(0, BLOCK_K)
        x_ptrs = X + offs_k
        s_ptrs = S + offs_k
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            x = tl.load(x_ptrs, mask=offs_k < K - k * BLOCK_K, other=0.0)
            s = tl.load(s_ptrs, mask=offs_k < K, other=0.0)
            acc += x * s
            x_ptrs += BLOCK_K
            s_ptrs += BLOCK_K
        tl.store(Y + offs_k, acc)
    ```

    ## Use instead
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def kernel(X, S, Y, K, BLOCK_K: tl.constexpr):
        offs_k = tl.arange(0, BLOCK_K)
        x_ptrs = X + offs_k
        s_ptrs = S + offs_k
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            x = tl.load(x_ptrs, mask=offs_k < K - k * BLOCK_K, other=0.0)
            s = tl.load(s_ptrs, mask=offs_k < K - k * BLOCK_K, other=0.0)
            acc += x * s
            x_ptrs += BLOCK_K
            s_ptrs += BLOCK_K
        tl.store(Y + offs_k, acc)
    ```

    ## Fix safety
    For a shift, the fix takes the bound from the same sources as TL101's fix, in the same order
    (the loop bound, a sibling access's mask, a comparison the kernel already makes), keeping only
    a bound that moves with the tile; it replaces the comparison that ignores the shift where the
    call spells it, else adds the bound with `&`. A sibling's mask outside a loop is safe; a bound
    derived from the loop or another comparison is unsafe. Swapped axes are re-broadcast as the
    pointer walks them, and a packed tile's bound divided by the packing factor (rounded up): both
    unsafe, and display-only when the mask is built outside the call. A padded group gets
    `& (cols < group_size)` where the in-group offsets have a name of their own (`cols =
    tl.arange(0, BLOCK)`), display-only otherwise; a late offset gets the bound another access's
    mask gives the shifted offsets (`o_cs < N`), display-only where none does (the mask's own `T`
    bounds the unshifted tensor, not the one the offset walks). Both only narrow the mask, and
    both are unsafe: the lanes switched off may be ones the kernel meant to keep. An inclusive bound
    is made exclusive where the call writes it (unsafe: the twin could be the wrong one), display-only
    where the comparison is built outside the call. A shift below the start gets the lower bound the
    shift asks for, `& (offs >= 1)` (`prev >= 0` where the shifted offsets have a name of their own);
    unsafe, as every narrowing: the lanes switched off take `other`.

    ## Known problems
    Which loop or program id moves a tile is read from the pointer's terms: a term that multiplies
    a tile index by the tile's block size (`k * BLOCK_K * s`, `pid * BLOCK`). Where two axes share
    one block size, or the bound is a compile-time constant (a page of fixed width), nothing is
    reported. A row picked by the program (`row * stride + cols`) is no tile and is not judged.
    Axes are judged only where the mask writes its broadcast in the comparison, around it, or in
    the definition of a name it compares (`rows < M` with `rows = tl.arange(0, B)[:, None]`);
    a 1-D mask beside a 2-D pointer is not judged. Packed units are found only beside an
    unpacked twin compared with the same bound text. A padded group is read only where a launch of
    the kernel is in view (the kernel alone cannot say that a block is wider than a run-time group
    size), and only when the mask compares the group-crossing offsets: a mask of in-group offsets
    against a bound of its own (`offs < half_dim`) is taken as held inside the group. For a late
    offset, a shift and a bound that are both kernel parameters are judged only at visible
    launches, and not where the host measures one from the other (a chunk of a longer sequence,
    `T=min(CHUNK, n - t)` beside `seq_offset=t`); a launch through a wrapper is not in view. A
    shift below the start is read only where the offsets' value on the first lane is fixed by the
    kernel's text (program ids, `tl.arange` starts, loops from a known start; a run-time scalar
    parameter taken as at least 1): offsets from a loaded start, a branch on run-time values the
    first lane cannot decide, or a mask term of loaded data leaves the lane unjudged, and nothing is said.
    """

    code = "TL104"
    name = "insufficient-mask"
    summary = "the mask of a tl.load or tl.store does not bound an axis its pointer walks"
    fixable = True

    def check(self, kernel: KernelContext) -> Iterator[InsufficientMaskFinding]:
        reading = MaskSufficiency(kernel)
        for kind in ("load", "store"):
            for verdict, verdicts in reading.findings(kind):
                assert verdict.hazard is not None
                owner = verdict.hazard.helper or kernel  # a jit helper's access is placed in the helper
                assert isinstance(owner, KernelContext)
                yield InsufficientMaskFinding(verdict.hazard, owner, verdict, verdicts, reading)

    def explain(self, kernel: KernelContext, access: Access, indent: str) -> list[str]:
        """TL104's reading of a mask the walks above count as bounding: does it bound them where the
        pointer puts them (moved by a loop or the program, on the same axis, in the same units)?"""
        checker = MaskSufficiency(kernel)
        verdicts = list(checker.verdicts(access))
        if not verdicts:
            return []
        lines = [f"{indent}mask sufficiency (TL104):"]
        for verdict in verdicts:
            label = f"`{kernel.label(verdict.walk.dim or '')}`"
            if verdict.hazard is not None:
                lines.append(f"{indent}  {label}: insufficient ({verdict.shape}): {verdict.reason}")
            else:
                lines.append(f"{indent}  {label}: {checker.reason(verdict)}")
        return lines
