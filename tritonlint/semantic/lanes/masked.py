"""Masked-off lanes: what a masked `tl.load` leaves in the lanes its mask switches off, followed to
the reductions and dots that fold those lanes into real results (rule TL105).

A masked load's switched-off lanes hold its `other=` value, or nothing defined when it has none.
From every reduction (`tl.sum`, `tl.max`, `tl.min`, `tl.argmax`, `tl.argmin`, `tl.dot`,
`tl.dot_scaled`) the reduced operand is read backwards through the kernel's definitions down to the
masked loads it is built from. Along the way the value of the switched-off lanes is computed on a
few sample numbers, lane by lane, with the operations the kernel applies (`x - m`, `tl.exp`, a
softcap's `tanh`, `tl.where(mask, x, 0.0)`), so that `other=0.0` followed by `tl.exp` reaches the
sum as 1, and `other=-inf` under a softcap reaches it as a finite number. Where the value reaching
a reduction along the axis the mask cuts is not the reduction's identity (0 for a sum and a dot,
-inf for a max, +inf for a min), the lanes change the result: that is the hazard.

An axis is counted from the right (the last axis is 0), so broadcasting (`x[:, None]`, a row
vector added to a tile) keeps it. What cannot be read (a helper call, a reshape, a `tl.where`
whose condition is unrelated to the mask) stops the reading: nothing is reported through it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.facts import full_tiles
from tritonlint.semantic.ir import LOOP_PREFIX, Access, HelperCall, Loop, Reduction, Walk
from tritonlint.semantic.lanes.follow import LaneFollower, Track
from tritonlint.semantic.lanes.values import (
    IDENTITY,
    SENTINEL,
    Lanes,
    call_name,
    is_integer,
    reduced_axis,
    reduced_operands,
    value_words,
)
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.names import code_of
from tritonlint.source.syntax import bound_arguments, loop_range

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext


@dataclass(frozen=True)
class LaneVerdict:
    """A tracked load's lanes as one reduction folds them, and what is wrong with them (if anything)."""

    track: Track
    reduction: Reduction
    operand: str  # "" for a reduction's only operand; "the first operand", "the scale of ..." for a dot
    lanes: Lanes
    identity: float
    problem: str  # "" when the lanes hold the identity


