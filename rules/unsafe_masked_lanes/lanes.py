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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst
from tritonlint.rules.insufficient_mask.analysis import MaskSufficiency

from tritonlint.diagnostics import Applicability
from tritonlint.fixing.layouts import module_numbers
from tritonlint.fixing.masks import CallFix, _with_arguments
from tritonlint.semantic.facts import full_tiles
from tritonlint.semantic.ir import LOOP_PREFIX, Access, Loop, Reduction, TailHazard, Walk
from tritonlint.semantic.paths import Path
from tritonlint.source.names import code_of
from tritonlint.source.syntax import keyword, loop_range, ordered
from tritonlint.source.tree import expressions_in

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelModel

# Sample lanes. Untracked data is taken to be positive (a scale, a running max of real scores):
# `-inf * scale` stays -inf, as it does in every kernel that scales masked scores. The tracked
# load's own valid lanes take both signs (`tl.max(tl.abs(x))` is nonnegative, `tl.max(x)` is not).
_DATA = (0.5, 3.0, 0.75, 2.0)
# A finite stand-in for -inf in a max (`other=-1e30`, `-FLT_MAX`, `-10000` before a softmax).
_SENTINEL = 1e4
_SIGNED = (-3.0, -0.5, 0.5, 3.0)
_WIDTH = len(_DATA)
# The identity each reduction needs in the lanes it folds.
_IDENTITY = {"sum": 0.0, "dot": 0.0, "dot_scaled": 0.0, "max": -math.inf, "argmax": -math.inf,
             "min": math.inf, "argmin": math.inf}
_IDENTITY_TEXT = {0.0: "0.0", -math.inf: 'float("-inf")', math.inf: 'float("inf")'}


@dataclass(frozen=True)
class Lanes:
    """The switched-off lanes of one tracked load, as they reach an expression."""

    samples: tuple[float, ...]  # what the lanes add to the result, on a few sample lanes
    exact: bool  # computed from constants only (not from data the kernel loaded or was given)
    right: int  # the axis they lie along, counted from the last
    ndim: int | None  # how many axes the value has, when known
    steps: tuple[cst.Call, ...] = ()  # calls that changed the value on the way (`tl.exp`)
    # How much of a legitimate tile value the lanes also hold: an accumulator carried around the
    # loop (`acc + x`), another tile loaded along the same axis (`x * w`). A lane holding
    # `1 * acc + 0` adds nothing of its own; `samples` is the part that is the lanes' own.
    legit: tuple[float, ...] = (0.0,) * 4
    # Whether the tracked load itself is in the value, not only other loads masked on the same
    # lanes (their padding sits in the same places: `maximum + tl.log(accumulate)`, both masked by
    # `offs < n`, is `0 + log(0)` there). A reduction is judged for the load only if it is.
    mine: bool = True


_UNKNOWN = "unknown"  # the reading stopped: nothing is said
_CARRIED = "carried"  # a name whose value comes around the loop from itself: legitimate tile data
_NO_LEGIT = (0.0,) * 4
_ALL_LEGIT = (1.0,) * 4


@dataclass(frozen=True)
class Track:
    """One masked load, along one axis its mask cuts."""

    access: Access
    dim: str
    right: int
    ndim: int | None


@dataclass(frozen=True)
class LaneVerdict:
    """A tracked load's lanes as one reduction folds them, and what is wrong with them (if anything)."""

    track: Track
    reduction: Reduction
    operand: str  # "" for a reduction's only operand; "the first operand", "the scale of ..." for a dot
    lanes: Lanes
    identity: float
    problem: str  # "" when the lanes hold the identity


