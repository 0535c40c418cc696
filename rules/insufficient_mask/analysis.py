"""Masks that are there but bound the wrong thing: an axis the pointer walks that the mask misses.

Read after the hazard stage, for accesses whose mask the evaluator already counts as bounding every
walked dimension (TL101 is quiet). `MaskSufficiency` judges each walk by five shapes, in order:

- axes (here): the mask bounds a dimension along another axis than the pointer walks it
  (`offs[:, None] < M` beside a pointer's `offs[None, :]`), which compiles only for square tiles
  and then masks the wrong lanes;
- shifts (shift.py): the pointer's tile of a dimension is moved by a loop (`a_ptrs += BLOCK_K * s`)
  or by the program id (`X + pid * BLOCK + offs`), and every comparison that bounds that dimension
  ignores the move (`offs_k < K`, `offs < N`): in-tile offsets compared with the whole extent;
- units (here): a packed tile compared with the bound its unpacked twin is given;
- a group (group.py): a tile rounded up from a group's size walks past the group;
- a late offset (late.py): an offset added to the compared offsets after the mask was formed;
- an inclusive bound (inclusive.py): `offs <= n` where another access's mask bounds the same offsets
  by `offs < n`, the kernel's own word that `n` is where the tensor ends;
- a start (start.py): offsets shifted below zero (`cu + offs - 1`) under a mask that bounds them from
  above only (`offs < n`): the first program's lane 0 reads before the tensor's start.

Each verdict keeps its reason and its shape (`SufficiencyVerdict`), for the finding and `--explain`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal as OneOf

import libcst as cst

from tritonlint.fixing.masks import (  # TL101's mask sources and call rewriting, reused as they are
    code_in,
    is_pure,
)
from tritonlint.semantic.broadcasts import from_right
from tritonlint.semantic.facts import full_tiles
from tritonlint.semantic.ir import LOOP_PREFIX, Access, AccessKind, Loop, Walk
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.names import code_of
from tritonlint.source.syntax import ordered
from tritonlint.source.tree import nodes_under

from .group import GroupReading
from .inclusive import InclusiveReading
from .late import LateReading
from .reading import PACKED, spaceless, spaceless_text, unbroadcast
from .shift import ShiftReading
from .start import StartReading

# How a mask misses an axis ("" for no hazard): a shift it ignores, swapped axes, packed units, a
# tile wider than its group, an offset added after the mask was formed, an inclusive bound, offsets
# shifted before the start.
Shape = OneOf["", "shift", "axes", "units", "group", "late", "inclusive", "start"]


@dataclass(frozen=True)
class SufficiencyVerdict:
    """What the check found on one walk of one access: a hazard with its reason, or why not."""

    walk: Walk
    hazard: TailHazard | None
    reason: str
    shape: Shape = ""
    shift: str = ""  # the loop key or PROGRAM the mask ignores (shape "shift")
    # Shape "axes": the pointer's broadcast and the mask's; "units": the bound and the unpacked tile;
    # "group": the block and the group size; "late": the shifted offsets; "inclusive": the comparison
    # as written and the line of the access that bounds the same offsets exclusively; "start": the
    # shifted offsets as written and the lower bound that keeps them inside.
    slices: tuple[str, str] = ("", "")
    followed: tuple[Loop | None, ...] = ()  # shifts the bound moves with (None: the program id)


class MaskSufficiency(ShiftReading, GroupReading, LateReading, InclusiveReading, StartReading):
    """TL104's reading of one kernel."""

    def findings(self, kind: AccessKind) -> Iterator[tuple[SufficiencyVerdict, tuple[SufficiencyVerdict, ...]]]:
        """Each `kind` access whose mask misses an axis (and that TL101/TL102 do not report): the
        first verdict that says so, and every verdict on the access."""
        for access in self.kernel.accesses:
            if access.kind != kind or access.mask is None or access.boundary_check is not None:
                continue
            found = next((v for v in self.verdicts(access) if v.hazard is not None), None)
            if found is not None and self.kernel.hazards.hazard_of(access) is None:
                yield found, tuple(self.verdicts(access))
        # A jit helper's access, judged with the offsets and mask the call passes it
        # (`load_tile(X + o_cs, m_t)`): placed at the helper's access, as TL101 places it.
        hazards = self.kernel.hazards
        for site, helper, inner, view in hazards.helper_accesses(kind):
            if view.mask is None or view.boundary_check is not None:
                continue
            found = next((v for v in self.verdicts(view) if v.hazard is not None), None)
            if found is None or found.hazard is None or hazards.hazard_of(view) is not None:
                continue
            placed = dataclasses.replace(found, hazard=hazards.in_helper(found.hazard, site, helper, inner))
            yield placed, tuple(self.verdicts(view))

    def verdicts(self, access: Access) -> Iterator[SufficiencyVerdict]:
        """One verdict per walk the mask is held to bound; lazy."""
        if access.mask is None or access.boundary_check is not None:
            return
        walks = self.walker.walks(access)
        if not walks:
            return
        own = self.ev.mask_dims(access, own=True)
        if own is None:
            return
        moved_by = self._moved_by(access)
        comparisons = [sides for sides in map(ordered, self.flow.mask_comparisons(access)) if sides is not None]
        for walk in walks:
            if walk.dim is None or walk.dim.endswith("]") or not self.ev.covers(own, walk.keys, moved_by):
                continue  # no offsets, a block pointer, or unbounded (TL101's business)
            yield self._judge(access, walk, comparisons)

    def _judge(self, access: Access, walk: Walk,
               comparisons: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> SufficiencyVerdict:
        dim = walk.dim
        assert dim is not None
        label = f"`{self.ev.label(dim)}`"
        relevant = [(small, large) for small, large in comparisons if self.broadcasts.bounds(small, dim, access)]
        if not relevant:
            return SufficiencyVerdict(walk, None, f"no single comparison bounds {label}: not judged")
        size = self.ev.dim_size.get(dim)
        # Axes can be confused only on a tile of two dimensions or more.
        axes = self._axes(access, dim) if sum(w.dim is not None for w in self.walker.walks(access)) > 1 else None
        if axes is not None:
            pointer_slice, mask_slice = axes
            evidence = (f"the pointer walks {label} along {_axis_words(pointer_slice)}, the mask bounds it "
                        f"along {_axis_words(mask_slice)}")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on every tile where the tile "
                                                       "is square, the partial last one included", evidence),
                                      evidence, "axes", slices=(pointer_slice, mask_slice))
        extents = [(small, large) for small, large in relevant if self.ev.runtime(large, 0)]
        followed = []
        for shift, moved in self._shifts(access, walk) if extents else ():
            if any(self._accounts(small, large, shift, access) for small, large in relevant):
                followed.append(moved)
                continue
            where = self._mover(moved)
            fact = full_tiles(self.kernel, access, walk)
            if fact is not None:
                return SufficiencyVerdict(walk, None, f"the mask ignores {where}, but {fact.reason}")
            bound = "; ".join(f"`{self._text(small)} < {self._text(large)}`" for small, large in relevant[:2])
            evidence = (f"the pointer's {label} is moved by {where}; the mask compares the in-tile offsets "
                        f"with the whole extent ({bound})")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the tile that ends past the "
                                                       "extent", evidence), evidence, "shift", shift)
        units = self._units(access, dim, relevant)
        if units is not None:
            (small, large), unpacked, other = units
            evidence = (f"`{self._text(small)} < {self._text(large)}` compares a tile of {size} with the bound the "
                        f"{other.call_name} at line {self.kernel.line_of(other.call)} gives a tile of {unpacked}: "
                        "one of them is in the other's units")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the tile that ends past the "
                                                       "extent in the pointer's units", evidence),
                                      evidence, "units", slices=(code_of(large), unpacked))
        group = self._group(access, dim, comparisons)
        if group is not None:
            block, groups = group
            evidence = (f"`{label[1:-1]}` spans tiles of {block}, launched as `next_power_of_2` of the group size "
                        f"({', '.join(f'`{g}`' for g in groups)}) the pointer steps by; no bound in the mask "
                        "reads the group size")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "not out of bounds: the padding lanes past the "
                                                       "group's end reach the next group's elements, inside the "
                                                       "allocation (wrong data, and a store overwrites them)",
                                                       evidence), evidence, "group", slices=(block, groups[0]))
        inclusive = self._inclusive(access, dim)
        if inclusive is not None:
            node, twin = inclusive
            written, line = self._text(node), str(self.kernel.line_of(twin.call))
            evidence = (f"`{written}` lets the lane at the bound through, but the {twin.call_name} at line {line} "
                        f"bounds the same offsets below it: the bound is where the tensor ends")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the tile that holds the "
                                                       "bound's index, one element past the end", evidence),
                                      evidence, "inclusive", slices=(written, line))
        late = self._late_offset(access, relevant)
        if late is not None:
            shifted, compared, bound_text = late
            evidence = (f"the mask compares `{compared}`, but the pointer walks `{shifted}`, built from `{compared}` "
                        "plus an offset the comparison does not read")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the lanes the offset moves past "
                                                       "the extent", evidence), evidence, "late",
                                      slices=(shifted, bound_text))
        start = self._before_start(access, walk)
        if start is not None:
            offsets, lower, value = start
            at = f"{int(value[1])}" if value[0] == value[1] else f"at most {int(value[1])}"
            # `value` is the whole index's (offsets and shift together), not the offsets' own.
            evidence = (f"the pointer's index is {at} on the first lane of the first program, where the mask "
                        f"holds: no comparison bounds `{offsets}` from below (`{lower}`)")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the first tile, before the "
                                                       "tensor's start", evidence), evidence, "start",
                                      slices=(offsets, lower))
        return SufficiencyVerdict(walk, None, f"the mask bounds {label} where the pointer puts it",
                                  followed=tuple(followed))


    def _mover(self, moved: Loop | None) -> str:
        """What moves a tile, for messages (a line number costs a position pass: only when said)."""
        return "the program's tile" if moved is None else f"the loop at line {self.kernel.line_of(moved.node)}"

    def reason(self, verdict: SufficiencyVerdict) -> str:
        """The verdict's reason as `--explain` prints it."""
        if not verdict.followed:
            return verdict.reason
        return f"{verdict.reason} (moved by {' and '.join(map(self._mover, verdict.followed))}, and so is the bound)"

    def _units(self, access: Access, dim: str, relevant: list[tuple[cst.BaseExpression, cst.BaseExpression]]
               ) -> tuple[tuple[cst.BaseExpression, cst.BaseExpression], str, Access] | None:
        """A packed tile (`tl.arange(0, BLOCK_K // 2)`) compared with the very bound the kernel gives
        its unpacked twin (`BLOCK_K`): `offs_kp < K - k` beside `offs_k < K - k`."""
        match = PACKED.fullmatch(re.sub(r"\s", "", self.ev.dim_size.get(dim, "")))
        if match is None:
            return None
        unpacked = match.group(1)
        mine = {spaceless(large): (small, large) for small, large in relevant
                if is_pure(unbroadcast(small), self.kernel, access)}
        if not mine:
            return None
        for other in self.kernel.flags.accesses:  # helpers' accesses too, as their calls see them
            if other is access or other.mask is None:
                continue
            for sides in map(ordered, self.flow.mask_comparisons(other)):
                if sides is None or spaceless(sides[1]) not in mine:
                    continue
                keys = self.ev.dims(sides[0], other.order, other.path, other.loops)
                if any(spaceless_text(self.ev.dim_size.get(key, "")) == unpacked for key in keys
                       if not key.startswith(LOOP_PREFIX)) and is_pure(unbroadcast(sides[0]), self.kernel, other):
                    return mine[spaceless(sides[1])], unpacked, other
        return None

    def accounts_in(self, mask: str, dim: str, shift: str, access: Access) -> bool:
        """Whether a mask's text has a comparison bounding `dim` that moves with `shift`."""
        try:
            node = cst.parse_expression(mask)
        except cst.ParserSyntaxError:
            return False
        for comparison in nodes_under(node):
            if type(comparison) is not cst.Comparison or len(comparison.comparisons) != 1:
                continue
            sides = ordered(comparison)
            if sides is not None and self.broadcasts.bounds(sides[0], dim, access) and \
                    self._accounts(sides[0], sides[1], shift, access):
                return True
        return False

    def replace_ignoring(self, access: Access, dim: str, shift: str, bound: str) -> str | None:
        """The call's mask with each comparison of `dim` that ignores the shift, written in the call
        itself (`(offs_k[None, :] < K)`), replaced by `bound`; None when there is none there."""
        assert access.mask is not None
        text = code_in(self.kernel, access.mask)
        replaced = text
        for node in nodes_under(access.mask):
            if type(node) is not cst.Comparison or len(node.comparisons) != 1:
                continue
            sides = ordered(node)
            if sides is None or not self.broadcasts.bounds(sides[0], dim, access) or \
                    self._accounts(sides[0], sides[1], shift, access):
                continue
            old = code_in(self.kernel, node)
            new = f"({bound})" if node.lpar or node is not access.mask else bound
            if replaced.count(old) != 1:
                return None
            replaced = replaced.replace(old, new)
        return None if replaced == text else replaced


    # ------------------------------------------------------------------ axes

    def _axes(self, access: Access, dim: str) -> tuple[str, str] | None:
        """(pointer's broadcast, mask's) of `dim` when they put it on different axes."""
        mask = self.broadcasts.mask_slices(access, dim)
        if not mask or len(mask) != 1:
            return None
        (mask_slice,) = mask
        if mask_slice and self.broadcasts.pointer_writes(access, dim, mask_slice):
            return None  # the pointer puts it there too: the same axis, or more than one (not judged)
        pointer = self.broadcasts.slices(access.pointer, dim, access)
        if pointer is None or len(pointer) != 1:
            return None
        (pointer_slice,) = pointer
        if pointer_slice == "":
            return None  # a 1-D pointer: no axis to confuse
        if from_right(mask_slice) == from_right(pointer_slice):
            return None
        return pointer_slice, mask_slice


def _axis_words(broadcast: str) -> str:
    axis = from_right(broadcast)
    if broadcast == "":
        return "the last axis (no broadcast)"
    return f"`{broadcast}`" + ("" if axis is None else f" (axis {axis} from the last)")