class MaskedLanes(LaneFollower):
    """TL105's reading of one kernel."""

    # ------------------------------------------------------------------ verdicts

    def tracks(self, access: Access) -> list[Track]:
        """The axes a load's mask cuts that the pointer walks, each with its place in the tile."""
        return [track for track, _ in self.cut_axes(access) if track is not None]

    def cut_axes(self, access: Access) -> list[tuple[Track | None, str]]:
        """Each axis the load's mask cuts, as a track, or (None, why no lane is switched off along it
        or why it is not followed), for `--explain`. Read once per load."""
        if access not in self._cut_axes:
            self._cut_axes[access] = self._read_cut_axes(access)
        return self._cut_axes[access]

    def _read_cut_axes(self, access: Access) -> list[tuple[Track | None, str]]:
        if access.kind != "load" or access.mask is None or access.boundary_check is not None:
            return []
        if self._chosen_padding(access):
            return [(None, "`other=` is a value the author chose for those lanes (not 0 or an infinity): not followed")]
        bounded = self.ev.mask_dims(access)
        if not bounded:
            return []
        walked = self.ev.dims(access.pointer, access.order, access.path, access.loops)
        found: list[tuple[Track | None, str]] = []
        for dim in sorted(bounded):
            if dim.startswith(LOOP_PREFIX) or dim.endswith("]"):
                continue
            if dim not in walked and not any(dim in self.ev.tile_parts.get(key, ()) for key in walked):
                continue  # (a named offset, `off = row * N + cols`, walks a tile whose part the mask bounds)
            label = f"`{self.kernel.label(dim)}`"
            if self._unit_tile(dim):
                found.append((None, f"{label}: a block of 1 that no launch sets: never padded"))
                continue
            if self._spans_its_bound(Track(access, dim, 0, None)):
                found.append((None, f"{label}: every launch sets its block to the bound its mask compares it with"))
                continue
            fact = next((fact for walk in self.kernel.walker.walks(access) if walk.dim == dim
                         for fact in [full_tiles(self.kernel, access, walk)] if fact is not None), None)
            if fact is not None:  # its tiles are all full (the kernel's construction says so)
                found.append((None, f"{label}: never padded ({fact.idiom}): {fact.reason}"))
                continue
            place = self._broadcasts.axis_of(access.pointer, dim, access)
            if place is None:
                found.append((None, f"{label}: its place in the tile cannot be read: not followed"))
                continue
            found.append((Track(access, dim, *place), ""))
        return found

    def track_of(self, access: Access, dim: str) -> Track | None:
        """A load's track along `dim` whatever its mask says (a fix's mask, not written yet); None
        where the dimension's place in the tile cannot be read."""
        place = self._broadcasts.axis_of(access.pointer, dim, access)
        return None if place is None else Track(access, dim, *place)

    def _chosen_padding(self, access: Access) -> bool:
        """`other=1.0` (a cosine's), `other=-1` (an id's "none"): a value the author picked for those
        lanes, which are often real data under a mask of meaning rather than of bounds. Only 0 and
        the infinities are padding meant to vanish, and only they are followed."""
        other = access.other
        value = self._constant(other, access.order, access.path, access.loops) if other is not None else None
        return value is not None and value != 0 and not math.isinf(value) and not math.isnan(value)

    def _unit_tile(self, dim: str) -> bool:
        """A tile of `BLOCK: tl.constexpr = 1` that no launch in view sets and no decorator names:
        one element, never padded (`bid = b + tl.arange(0, BLOCK_B)` walking a batch row by row)."""
        size = self.ev.dim_size.get(dim)
        function = self.kernel.function
        if size is None or not self.kernel.launches:
            return False
        for param in [*function.params.params, *function.params.kwonly_params]:
            if param.name.value == size and param.default is not None and code_of(param.default) == "1":
                decorators = " ".join(code_of(d) for d in self.kernel.ir.decorators)
                return size not in decorators and all(size not in launch.args for launch in self.kernel.launches)
        return False

    def _only_when_full(self, loops: tuple[Loop, ...], track: Track) -> bool:
        """Code that runs only when the tracked tile has no lane switched off: inside a loop (not
        the load's own) that starts at or past the tile's end and stops at the bound its mask
        compares with. `for n in range(BLOCK, N, BLOCK)` after `x = tl.load(X + offs, mask=offs < N)`
        with `offs = tl.arange(0, BLOCK)` runs only when N > BLOCK, and then the first tile is full:
        its padded lanes and the loop's values never meet (an online softmax's first tile)."""
        outer = [loop for loop in loops if loop not in track.access.loops]
        if not outer:
            return False
        size = self.ev.dim_size.get(track.dim)
        bounds = self._tile_bounds(track)
        for loop in outer:
            args = loop_range(loop.iterable)
            if size is not None and len(args) >= 2 and code_of(args[0]) == size and code_of(args[1]) in bounds:
                return True
        return False

    def _tile_bounds(self, track: Track) -> set[str]:
        """The bounds the load's mask compares the tracked tile with, where that tile is the
        `tl.arange(0, BLOCK)` itself (at no offset): `offs < N` gives {"N"}."""
        return {bound for keys, bound, plain in self._comparisons(track) if plain and keys == {track.dim}}

    def _spans_its_bound(self, track: Track) -> bool:
        """Every launch in view passes the tile's block and the bound its mask compares it with the
        same value (`head_dim=128, BLOCK_D=128`; `N=n, BLOCK=n`): the tile is exactly the extent and
        no lane is switched off."""
        size = self.ev.dim_size.get(track.dim)
        if size is None or not self.kernel.launches:
            return False
        return any(all(size in launch.args and launch.args[size] == launch.args.get(bound) for launch in self.kernel.launches)
                   for bound in self._tile_bounds(track))

    def verdicts(self, access: Access) -> Iterator[LaneVerdict]:
        """Every reduction the load's switched-off lanes reach along the axis they are cut on."""
        for track in self.tracks(access):
            yield from self.track_verdicts(track)

    def track_verdicts(self, track: Track) -> Iterator[LaneVerdict]:
        """Every reduction one track's lanes reach along their axis (a fix's hypothetical track too),
        in this function and in the jit helpers it passes them to."""
        yield from self._reductions_reached(track, self.kernel.ir.reductions)
        if self.bound:
            return  # (a helper's own helpers are not followed: one level)
        for site in self.kernel.ir.calls:
            helper = self.kernel.helpers.get(site.name)
            if helper is None or helper.ir is self.kernel.ir or not helper.ir.reductions:
                continue
            bound = self._arguments_lanes(site, helper, track)
            if bound:
                inside = MaskedLanes(helper, self.others, bound)
                yield from inside._reductions_reached(track, helper.ir.reductions)

    def _arguments_lanes(self, site: HelperCall, helper: KernelContext,
                         track: Track) -> dict[tuple[str, bool], Lanes | str | None]:
        """The lanes each argument of a helper call holds (real and switched-off), by the helper's
        parameter name; empty when none carries the track, or the call is not read (`*args`)."""
        arguments = bound_arguments(helper.ir.function, site.call)
        if arguments is None:
            return {}
        bound: dict[tuple[str, bool], Lanes | str | None] = {}
        for name, value in arguments.items():
            for valid in (False, True):
                bound[(name, valid)] = self.follow(value, site.order, site.path, site.loops, track, valid)
        return bound if any(isinstance(lanes, Lanes) and lanes.mine for lanes in bound.values()) else {}

    def _reductions_reached(self, track: Track, reductions: list[Reduction]) -> Iterator[LaneVerdict]:
        for reduction in reductions:
            if self._only_when_full(reduction.loops, track):
                continue
            for operand, node, right in reduced_operands(reduction, self.kernel):
                lanes = self.follow(node, reduction.order, reduction.path, reduction.loops, track)
                if not isinstance(lanes, Lanes) or not lanes.mine:
                    continue
                if right is None:
                    right = reduced_axis(reduction, lanes, self.kernel)
                    if right is None:
                        continue
                if right not in (lanes.right, -1):
                    continue
                identity = 0.0 if operand.startswith("the scale") else IDENTITY[reduction.kind]
                problem = self._problem(reduction, operand, node, lanes, identity, track)
                if problem == "not the identity" and reduction.kind == "dot" and \
                        self.partner_zero(reduction, operand, track):
                    problem = ""  # finite lanes times the other operand's zeros add nothing
                yield LaneVerdict(track, reduction, operand, lanes, identity, problem)

    def finding(self, access: Access) -> tuple[TailHazard, str, tuple[LaneVerdict, ...], int] | None:
        """The load's first wrong verdict as a hazard, the finding's message worded from that verdict,
        every verdict on the load (the fix starts from them) and the line of the reduction the message
        names: no second reading."""
        verdict = next((v for v in self.verdicts(access) if v.problem), None)
        if verdict is None:
            return None
        label = f"`{self.kernel.label(verdict.track.dim)}`"
        hazard = TailHazard(access, Walk(verdict.track.dim, None),
                            f"wherever the mask switches lanes off along {label} (a partial tile, padded lanes)",
                            self.describe(verdict))
        return hazard, self._summary(verdict), tuple(self.verdicts(access)), self.kernel.line_of(verdict.reduction.call)

    def _summary(self, verdict: LaneVerdict) -> str:
        """The finding's message: which reduction the lanes reach, and what they hold there."""
        reduction = f"`tl.{verdict.reduction.kind}` at line {self.kernel.line_of(verdict.reduction.call)}"
        what = f"{verdict.operand} of " if verdict.operand else ""
        need = {0.0: "0", -math.inf: "-inf", math.inf: "+inf"}[verdict.identity]
        if verdict.problem == "NaN":
            held = "as NaN"
        else:
            held = f"as {value_words(verdict.lanes.samples, verdict.lanes.exact)}, not its identity {need}"
        return f"the lanes the mask of tl.load switches off reach {what}{reduction} {held}"

    def partner_zero(self, reduction: Reduction, operand: str, track: Track) -> bool:
        """The other operand of a dot holds exact zeros along the same reduced axis: it was loaded
        under a mask on the same dimension with `other=0` (`p @ v` where `v`'s padded rows are 0)."""
        operands = reduced_operands(reduction, self.kernel)
        partner = next(((node, right) for words, node, right in operands if words and words != operand), None)
        if partner is None or partner[1] is None:
            return False
        # The reading already takes loads masked on the same lanes as padded there (`_masked_alike`).
        lanes = self.follow(partner[0], reduction.order, reduction.path, reduction.loops, track)
        return isinstance(lanes, Lanes) and lanes.exact and not any(lanes.legit) and lanes.right == partner[1] \
            and all(value == 0 for value in lanes.samples)

    def _problem(self, reduction: Reduction, operand: str, node: cst.BaseExpression, lanes: Lanes,
                 identity: float, track: Track) -> str:
        if operand.startswith("the scale"):
            return ""  # any defined scale times the zeroed data it scales adds nothing
        if any(math.isnan(value) for value in lanes.samples):
            return "NaN"
        if all(value == identity for value in lanes.samples):
            return ""
        if reduction.kind in ("max", "argmax", "min", "argmin"):
            if not lanes.exact or any(lanes.legit):
                # A data-derived value, or one added to another tile's lanes (`x + bias` with the
                # bias's padded lanes 0 and x's -inf), need not win the comparison: not judged.
                return ""
            stated = track.access.other
            if stated is not None and not lanes.steps and all(math.isfinite(value) for value in lanes.samples):
                # `other=0.0` written beside a max of that very load: the author's statement about
                # the data's range (a max of nonnegative partials); not judged.
                return ""
            if is_integer(stated):
                # Integer data (lengths, counts, token ids): `other=0` or `-1` is the convention of
                # a range the checker cannot read (nonnegative, -1 for none).
                return ""
            lowest = reduction.kind in ("max", "argmax")
            if all((value <= -SENTINEL) if lowest else (value >= SENTINEL) for value in lanes.samples):
                return ""  # `-1e30`, `-FLT_MAX`, `-10000`: below any real score
            if lowest and self._absolute(node) and all(value <= 0 for value in lanes.samples):
                # `tl.max(tl.abs(x))`: no real lane is below 0, so lanes of 0 never win, whatever
                # data the real lanes hold (an absmax for a quantization scale).
                return ""
            valid = self.follow(node, reduction.order, reduction.path, reduction.loops, track, valid=True)
            if isinstance(valid, Lanes) and not any(valid.legit):
                # `tl.max(tl.abs(x))` with `other=0`: the real lanes never lose to the switched-off ones.
                if reduction.kind in ("max", "argmax") and min(valid.samples) >= max(lanes.samples):
                    return ""
                if reduction.kind in ("min", "argmin") and max(valid.samples) <= min(lanes.samples):
                    return ""
        return "not the identity"

    def _absolute(self, node: cst.BaseExpression) -> bool:
        """Whether the reduced operand is an absolute value (`tl.abs(x)`, `tl.math.abs(x)`, `tl.fabs(x)`),
        directly or through a local assigned it once."""
        if type(node) is cst.Name:
            defs = [d for d in self.kernel.ir.defs.get(node.value, ()) if d.kind == "assign"]
            if len(defs) != 1 or defs[0].value is None:
                return False
            node = defs[0].value
        return type(node) is cst.Call and (self.kernel.qualify_tl(node.func) or "").rpartition(".")[2] in ("abs", "fabs")

    def describe(self, verdict: LaneVerdict) -> str:
        """How the lanes get there: their value at the load and the calls that change it."""
        kernel = self.kernel
        other = self._other_text(verdict.track.access)
        if other is None and kernel.masked_lanes == "undefined":
            held = "are undefined at the load (no `other=`, and masked-lanes = \"undefined\")"
        elif other is None:
            held = "are 0 at the load (no `other=`: Triton fills masked-off lanes with 0)"
        else:
            held = f"hold `{other}` at the load"
        lanes = verdict.lanes
        if lanes.steps:
            steps = list(dict.fromkeys(lanes.steps))[:3]
            # Placed by the callee's name: `acc += tl.exp(x)` is read as a copy of the call made by the
            # binder (`acc + (tl.exp(x))`), which is not in the tree; its `func` is the original node.
            names = ", ".join(f"`{call_name(step, kernel)}` (line {kernel.line_of(step.func)})" for step in steps)
            held += f", and {value_words(lanes.samples)} after {names}"
        folded = "reduces" if verdict.reduction.kind not in ("dot", "dot_scaled") else "sums over"
        why = {"NaN": "NaN spreads through the result"}.get(verdict.problem, "each such lane changes the result")
        return (f"the switched-off lanes {held}; `tl.{verdict.reduction.kind}` {folded} the axis they lie on: "
                f"{why}")

    # ------------------------------------------------------------------ reading values backwards