class MaskedLanes:
    """TL105's reading of one kernel."""

    def __init__(self, kernel: KernelModel, others: dict[Access, str] | None = None) -> None:
        self.kernel = kernel
        self.ev, self.flow = kernel.ev, kernel.flow
        self.others = others or {}  # an `other=` text to assume instead of the written one (the fix's check)
        self._memo: dict[tuple[int, int, Path, int, Track, bool], Lanes | str | None] = {}
        self._active: set[tuple[int, Track, bool]] = set()
        self._cut_axes: dict[Access, list[tuple[Track | None, str]]] = {}
        self._sufficiency = MaskSufficiency(kernel)  # its broadcast reading places a track on its axis
        self._loads: dict[int, Access] | None = None  # loads by their call and their callee
        self._cut_by: dict[Track, list[tuple[frozenset[str], str, bool]]] = {}
        self._lanes_off: dict[Track, frozenset[tuple[frozenset[str], str]]] = {}

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
            if dim.startswith(LOOP_PREFIX) or dim.endswith("]") or dim not in walked:
                continue
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
            place = self._sufficiency.axis_of(access.pointer, dim, access)
            if place is None:
                found.append((None, f"{label}: its place in the tile cannot be read: not followed"))
                continue
            found.append((Track(access, dim, *place), ""))
        return found

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
                decorators = " ".join(code_of(d.decorator) for d in function.decorators)
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
            args = loop_range(loop.node)
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
            for reduction in self.kernel.ir.reductions:
                if self._only_when_full(reduction.loops, track):
                    continue
                for operand, node, right in _reduced_operands(reduction, self.kernel):
                    lanes = self.follow(node, reduction.order, reduction.path, reduction.loops, track)
                    if not isinstance(lanes, Lanes) or not lanes.mine:
                        continue
                    if right is None:
                        right = _reduced_axis(reduction, lanes, self.kernel)
                        if right is None:
                            continue
                    if right not in (lanes.right, -1):
                        continue
                    identity = 0.0 if operand.startswith("the scale") else _IDENTITY[reduction.kind]
                    problem = self._problem(reduction, operand, node, lanes, identity, track)
                    if problem == "not the identity" and reduction.kind == "dot" and \
                            self._partner_zero(reduction, operand, track):
                        problem = ""  # finite lanes times the other operand's zeros add nothing
                    yield LaneVerdict(track, reduction, operand, lanes, identity, problem)

    def hazard(self, access: Access) -> TailHazard | None:
        """The load's first wrong verdict as a finding, worded from that verdict (no second reading)."""
        verdict = next((v for v in self.verdicts(access) if v.problem), None)
        if verdict is None:
            return None
        label = f"`{self.kernel.label(verdict.track.dim)}`"
        return TailHazard(access, Walk(verdict.track.dim, None),
                          f"wherever the mask switches lanes off along {label} (a partial tile, padded lanes)",
                          self.describe(verdict), message=self._summary(verdict))

    def _summary(self, verdict: LaneVerdict) -> str:
        """The finding's message: which reduction the lanes reach, and what they hold there."""
        reduction = f"`tl.{verdict.reduction.kind}` at line {self.kernel.line_of(verdict.reduction.call)}"
        what = f"{verdict.operand} of " if verdict.operand else ""
        need = {0.0: "0", -math.inf: "-inf", math.inf: "+inf"}[verdict.identity]
        if verdict.problem == "NaN":
            held = "as NaN"
        else:
            held = f"as {_value_words(verdict.lanes.samples, verdict.lanes.exact)}, not its identity {need}"
        return f"the lanes the mask of tl.load switches off reach {what}{reduction} {held}"

    def _partner_zero(self, reduction: Reduction, operand: str, track: Track) -> bool:
        """The other operand of a dot holds exact zeros along the same reduced axis: it was loaded
        under a mask on the same dimension with `other=0` (`p @ v` where `v`'s padded rows are 0)."""
        operands = _reduced_operands(reduction, self.kernel)
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
            if _integer(stated):
                # Integer data (lengths, counts, token ids): `other=0` or `-1` is the convention of
                # a range the checker cannot read (nonnegative, -1 for none).
                return ""
            lowest = reduction.kind in ("max", "argmax")
            if all((value <= -_SENTINEL) if lowest else (value >= _SENTINEL) for value in lanes.samples):
                return ""  # `-1e30`, `-FLT_MAX`, `-10000`: below any real score
            valid = self.follow(node, reduction.order, reduction.path, reduction.loops, track, valid=True)
            if isinstance(valid, Lanes) and not any(valid.legit):
                # `tl.max(tl.abs(x))` with `other=0`: the real lanes never lose to the switched-off ones.
                if reduction.kind in ("max", "argmax") and min(valid.samples) >= max(lanes.samples):
                    return ""
                if reduction.kind in ("min", "argmin") and max(valid.samples) <= min(lanes.samples):
                    return ""
        return "not the identity"

    def describe(self, verdict: LaneVerdict) -> str:
        """How the lanes get there: their value at the load and the calls that change it."""
        kernel = self.kernel
        other = self._other_text(verdict.track.access)
        held = ("are 0 at the load (no `other=`: Triton fills masked-off lanes with 0)" if other is None
                else f"hold `{other}` at the load")
        lanes = verdict.lanes
        if lanes.steps:
            steps = list(dict.fromkeys(lanes.steps))[:3]
            # Placed by the callee's name: `acc += tl.exp(x)` is read as a copy of the call made by the
            # binder (`acc + (tl.exp(x))`), which is not in the tree; its `func` is the original node.
            names = ", ".join(f"`{_call_name(step, kernel)}` (line {kernel.line_of(step.func)})" for step in steps)
            held += f", and {_value_words(lanes.samples)} after {names}"
        folded = "reduces" if verdict.reduction.kind not in ("dot", "dot_scaled") else "sums over"
        why = {"NaN": "NaN spreads through the result"}.get(verdict.problem, "each such lane changes the result")
        return (f"the switched-off lanes {held}; `tl.{verdict.reduction.kind}` {folded} the axis they lie on: "
                f"{why}")

    # ------------------------------------------------------------------ reading values backwards

    def follow(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
               valid: bool = False) -> Lanes | str | None:
        """The tracked lanes as they reach `node` (`valid`: the load's real lanes instead); None where
        `node` is not built from the load, `_UNKNOWN` where the reading stops."""
        key = (id(node), order, path, id(loops), track, valid)
        if key in self._memo:
            return self._memo[key]
        found = self._follow(node, order, path, loops, track, valid)
        self._memo[key] = found
        return found

    def _follow(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
                valid: bool) -> Lanes | str | None:
        def again(inner: cst.BaseExpression) -> Lanes | str | None:
            return self.follow(inner, order, path, loops, track, valid)

        if type(node) is cst.Name:
            return self._through_name(node.value, order, path, loops, track, valid)
        if type(node) is cst.Call:
            if node is track.access.call:
                return self._loaded(track, valid)
            joint = self._masked_alike(node, track)
            if joint is not None and joint.access is track.access:
                return self._loaded(track, valid)
            if joint is not None and not valid:  # (its real lanes are data like any other's)
                return replace(self._loaded(joint, valid), mine=False)
            return self._through_call(node, order, path, loops, track, valid, again)
        if type(node) is cst.BinaryOperation:
            return self._binary(node, node.left, node.right, order, path, loops, track, valid)
        if type(node) is cst.UnaryOperation:
            inner = again(node.expression)
            if not isinstance(inner, Lanes):
                return inner
            if type(node.operator) is cst.Minus:
                return replace(inner, samples=tuple(-value for value in inner.samples),
                               legit=tuple(-value for value in inner.legit))
            return inner if type(node.operator) is cst.Plus else _UNKNOWN
        if type(node) is cst.Subscript:
            inner = again(node.value)
            if not isinstance(inner, Lanes):
                return inner
            return _broadcast(node, inner)
        if type(node) is cst.IfExp:
            return _join([self.follow(side, order, path | literals, loops, track, valid)
                          for side, literals in self.kernel.reader.sides(node)])
        if type(node) in (cst.Comparison, cst.BooleanOperation):
            return _UNKNOWN if any(again(part) is not None for part in expressions_in(node)) else None
        return None

    def _access_of(self, call: cst.Call) -> Access | None:
        """The load `call` is, found by its callee too: `acc += tl.load(...)` is read through a copy."""
        if self._loads is None:
            self._loads = {}
            for access in self.kernel.accesses:
                if access.kind == "load":
                    self._loads[id(access.call)] = self._loads[id(access.call.func)] = access
        return self._loads.get(id(call)) or self._loads.get(id(call.func))

    def _masked_alike(self, call: cst.Call, track: Track) -> Track | None:
        """A load masked on the tracked lanes (the same dimension): its own padding is what those
        lanes hold in it."""
        access = self._access_of(call)
        if access is None:
            return None
        if access is track.access:
            return track
        lanes = self._switched_off(track)
        return next((other for other in self.tracks(access)
                     if self.ev.same_tile(other.dim, track.dim) and lanes & self._switched_off(other)), None)

    def _comparisons(self, track: Track) -> list[tuple[frozenset[str], str, bool]]:
        """The comparisons of the load's mask that cut the track's dimension, read once per track:
        (what the compared offsets are built from, the bound's text, whether the offsets are the
        smaller side and the bound holds no offsets: `offs < n`)."""
        if track not in self._cut_by:
            access = track.access
            found = []
            for comparison in self.flow.mask_comparisons(access):
                sides = ordered(comparison)
                if sides is None:
                    continue  # `==`, `!=`: select lanes, bound none
                keys = [self.ev.dims(side, access.order, access.path, access.loops) for side in sides]
                for offsets, bound, below in ((0, 1, True), (1, 0, False)):
                    if any(self.ev.same_tile(key, track.dim) for key in keys[offsets]):
                        found.append((keys[offsets], code_of(sides[bound]), below and not keys[bound]))
            self._cut_by[track] = found
        return self._cut_by[track]

    def _switched_off(self, track: Track) -> frozenset[tuple[frozenset[str], str]]:
        """Which lanes the mask switches off, as the comparisons that cut the track's dimension: (the
        lanes the compared offsets stand for, the bound). `offs < n` and `start + offs < n` in a loop
        switch off different lanes; two loads masked by `offs_m < num_tokens` the same ones."""
        if track not in self._lanes_off:
            self._lanes_off[track] = frozenset((self._lane_keys(keys), bound) for keys, bound, _ in self._comparisons(track))
        return self._lanes_off[track]

    def _lane_keys(self, keys: frozenset[str]) -> frozenset[str]:
        """What compared offsets are built from, as lane positions: a tile (`cols = start + offs`) by
        the aranges under it, and a loop only if it starts past 0 (the first tile of `range(0, N,
        BLOCK)` is the same lanes as `offs` itself; `range(BLOCK, N, BLOCK)` never is)."""
        found: set[str] = set()
        expanded = {part for key in keys for part in (self.ev.tile_parts.get(key) or (key,))}
        for key in expanded:
            if key.startswith(LOOP_PREFIX):
                loop = next((loop for loop in self.kernel.ir.loops if loop.key == key), None)
                args = loop_range(loop.node) if loop is not None else []
                if args and (len(args) == 1 or code_of(args[0]) == "0"):
                    continue
            found.add(key)
        return frozenset(found)

    def _through_name(self, name: str, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
                      valid: bool) -> Lanes | str | None:
        found: list[Lanes | str | None] = []
        carried = False
        for d in self.flow.reaching(name, order, path, loops):
            if d.value is None or d.kind not in ("assign", "advance") or self._only_when_full(d.loops, track):
                found.append(None)
                continue
            key = (id(d), track, valid)
            if key in self._active:
                carried = True  # around the loop: the value before this iteration, legitimate data
                continue
            self._active.add(key)
            try:
                found.append(self.follow(d.value, d.order, d.path, d.loops, track, valid))
            finally:
                self._active.discard(key)
        joined = _join(found)
        return _CARRIED if joined is None and carried else joined

    def _loaded(self, track: Track, valid: bool) -> Lanes:
        if valid:
            return Lanes(_SIGNED, False, track.right, track.ndim)
        text = self._other_text(track.access)
        if text is None:
            # The language leaves these lanes unspecified; every Triton backend fills them with 0
            # (the NVIDIA PTX builder moves 0 into the destination when there is no `other`; the
            # interpreter uses zeros). 0 is what a sum or a dot of them adds.
            return Lanes((0.0,) * _WIDTH, True, track.right, track.ndim)
        value = self._constant(cst.parse_expression(text) if track.access in self.others else
                               track.access.other, track.access.order, track.access.path,
                               track.access.loops)
        if value is None:
            return Lanes(_DATA, False, track.right, track.ndim)
        return Lanes((value,) * _WIDTH, True, track.right, track.ndim)

    def _other_text(self, access: Access) -> str | None:
        if access in self.others:
            return self.others[access]
        other = access.other
        return None if other is None else code_of(other)

    def _binary(self, node: cst.BinaryOperation, left: cst.BaseExpression, right: cst.BaseExpression, order: int,
                path: Path, loops: tuple[Loop, ...], track: Track, valid: bool) -> Lanes | str | None:
        operation = _OPERATIONS.get(type(node.operator))
        sides = [self.follow(side, order, path, loops, track, valid) for side in (left, right)]
        if not any(_tracked(side) for side in sides):
            return None
        if operation is None or any(side == _UNKNOWN for side in sides):
            return _UNKNOWN
        return self._combine(sides, [left, right], operation, order, path, loops, track, None, valid)

    def _combine(self, sides: list[Lanes | str | None], nodes: list[cst.BaseExpression], operation: str,
                 order: int, path: Path, loops: tuple[Loop, ...], track: Track,
                 step: cst.Call | None, valid: bool) -> Lanes | str:
        """Two operands lane by lane, each as (legitimate part, own part): `a*L + b`."""
        tracked = [side for side in sides if isinstance(side, Lanes)]
        first = tracked[0]
        if any(side.right != first.right for side in tracked):
            return _UNKNOWN
        pairs: list[tuple[tuple[float, ...], tuple[float, ...]]] = []
        sides_exact: list[bool] = []
        for side, node in zip(sides, nodes):
            if isinstance(side, Lanes):
                pairs.append((side.legit, side.samples))
                sides_exact.append(side.exact)
                continue
            legit, own, known = self._untracked(node, side, order, path, loops, track, valid, first.right)
            sides_exact.append(known)
            pairs.append((legit, own))
        exact = all(sides_exact)
        combined = _lanewise(operation, pairs[0], pairs[1])
        if combined is None:
            return _UNKNOWN
        if operation == "mul" and any(not any(legit) and all(value == 0 for value in own) and exact_side
                                      for (legit, own), exact_side in zip(pairs, sides_exact)):
            exact = True  # an exact 0 times finite data is an exact 0
        ndims = [side.ndim for side in tracked]
        # Only the tracked load's own steps: another load's (`tl.log(accumulate)`) did not change these.
        steps = tuple(s for side in tracked if side.mine for s in side.steps) + ((step,) if step is not None else ())
        return Lanes(combined[1], exact, first.right, max(ndims) if None not in ndims else None,  # type: ignore[type-var]
                     steps, combined[0], any(side.mine for side in tracked))

    def _untracked(self, node: cst.BaseExpression, side: Lanes | str | None, order: int, path: Path,
                   loops: tuple[Loop, ...], track: Track, valid: bool,
                   right: int) -> tuple[tuple[float, ...], tuple[float, ...], bool]:
        """An operand the tracked lanes do not reach, at their places (on the axis `right`):
        (legitimate part, own part, exact). A constant is itself; an accumulator or a tile that
        varies along the same axis is the tile's own business (legitimate: its lanes differ one
        from the next, and its own padding is judged on its own track); anything else (a scalar
        broadcast over the lanes: a mean, a scale, a running max; a row vector broadcast across
        the tracked columns) is data added to every lane, the switched-off ones too."""
        constant = self._constant(node, order, path, loops)
        if constant is not None:
            return _NO_LEGIT, (constant,) * _WIDTH, True
        if valid:
            return _NO_LEGIT, _DATA, False  # the real lanes' values, not what they add
        if side == _CARRIED or self._along(node, order, path, loops, track, 0) or \
                right in (self._axes(node, order, path, loops, 0) or ()):
            return _ALL_LEGIT, (0.0,) * _WIDTH, True
        return _NO_LEGIT, _DATA, False

    def _along(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
               depth: int) -> bool:
        """A value that varies along the tracked axis: built from a load or an `arange` over it, not
        folded by a reduction on the way."""
        if depth > 12:
            return False
        if type(node) is cst.Name:
            return any(d.value is not None and d.kind in ("assign", "advance") and
                       self._along(d.value, d.order, d.path, d.loops, track, depth + 1)
                       for d in self.flow.reaching(node.value, order, path, loops) if d.order < order)
        if type(node) is cst.Call:
            member = self.kernel.qualify_tl(node.func)
            # A dot keeps its first operand's rows and its second's columns: it varies along what
            # they vary along (the reduced axis aside, which is not told apart here).
            if member not in ("dot", "dot_scaled") and (member in _IDENTITY or (
                    member is None and type(node.func) is cst.Attribute and node.func.attr.value in _IDENTITY)):
                return False
            if member in ("load", "arange"):
                keys = self.ev.dims(node.args[0].value if member == "load" and node.args else node, order, path, loops)
                return any(self.ev.same_tile(key, track.dim) for key in keys)
        return any(self._along(child, order, path, loops, track, depth + 1) for child in expressions_in(node))

    def _axes(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
              depth: int) -> frozenset[int] | None:
        """The axes (counted from the last) a value varies along, whatever offsets it is built from
        (`dk_beta` loaded over `o_k` varies along the same axis as `q` over `o_v` when both are
        `[:, None]`-free columns); None where that cannot be read (a helper, a reduction)."""
        if depth > 12:
            return None
        if type(node) is cst.Name:
            found: set[int] = set()
            for d in self.flow.reaching(node.value, order, path, loops):
                if d.order >= order or d.value is None or d.kind not in ("assign", "advance"):
                    continue  # a parameter or a loop target: a scalar
                axes = self._axes(d.value, d.order, d.path, d.loops, depth + 1)
                if axes is None:
                    return None
                found |= axes
            return frozenset(found)
        if type(node) in (cst.Integer, cst.Float, cst.SimpleString):
            return frozenset()
        if type(node) is cst.Subscript:
            inner = self._axes(node.value, order, path, loops, depth + 1)
            if not inner:
                return inner
            ndim = max(inner) + 1
            placed = [_broadcast(node, Lanes((), True, axis, ndim)) for axis in inner]
            if any(not isinstance(lanes, Lanes) for lanes in placed):
                return None
            return frozenset(lanes.right for lanes in placed if isinstance(lanes, Lanes))
        if type(node) in (cst.BinaryOperation, cst.UnaryOperation, cst.IfExp):
            found = set()
            for part in expressions_in(node):
                axes = self._axes(part, order, path, loops, depth + 1)
                if axes is None:
                    return None
                found |= axes
            return frozenset(found)
        if type(node) is not cst.Call:
            return None
        member = self.kernel.qualify_tl(node.func)
        method = node.func.attr.value if type(node.func) is cst.Attribute and member is None else None
        args = [arg.value for arg in node.args if arg.keyword is None]
        if member == "arange":
            return frozenset({0})
        if member in ("zeros", "full", "program_id", "num_programs", "cdiv"):
            return frozenset()
        if member == "load" and args:
            access = self._access_of(node)
            if access is None:
                return None
            found = set()
            for dim in self.ev.dims(access.pointer, access.order, access.path, access.loops):
                if dim.startswith(LOOP_PREFIX):
                    continue
                place = self._sufficiency.axis_of(access.pointer, dim, access)
                if place is None:
                    return None
                found.add(place[0])
            return frozenset(found)
        if method == "to" or member == "cast":
            source = node.func.value if method == "to" else (args[0] if args else None)  # type: ignore[attr-defined]
            return None if source is None else self._axes(source, order, path, loops, depth + 1)
        if (member in _UNARY or member in ("where", "maximum", "minimum")) and args:
            found = set()
            for part in args:
                axes = self._axes(part, order, path, loops, depth + 1)
                if axes is None:
                    return None
                found |= axes
            return frozenset(found)
        if member == "trans" and args:
            inner = self._axes(args[0], order, path, loops, depth + 1)
            return None if inner is None or any(axis > 1 for axis in inner) else frozenset(1 - axis for axis in inner)
        if member == "dot" and len(args) >= 2:
            first, second = (self._axes(arg, order, path, loops, depth + 1) for arg in args[:2])
            if first is None or second is None:
                return None
            return frozenset(({1} & first) | ({0} & second))
        return None

    def _through_call(self, call: cst.Call, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
                      valid: bool, again: Callable[[cst.BaseExpression], Lanes | str | None]) -> Lanes | str | None:
        member = self.kernel.qualify_tl(call.func)
        method = call.func.attr.value if type(call.func) is cst.Attribute and member is None else None
        if method == "to" or member == "cast":
            source = call.func.value if method == "to" else call.args[0].value  # type: ignore[attr-defined]
            return again(source)
        args = [arg.value for arg in call.args if arg.keyword is None]
        name = member or method
        if name == "trans" or (type(call.func) is cst.Attribute and method == "permute"):
            source = args[0] if member is not None and args else call.func.value  # type: ignore[attr-defined]
            inner = again(source)
            if not isinstance(inner, Lanes):
                return inner
            if inner.ndim != 2 or (len(args) > 1 and member is None and len(args) != 2):
                return _UNKNOWN  # only the 2-D transpose is read
            return replace(inner, right=1 - inner.right)
        if name == "where" and member is not None and len(args) == 3:
            return self._where(call, args, order, path, loops, track, valid)
        if name in _UNARY and (member is not None or method is not None):
            source = args[0] if member is not None and args else (call.func.value if method else None)  # type: ignore[attr-defined]
            if source is None:
                return _UNKNOWN
            inner = again(source)
            if not isinstance(inner, Lanes):
                return inner
            if any(inner.legit):
                return _UNKNOWN  # a function of legitimate data and the lanes' own part together
            samples = tuple(_safe_unary(_UNARY[name], value) for value in inner.samples)
            return replace(inner, samples=samples, steps=inner.steps + (call,))
        if name in ("maximum", "minimum") and member is not None and len(args) == 2:
            sides = [again(arg) for arg in args]
            if not any(_tracked(side) for side in sides):
                return None
            if any(side == _UNKNOWN for side in sides):
                return _UNKNOWN
            return self._combine(sides, args, name, order, path, loops, track, call, valid)
        if name in _IDENTITY:
            return self._through_reduction(call, name, order, path, loops, track, valid, again)
        if member in ("load", "store", "zeros", "full", "arange", "program_id", "num_programs", "cdiv",
                      "zeros_like", "full_like", "static_range", "range"):
            return None
        # Anything else (a helper, a reshape, a scan): what it does to the lanes is not read.
        parts = [arg.value for arg in call.args] + ([call.func.value] if type(call.func) is cst.Attribute else [])
        return _UNKNOWN if any(again(part) is not None for part in parts) else None

    def _where(self, call: cst.Call, args: list[cst.BaseExpression], order: int, path: Path,
               loops: tuple[Loop, ...], track: Track, valid: bool) -> Lanes | str | None:
        condition, chosen, otherwise = args
        sides = [self.follow(side, order, path, loops, track, valid) for side in (chosen, otherwise)]
        cuts = self._cuts(condition, order, path, loops, track)
        if cuts:
            # The condition is false exactly where the mask is (it bounds the same axis): the
            # switched-off lanes take the second value, the real ones the first.
            side, node = (sides[0], chosen) if valid else (sides[1], otherwise)
            if isinstance(side, Lanes) or side == _UNKNOWN:
                return side
            if not valid:
                return None  # cleaned: the author chose what those lanes hold (`tl.where(mask, x, -1)`)
            legit, own, exact = self._untracked(node, side, order, path, loops, track, valid, track.right)
            return Lanes(own, exact, track.right, track.ndim, (call,), legit)
        if not any(_tracked(side) for side in sides):
            return None
        return _UNKNOWN  # a condition of its own (causal, a window): which side the lanes take is not read

    def _cuts(self, condition: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
              track: Track) -> bool:
        """The condition compares the tracked axis's offsets with a bound (`cols < N`), so it is
        false on the switched-off lanes. A condition on loaded data (`m_new == -inf`, `ids >= 0`)
        says nothing about which lanes those are."""
        if self._reads_data(condition, order, path, loops, 0):
            return False
        return any(self.ev.same_tile(key, track.dim) for key in self.ev.bound(condition, order, path, loops))

    def _reads_data(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                    depth: int) -> bool:
        if depth > 12:
            return True
        if type(node) is cst.Call and self.kernel.qualify_tl(node.func) == "load":
            return True
        if type(node) is cst.Name:
            return any(d.value is not None and d.kind in ("assign", "advance") and
                       self._reads_data(d.value, d.order, d.path, d.loops, depth + 1)
                       for d in self.flow.reaching(node.value, order, path, loops) if d.order < order)
        return any(self._reads_data(child, order, path, loops, depth + 1) for child in expressions_in(node))

    def _through_reduction(self, call: cst.Call, name: str, order: int, path: Path, loops: tuple[Loop, ...],
                           track: Track, valid: bool,
                           again: Callable[[cst.BaseExpression], Lanes | str | None]) -> Lanes | str | None:
        reduction = next((r for r in self.kernel.ir.reductions if r.call is call), None)
        if reduction is None:
            return _UNKNOWN
        folded: Lanes | str | None = None
        for _, node, right in _reduced_operands(reduction, self.kernel):
            inner = again(node)
            if inner is None:
                continue
            if not isinstance(inner, Lanes):
                return _UNKNOWN
            if right is None:
                right = _reduced_axis(reduction, inner, self.kernel)
                if right is None:
                    return _UNKNOWN
            if right in (inner.right, -1):
                return None  # folded here: judged at this reduction, carried no further
            kept = _after_reduction(reduction, inner, right)
            folded = kept if folded is None else _join([folded, kept])
        accumulator = keyword(call, "acc", 2) if name in ("dot",) else None
        if accumulator is not None:
            carried = again(accumulator)
            if carried is not None and folded is not None:
                if _UNKNOWN in (folded, carried) or not isinstance(folded, Lanes):
                    return _UNKNOWN
                # `tl.dot(a, b, acc)` is `acc + a @ b`; an accumulator carried around the loop is legitimate
                return self._combine([folded, carried], [call, accumulator], "add", order, path, loops, track,
                                     None, valid)
            if carried is not None:
                return carried
        return folded

    def _constant(self, node: cst.BaseExpression | None, order: int, path: Path,
                  loops: tuple[Loop, ...], depth: int = 0) -> float | None:
        """A number an expression always is: `0.0`, `-float("inf")`, `NEG_INF` defined as one."""
        if node is None or depth > 4:
            return None
        if type(node) in (cst.Integer, cst.Float):
            # Not `evaluated_value`: its `ast.literal_eval` leaves reference cycles behind.
            written = node.value.replace("_", "")  # type: ignore[attr-defined]
            return float(int(written, 0)) if type(node) is cst.Integer else float(written)
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
            inner = self._constant(node.expression, order, path, loops, depth + 1)
            return None if inner is None else -inner
        text = code_of(node).replace(" ", "").replace("'", '"')
        if text in _NAMED_INFINITIES:
            return _NAMED_INFINITIES[text]
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "to":
            return self._constant(node.func.value, order, path, loops, depth + 1)
        if type(node) is cst.Call:
            member = self.kernel.qualify_tl(node.func)
            if member in ("zeros", "zeros_like"):
                return 0.0
            if member == "full":  # `tl.full([BLOCK], float("-inf"), tl.float32)`: a tile of one value
                return self._constant(keyword(node, "value", 1), order, path, loops, depth + 1)
        if type(node) is cst.Name:
            defs = self.flow.reaching(node.value, order, path, loops)
            values = [self._constant(d.value, d.order, d.path, d.loops, depth + 1) for d in defs
                      if d.kind == "assign"]
            if defs and len(values) == len(defs) and len(set(values)) == 1:
                return values[0]
            if not defs and self.kernel.origin is not None:
                number = module_numbers(self.kernel.origin[1]).get(node.value)  # `NEG_INF = float("-inf")`
                return None if number is None else float(number)
        return None


