"""TL101/TL102's fix: every unbounded dimension of the access gets its mask, from the sources in
`fixing/masks.py` in their order (the loop bound, a sibling's mask, a comparison, the launch grid),
and the even side of a flag keeps the call as written."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tritonlint.diagnostics import Applicability
from tritonlint.fixing.masks import (
    CallFix,
    atom_of,
    call_argument,
    code_in,
    combined_mask,
    comparison_mask,
    comparisons_of,
    condition_text,
    decided_at_run_time,
    loop_bound_mask,
    offset_of,
    permutes_lanes,
    reads_extent,
    rounded_up,
    shifted_tile,
    sibling_mask,
    with_arguments,
)
from tritonlint.fixing.types import compares_pointer, zero_literal
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import PROGRAM
from tritonlint.semantic.lanes.neutral import prove_neutral
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.syntax import range_args


def tail_fix(model: KernelContext, hazard: TailHazard) -> CallFix:
    access = hazard.access
    if not access.maskable:
        # `tl.atomic_cas(pointer, cmp, val)` takes no mask: a `mask=` would not compile. What bounds
        # it is a branch around it (or a clamped pointer), which is the author's to choose.
        return CallFix(f"{access.call_name} takes no mask: keep it from the lanes past the end with a branch "
                       "or clamp its pointer", Applicability.DISPLAY_ONLY, None)
    if hazard.walk.dim and hazard.walk.dim.endswith("]"):
        return _block_pointer_fix(model, hazard)
    # Every dimension the access leaves unbounded gets its bound, or the fix would leave a finding.
    hazards = [h for h in model.hazards_of(access) if not (h.walk.dim or "").endswith("]")] or [hazard]
    masks: list[str] = []
    sources: list[str] = []
    for each in hazards:
        derived = _derive(model, each)
        if derived is None:
            return CallFix(_underivable(model, each), Applicability.DISPLAY_ONLY, None)
        if derived[1] is Applicability.DISPLAY_ONLY:  # a source that refuses to guess, and says why
            return CallFix(derived[2], Applicability.DISPLAY_ONLY, None)
        if derived[0] in masks:
            continue  # one sibling mask bounding both dimensions: say it once
        masks.append(derived[0])
        sources.append(derived[2])  # (how sure the source is: the safety comes from the lanes below)
    mask = masks[0] if len(masks) == 1 else _per_side(hazards, masks) or " & ".join(f"({m})" for m in masks)
    evens = {h.even for h in hazards}
    even = evens.pop() if len(evens) == 1 else None  # flags disagree: mask every specialization
    if even is not None and even.negated() in access.path:
        even = None  # already inside `else:` of the flag: no switch needed
    if even is not None and decided_at_run_time(model, even.atom):
        # `None if j == last else m`: a run-time condition cannot pick None on one side and a
        # tensor on the other in Triton; mask every tile (the even ones lose nothing but speed).
        even = None
    arguments = {"mask": combined_mask(model, access, mask, even)}
    other_value: str | None = None  # the value the switched-off lanes will hold, when the fix writes it
    if access.kind == "load" and call_argument(access.call, "other", 2) is None:
        # On the even side the call keeps no `other` (the mask there may be None, and Triton
        # rejects `other` without a mask), so the even specialization is unchanged.
        zero = zero_literal(model, access)
        other_value = zero
        arguments["other"] = f"None if {condition_text(even)} else {zero}" if even else zero
    new_call = with_arguments(model, access, arguments)
    where = f" on the side where {even.negated().describe()}" if even else ""
    title = f"Mask the {access.member or access.kind}{where} with `{mask}` ({'; '.join(sources)})"
    if access.kind == "store":
        # The lanes a store's mask switches off are dropped: nothing reads them.
        return CallFix(f"{title}; the lanes it switches off are not written", Applicability.SAFE, new_call)
    # Safe exactly when the lanes the mask switches off (holding `other=`) change no result.
    dims = [h.walk.dim for h in hazards if h.walk.dim]
    proof = prove_neutral(model, access, dims, other_value) if dims else None
    if proof is None:
        return CallFix(f"{title}; the lanes it switches off are not followed (no tiled offset)",
                       Applicability.UNSAFE, new_call)
    return CallFix(f"{title}; {proof.reason}", Applicability.SAFE if proof.neutral else Applicability.UNSAFE,
                   new_call)


def _per_side(hazards: list[TailHazard], masks: list[str]) -> str | None:
    """`m_k if NORMK else m_v` when each of two dimensions enters the pointer on one side of the same
    condition (`if NORMK: p = z + o_k` / `else: p = z + o_v`): ANDing them would mask a `[BK]` pointer
    with a `[BV]` mask too."""
    if len(hazards) != 2 or len(masks) != 2:
        return None
    first, second = (next(iter(h.when)) if len(h.when) == 1 else None for h in hazards)
    if first is None or second is None or first.negated() != second:
        return None
    return f"{masks[0]} if {condition_text(first)} else {masks[1]}"


def _underivable(model: KernelContext, hazard: TailHazard) -> str:
    """Why no mask can be derived: the kernel compares this dimension nowhere, or only where the
    comparison means something else (another tile of a loop, another shape, a name defined later)."""
    if hazard.walk.dim is not None:
        hypothesis = frozenset({hazard.tail}) if hazard.tail else frozenset()
        for comparison, where, other in comparisons_of(model, hazard.access, hypothesis, same_loop=False):
            if hazard.walk.dim in model.dims(comparison.left, other.order, other.path, other.loops):
                if permutes_lanes(model, comparison.left, other, hazard.walk.dim):
                    return (f"no mask can be derived: the comparison at line {where} bounds "
                            f"`{code_in(model, comparison.left)}`, which orders the lanes of this dimension "
                            "otherwise (several of its terms follow the lane), so its bound holds for other "
                            "lanes than this access's first ones")
                return (f"no mask can be derived: the comparison at line {where} bounds this dimension "
                        "elsewhere (another tile, shape or place), not at this access")
    loop = hazard.walk.loop
    if loop is not None and isinstance(loop.node, cst.For) and isinstance(loop.node.iter, cst.Call):
        args = range_args(loop.node.iter)
        stop = args[1] if len(args) == 3 else args[-1] if args else None
        downward = len(args) == 3 and code_in(model, args[2]).startswith("-")
        if stop is not None and not downward and not reads_extent(model, stop, hazard.access):
            return (f"no mask can be derived: the loop bound `{code_in(model, stop)}` bounds the loop, not the "
                    "tensor, and the kernel compares this dimension with no extent of it (a size it is given)")
        if stop is not None and not downward and rounded_up(model, stop, hazard.access):
            return (f"no mask can be derived: the loop bound `{code_in(model, stop)}` is an extent rounded up to "
                    "whole tiles (its last tile is the partial one), and the kernel compares this dimension "
                    "with no extent of it")
    return "no mask can be derived: the kernel never compares this dimension with a bound"


def _derive(model: KernelContext, hazard: TailHazard) -> tuple[str, Applicability, str] | None:
    if hazard.walk.loop is not None:
        # The loop's own bound says what the kernel means to cover; a sibling's mask may be for a
        # tensor of another length (a store of n + 1 totals beside a load of n counts).
        loop_mask = loop_bound_mask(model, hazard)
        if loop_mask is None and shifted_tile(model, hazard) is not None:
            return None  # a prefetch of another tile: the masks of this tile's accesses do not bound it
        return _first_offsets_mask(model, hazard, (lambda m, h: loop_mask, sibling_mask, comparison_mask))
    return _first_offsets_mask(model, hazard, (sibling_mask, comparison_mask, _launch_mask))


Source = Callable[[KernelContext, TailHazard], "tuple[str, Applicability, str] | None"]


def _first_offsets_mask(model: KernelContext, hazard: TailHazard, sources: tuple[Source, ...]
                        ) -> tuple[str, Applicability, str] | None:
    """The first source's mask that compares offsets only, asked in order: a pointer compared with
    an extent (`t_ptrs < N_CTX`) does not compile."""
    for source in sources:
        found = source(model, hazard)
        if found is not None and (found[1] is Applicability.DISPLAY_ONLY or not compares_pointer(model, found[0])):
            return found
    return None


def _launch_mask(model: KernelContext, hazard: TailHazard) -> tuple[str, Applicability, str] | None:
    """A program-id tile on a grid rounded up over the parameter `n`: `offs < n`; a tile whose block a
    launch rounds up from `n` (`BLOCK=next_power_of_2(n)`): `cols < n`."""
    access = hazard.access
    if not hazard.bound or hazard.walk.dim is None:
        return None
    mine = offset_of(model, access, hazard.walk.dim)
    if mine is None:
        return None
    if hazard.rounded:
        return f"{atom_of(mine[0])}{mine[1]} < {hazard.bound}", Applicability.UNSAFE, \
            "the size the launch rounds the block up from"
    if PROGRAM not in model.dims(mine[2], access.order, access.path, access.loops):
        return None  # `tl.arange(0, BLOCK)` alone is the offset within the tile, not in the tensor
    return f"{atom_of(mine[0])}{mine[1]} < {hazard.bound}", Applicability.UNSAFE, "derived from the launch grid"


def _block_pointer_fix(model: KernelContext, hazard: TailHazard) -> CallFix:
    access = hazard.access
    index = int((hazard.walk.dim or "")[:-1].rsplit("[", 1)[1])
    existing = access.boundary_check
    indices: list[int] = []
    if isinstance(existing, (cst.Tuple, cst.List)):
        indices = [int(e.value.value) for e in existing.elements if isinstance(e.value, cst.Integer)]
    elif existing is not None:
        return CallFix("boundary_check is not a literal tuple", Applicability.DISPLAY_ONLY, None)
    # Every dimension the access leaves unbounded on the same side is checked in one fix (a fix
    # that bounds one leaves the next for another round, and `--fix` applies rounds, SARIF one).
    others = {int(h.walk.dim[:-1].rsplit("[", 1)[1]) for h in model.hazards_of(access)
              if h.walk.dim is not None and h.walk.dim.endswith("]") and h.even == hazard.even} \
        if hazard.helper is None else set()
    chosen = sorted(set(indices) | {index} | others)
    checked = f"({chosen[0]},)" if len(chosen) == 1 else "(" + ", ".join(str(i) for i in chosen) + ")"
    before = code_in(model, existing) if existing is not None else "()"
    arguments = {"boundary_check": f"{before} if {condition_text(hazard.even)} else {checked}" if hazard.even else checked}
    if access.kind == "load" and call_argument(access.call, "padding_option", 4) is None:
        arguments["padding_option"] = f'"" if {condition_text(hazard.even)} else "zero"' if hazard.even else '"zero"'
    return CallFix(f"Check bounds of block-pointer dimension {index}", Applicability.SAFE,
                   with_arguments(model, access, arguments))
