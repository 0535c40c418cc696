"""A right-aligned last window: `tl.load(ptr - left_shift * d, mask=offs >= left_bound)` shifts the
short last window back so it ends exactly at the bound, and masks the lanes before its start. A
lower-bound mask on the dimension (on this access or one in the same loop) with no upper bound
beside it is that idiom: the window never runs past the end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritonlint.semantic.ir import LOOP_PREFIX, Access, Fact, Walk
from tritonlint.source.syntax import ordered

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    dim = walk.dim
    if dim is None:
        return None
    ev = kernel.ev
    same = frozenset({dim} | {key for key in ev.tile_parts.get(dim, ()) if not key.startswith(LOOP_PREFIX)})
    scope = [access] + ([a for a in kernel.flags.accesses if access.loops[-1] in a.loops] if access.loops else [])
    if any(ev.bounds_offsets(ev.mask_dims(a) or frozenset(), same) for a in scope):
        return None  # an upper bound too (`offs >= window_start & offs < seq_len`): not this idiom
    lower = next((a for a in scope if a.mask is not None and _lower_bounded(kernel, a, same)), None)
    if lower is None:
        return None
    return Fact("right-aligned-window", f"the {lower.call_name} at line {kernel.line_of(lower.call)} masks "
                "the window from below only: the last window is shifted back to end at the bound", lower.call)


def _lower_bounded(kernel: Stages, access: Access, dims: frozenset[str]) -> bool:
    """Whether the access's mask compares one of `dims` from below (`offs >= start`)."""
    return any(kernel.ev.dims(sides[1], access.order, access.path, access.loops) & dims
               for sides in map(ordered, kernel.flow.mask_comparisons(access)) if sides is not None)