# ---------------------------------------------------------------------- reductions


def _reduced_operands(reduction: Reduction, kernel: KernelModel) -> list[tuple[str, cst.BaseExpression, int | None]]:
    """(what it is, the operand, the axis it is reduced along counted from the last; None: read from
    `axis=`) for each operand a reduction folds."""
    found: list[tuple[str, cst.BaseExpression, int | None]]
    call = reduction.call
    method = kernel.qualify_tl(call.func) is None and type(call.func) is cst.Attribute
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if method:
        receiver: cst.BaseExpression = call.func.value  # type: ignore[attr-defined]
        positional = [receiver, *positional]
    if reduction.kind == "dot":
        found = [("the first operand", positional[0], 0)] if positional else []
        second = keyword(call, "other", 1) if not method else (positional[1] if len(positional) > 1 else None)
        return found + ([("the second operand", second, 1)] if second is not None else [])
    if reduction.kind == "dot_scaled":
        names = [("the first operand", "lhs", 0, 0), ("the scale of the first operand", "lhs_scale", 1, 0),
                 ("the second operand", "rhs", 3, 1), ("the scale of the second operand", "rhs_scale", 4, 0)]
        found = []
        for words, name, position, right in names:
            node = keyword(call, name, position)
            if node is not None and not (type(node) is cst.Name and node.value == "None"):
                found.append((words, node, right))
        return found
    operand = keyword(call, "input", 0) if not method else positional[0]
    return [("", operand, None)] if operand is not None else []


