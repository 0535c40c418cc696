"""TL105: a masked tl.load whose switched-off lanes reach a sum, a max or a dot with a value that changes it."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import Access
from tritonlint.semantic.lanes.masked import MaskedLanes

from .finding import UnsafeMaskedLanesFinding


class UnsafeMaskedLanes(Rule):
    """
    ## What it does
    Flags a masked `tl.load` whose switched-off lanes reach a reduction along the axis the mask
    cuts (`tl.sum`, `tl.max`, `tl.min`, `tl.argmax`, `tl.argmin`, the reduced axis of `tl.dot`
    and `tl.dot_scaled`) holding a value that is not that reduction's identity: 0 for a sum and a
    dot, -inf for a max, +inf for a min. The lanes are followed through the arithmetic between
    (`x - mean`, `tl.exp`, a softcap's `tanh`, `tl.where(mask, x, 0.0)`), so these are flagged:

    - no `other=` before a max: Triton fills such lanes with 0 (the language leaves them
      unspecified), and 0 wins over a row of negative values;
    - `other=0.0` before `tl.exp` (the lanes become 1 and are summed), before `x - mean` (they
      become `-mean`), or before a max of values that can be negative;
    - `other=float("-inf")` that a softcap (`tanh`) turns finite before `exp` and a sum.

    Not flagged: no `other=` before a sum or a dot (the 0 Triton fills is their identity), lanes
    cleaned by `tl.where(mask, x, value)` on the same bound before the reduction, lanes that are
    only stored, a dot whose other operand holds zeros in the same lanes, an `other=` that stays the identity through the operations between
    (`other=-inf`, `x - m`, `tl.exp`, `tl.sum`), and `other=0` before the max of a value that is
    never negative (`tl.max(tl.abs(x))`).

    ## Why is this bad?
    The lanes past the end of a row or a K tile are not part of the data, and the mask keeps the
    load from reading memory there, but the reduction still folds them in. A softmax whose
    denominator counts `exp(0 - max)` once per padded column, a variance that adds `mean ** 2` per
    padded lane, or a dot that multiplies an undefined NaN by zero gives wrong numbers with no
    error, and only for shapes that leave a partial tile (or a row shorter than the block).

    ## Example
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def softmax(X, Y, N, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + row * N + cols, mask=cols < N, other=0.0)
        z = tl.exp(x - tl.max(x, axis=0))
        tl.store(Y + row * N + cols, z / tl.sum(z, axis=0), mask=cols < N)
    ```

    ## Use instead
    ```python
    import triton
    import triton.language as tl

    @triton.jit
    def softmax(X, Y, N, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + row * N + cols, mask=cols < N, other=float("-inf"))
        z = tl.exp(x - tl.max(x, axis=0))
        tl.store(Y + row * N + cols, z / tl.sum(z, axis=0), mask=cols < N)
    ```

    ## Fix safety
    The fix sets `other=` to the identity of the reductions the lanes reach, and is offered only
    when the lanes, followed again with that value, reach every one of them as its identity.
    It is safe when the identity is 0 and the load reaches the reductions without a function
    between; unsafe otherwise (`float("-inf")` is not a value of an integer tensor, whose type the
    checker does not read). Where no single value works (a sum and a max of the same lanes, or
    `x - mean` before a sum) it is display-only: clean the lanes with `tl.where` before the
    reduction.

    ## Known problems
    The lanes are followed inside one jit function: a helper that receives them, a reshape, a
    scan, or a `tl.where` whose condition bounds another axis (a causal mask) or reads loaded
    data stops the reading, and nothing is reported through it. Data the kernel did not load from
    the tracked pointer is taken to be positive and finite (a scale, a running max), so
    `-inf * scale` stays -inf. A max or min is judged only on constant lanes, not on integer
    data (`other=0` or `-1` before a max of lengths or token ids), and a finite sentinel beyond
    1e4 (`-1e30`) counts as -inf. Values stored to memory and read back are not followed.

    Loads masked by the same comparison are padded in the same lanes, and are read together
    (`mx + tl.log(acc) - lp`, all masked by `offs < n`: `0 + log(0)` is -inf there). One missing
    `tl.where` before a reduction is then reported at each load whose lanes reach it. An axis is
    not followed where no lane can be switched off: every tile is full by the kernel's
    construction (the facts TL101 uses), a block of 1 that no launch sets, or every launch sets
    the block to the bound its mask compares it with (`check --explain` says which).
    """

    code = "TL105"
    name = "unsafe-masked-lanes"
    summary = "the lanes a load's mask switches off reach a reduction with a value that changes it"
    fixable = True

    def check(self, kernel: KernelContext) -> Iterator[UnsafeMaskedLanesFinding]:
        reader = MaskedLanes(kernel)
        for access in kernel.accesses:
            found = reader.finding(access)
            if found is not None:
                hazard, summary, verdicts, reduce_line = found
                yield UnsafeMaskedLanesFinding(hazard, kernel, summary, verdicts, reduce_line)
        # A load inside a jit helper, its mask passed by the call (`x = load_row(X + offs, offs < n)`):
        # its lanes followed out of the helper's return into the caller; placed at the helper's load.
        for site, helper, inner, view in kernel.hazards.helper_accesses("load"):
            found = reader.finding(view)
            if found is not None:
                hazard, summary, verdicts, reduce_line = found
                owner = helper
                assert isinstance(owner, KernelContext)
                yield UnsafeMaskedLanesFinding(kernel.hazards.in_helper(hazard, site, helper, inner), owner, summary,
                                               verdicts, reduce_line)

    def explain(self, kernel: KernelContext, access: Access, indent: str) -> list[str]:
        """TL105's reading of a masked load: what its switched-off lanes hold at each reduction that
        folds the axis they lie on."""
        reader = MaskedLanes(kernel)
        tracks = reader.tracks(access)
        skipped = [why for track, why in reader.cut_axes(access) if track is None]
        if not tracks and not skipped:
            return []
        lines = [f"{indent}masked-off lanes (TL105):"] + [f"{indent}  {why}" for why in skipped]
        verdicts = list(reader.verdicts(access))
        for track in tracks:
            label = f"`{kernel.label(track.dim)}`"
            reached = [v for v in verdicts if v.track == track]
            if not reached:
                lines.append(f"{indent}  {label}: reach no reduction along their axis")
            for verdict in reached:
                where = f"{verdict.operand + ' of ' if verdict.operand else ''}`tl.{verdict.reduction.kind}` " \
                        f"(line {kernel.line_of(verdict.reduction.call)})"
                state = f"wrong: {reader.describe(verdict)}" if verdict.problem else "its identity (or harmless there)"
                lines.append(f"{indent}  {label}: at {where}: {state}")
        return lines