def _axis_argument(reduction: Reduction, kernel: KernelModel) -> cst.BaseExpression | None:
    call = reduction.call
    method = kernel.qualify_tl(call.func) is None and type(call.func) is cst.Attribute
    return keyword(call, "axis", 0 if method else 1)


def _reduced_axis(reduction: Reduction, lanes: Lanes, kernel: KernelModel) -> int | None:
    """The axis a `tl.sum`-like reduction folds, counted from the last; -1 for all of them; None when
    it cannot be told (an axis counted from the front of a value of unknown rank)."""
    axis = _axis_argument(reduction, kernel)
    if axis is None or (type(axis) is cst.Name and axis.value == "None"):
        return -1
    if type(axis) is cst.UnaryOperation and type(axis.operator) is cst.Minus and type(axis.expression) is cst.Integer:
        return int(axis.expression.value) - 1
    if type(axis) is not cst.Integer:
        return None
    if lanes.ndim is None:
        return None
    return lanes.ndim - 1 - int(axis.value)


def _after_reduction(reduction: Reduction, lanes: Lanes, right: int) -> Lanes:
    """The lanes after a reduction along another axis than theirs: the same values, one axis fewer
    (a dot keeps the first operand's rows and the second's columns)."""
    if reduction.kind in ("dot", "dot_scaled"):
        return replace(lanes, ndim=2, steps=lanes.steps)
    kept = keyword(reduction.call, "keep_dims", 99)
    if kept is not None and code_of(kept) == "True":
        return lanes
    ndim = None if lanes.ndim is None else lanes.ndim - 1
    return replace(lanes, right=lanes.right - (1 if right < lanes.right else 0), ndim=ndim)


def _broadcast(node: cst.Subscript, lanes: Lanes) -> Lanes | str:
    """`x[:, None]`: new axes around the old ones; the tracked axis keeps its place from the right
    unless a new axis is added after it. An index (`x[0]`) is not read."""
    parts = []
    for element in node.slice:
        if type(element.slice) is cst.Index and type(element.slice.value) is cst.Name and \
                element.slice.value.value == "None":
            parts.append("None")
        elif type(element.slice) is cst.Slice and element.slice.lower is None and element.slice.upper is None:
            parts.append(":")
        else:
            return _UNKNOWN
    kept = [i for i, part in enumerate(parts) if part == ":"]
    if lanes.ndim is not None and len(kept) != lanes.ndim:
        return _UNKNOWN
    left = (len(kept) - 1 - lanes.right) if lanes.ndim is not None else None
    if left is None or not 0 <= left < len(kept):
        return _UNKNOWN
    return replace(lanes, right=len(parts) - 1 - kept[left], ndim=len(parts))


def _join(found: list[Lanes | str | None]) -> Lanes | str | None:
    """Several definitions reach a use: the lanes agree, or nothing is said."""
    tracked = [each for each in found if _tracked(each)]
    if not tracked:
        return None
    if any(each == _UNKNOWN for each in tracked):
        return _UNKNOWN
    lanes = [each for each in tracked if isinstance(each, Lanes)]
    # A path where only other loads' padding arrives says nothing of this load's: the reduction is
    # judged for it on the paths it reaches.
    mine = any(each.mine for each in lanes)
    lanes = [each for each in lanes if each.mine] or lanes
    first = lanes[0]
    if all(each.samples == first.samples and each.legit == first.legit and each.right == first.right
           for each in lanes):
        return replace(first, mine=mine)
    if len(lanes) <= _WIDTH and all(each.right == first.right and each.exact for each in lanes):
        # Constant lanes that differ by path (`if scoring_func == 1:` turns -inf into 0): each
        # sample lane follows one path, so a reduction sees every path's value, and the lanes are
        # the identity only if they are on every path.
        pick = [lanes[i % len(lanes)] for i in range(_WIDTH)]
        return Lanes(tuple(each.samples[i] for i, each in enumerate(pick)), True, first.right, first.ndim,
                     tuple(step for each in lanes for step in each.steps),
                     tuple(each.legit[i] for i, each in enumerate(pick)), mine)
    return _UNKNOWN


def _tracked(found: Lanes | str | None) -> bool:
    """The tracked lanes reach this value (or the reading stopped on the way to it)."""
    return found is not None and found != _CARRIED


def _lanewise(operation: str, first: tuple[tuple[float, ...], tuple[float, ...]],
              second: tuple[tuple[float, ...], tuple[float, ...]]) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """`(a1*L + b1) op (a2*L + b2)` as (legit, own), lane by lane; None where it is no such sum
    (legitimate data times legitimate data, divided by it, or compared with the lanes' own part)."""
    (a1, b1), (a2, b2) = first, second
    if operation in ("add", "sub"):
        sign = 1.0 if operation == "add" else -1.0
        return (tuple(_safe(lambda x, y: x + sign * y, x, y) for x, y in zip(a1, a2)),
                tuple(_safe(lambda x, y: x + sign * y, x, y) for x, y in zip(b1, b2)))
    if operation == "mul":
        if any(a1) and any(a2):
            return None
        return (tuple(_safe(_legit_product, *v) for v in zip(a1, b1, a2, b2)),
                tuple(_safe(_own_product, *v) for v in zip(a1, b1, a2, b2)))
    if operation == "div":
        if any(a2):
            return None
        return (tuple(_safe(lambda x, y: 0.0 if x == 0 else x / y, x, y) for x, y in zip(a1, b2)),
                tuple(_safe(lambda x, y: x / y, x, y) for x, y in zip(b1, b2)))
    pick = max if operation == "maximum" else min
    neutral = -math.inf if operation == "maximum" else math.inf
    if not any(a1) and not any(a2):
        return _NO_LEGIT, tuple(pick(x, y) for x, y in zip(b1, b2))
    # Legitimate data against the lanes' own part: the data wins only over the neutral element.
    own, legit = ((a1, b1), (a2, b2)) if not any(a1) else ((a2, b2), (a1, b1))
    if all(value == neutral for value in own[1]):
        return legit
    return _NO_LEGIT, own[1]


def _integer(node: cst.BaseExpression | None) -> bool:
    """`0`, `-1`: an integer literal (not `0.0`)."""
    if type(node) is cst.UnaryOperation:
        node = node.expression
    return type(node) is cst.Integer


def _call_name(node: cst.CSTNode, kernel: KernelModel) -> str:
    if type(node) is cst.Call:
        member = kernel.qualify_tl(node.func)
        if member is not None:
            return f"tl.{member}"
        return code_of(node.func)
    return code_of(node)


def _value_words(samples: tuple[float, ...], exact: bool = False) -> str:
    if any(math.isnan(value) for value in samples):
        return "NaN"
    if exact and len(set(samples)) > 1:  # constants that differ by path
        return " or ".join(_value_words((value,)) for value in dict.fromkeys(samples)) + " (by path)"
    if len(set(samples)) == 1:
        value = samples[0]
        return {math.inf: "+inf", -math.inf: "-inf"}.get(value, f"{value:g}")
    return "nonzero data"


# ---------------------------------------------------------------------- arithmetic on samples


def _legit_product(a1: float, b1: float, a2: float, b2: float) -> float:
    """The legitimate part of `(a1*L + b1) * (a2*L + b2)` (one of a1, a2 is 0): a lane's own
    finite value scales the other side's legitimate data; an infinite one is no longer data."""
    return sum(_times(a, b) for a, b in ((a1, b2), (a2, b1)) if not math.isinf(b))


def _own_product(a1: float, b1: float, a2: float, b2: float) -> float:
    """The lanes' own part of the same product: `-inf` times legitimate data (taken positive, as
    all data here) stays `-inf`, it is not `-inf * 0`."""
    for own, other_legit in ((b1, a2), (b2, a1)):
        if math.isinf(own) and other_legit:
            return own * (1.0 if other_legit > 0 else -1.0)
    return b1 * b2


def _times(coefficient: float, value: float) -> float:
    """A legitimate part's coefficient times a value: no legitimate part stays none (0 * inf is not NaN here)."""
    return 0.0 if coefficient == 0 else coefficient * value


def _safe(operation: Callable[..., float], *values: float) -> float:
    a = values[0]
    try:
        return operation(*values)
    except ZeroDivisionError:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    except OverflowError:
        return math.inf


def _safe_unary(operation: Callable[[float], float], value: float) -> float:
    try:
        return operation(value)
    except OverflowError:
        return math.inf
    except ZeroDivisionError:
        return math.inf
    except ValueError:
        return -math.inf if value == 0 else math.nan


def _exp(value: float) -> float:
    return 0.0 if value == -math.inf else math.exp(value)


def _sigmoid(value: float) -> float:
    return 1.0 / (1.0 + _exp(-value)) if value != -math.inf else 0.0


_OPERATIONS: dict[type, str] = {cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "div"}
_UNARY: dict[str, Callable[[float], float]] = {
    "exp": _exp, "exp2": lambda v: 0.0 if v == -math.inf else 2.0 ** v, "log": math.log, "log2": math.log2,
    "sqrt": math.sqrt, "sqrt_rn": math.sqrt, "rsqrt": lambda v: 1 / math.sqrt(v), "abs": abs, "tanh": math.tanh,
    "sigmoid": _sigmoid, "erf": math.erf, "log1p": math.log1p, "expm1": math.expm1, "fabs": abs,
}
_NAMED_INFINITIES = {
    'float("inf")': math.inf, 'float("-inf")': -math.inf, "math.inf": math.inf, "np.inf": math.inf,
    "numpy.inf": math.inf, "torch.inf": math.inf, 'float("+inf")': math.inf, 'float("nan")': math.nan,
}


# ---------------------------------------------------------------------- the fix


def lanes_fix(kernel: KernelModel, hazard: TailHazard) -> CallFix:
    """`other=` set to the identity of the reductions the lanes reach, when that alone makes every
    one of them see its identity; display-only where a `tl.where` is needed."""
    access = hazard.access
    everything = list(MaskedLanes(kernel).verdicts(access))
    bad = [verdict for verdict in everything if verdict.problem]
    first = bad[0]
    where = f"`tl.{first.reduction.kind}` at line {kernel.line_of(first.reduction.call)}"
    # The first reduction's identity first; `other=-inf` can serve a max and the sum of its exp.
    # The reached reductions' identities first; then the others: `-inf` serves a sum of `exp(x)`.
    for identity in dict.fromkeys([verdict.identity for verdict in bad] + [v.identity for v in everything]
                                  + list(_IDENTITY_TEXT)):
        text = _IDENTITY_TEXT[identity]
        if any(verdict.problem for verdict in MaskedLanes(kernel, {access: text}).verdicts(access)):
            continue
        direct = identity == 0.0 and not any(verdict.lanes.steps for verdict in bad)
        return CallFix(f"Set `other={text}`: the lanes then reach {where} as its identity",
                       Applicability.SAFE if direct else Applicability.UNSAFE,
                       _with_arguments(kernel, access, {"other": text}))
    identity_text = _IDENTITY_TEXT[first.identity]
    return CallFix(f"no `other=` makes the lanes the identity of every reduction they reach ({where} among "
                   f"them): clean them with `tl.where(mask, x, {identity_text})` before it",
                   Applicability.DISPLAY_ONLY, None)
