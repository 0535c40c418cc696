"""Following a masked load's switched-off lanes forwards through the kernel's definitions to the
reductions that fold them: the reading TL105's verdicts ask (`LaneFollower.follow`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.broadcasts import Broadcasts
from tritonlint.semantic.ir import LOOP_PREFIX, Access, Loop
from tritonlint.semantic.lanes.inline import inlined
from tritonlint.semantic.lanes.values import (
    ALL_LEGIT,
    CARRIED,
    DATA,
    IDENTITY,
    NAMED_INFINITIES,
    NO_LEGIT,
    OPERATIONS,
    SIGNED,
    UNARY,
    UNKNOWN,
    WIDTH,
    Lanes,
    after_reduction,
    broadcast_lanes,
    is_tracked,
    join,
    lanewise,
    reduced_axis,
    reduced_operands,
    safe_unary,
)
from tritonlint.semantic.paths import Path
from tritonlint.source.names import code_of
from tritonlint.source.numbers import module_numbers
from tritonlint.source.syntax import keyword, loop_range, ordered
from tritonlint.source.tree import expressions_in

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext


@dataclass(frozen=True)
class Track:
    """One masked load, along one axis its mask cuts."""

    access: Access
    dim: str
    right: int
    ndim: int | None



class LaneFollower:
    """The state of one kernel's reading (memos, the loads by call) and the forward following;
    `MaskedLanes` adds the tracks and verdicts."""

    def __init__(self, kernel: KernelContext, others: dict[Access, str] | None = None,
                 bound: dict[tuple[str, bool], Lanes | str | None] | None = None) -> None:
        self.kernel = kernel
        # Inside a jit helper the caller's lanes reach: what each parameter holds at the call,
        # (name, valid) -> the lanes of the argument passed (`_accumulate(x, m, l)`).
        self.bound = bound or {}
        self.ev, self.flow = kernel.ev, kernel.flow
        self.others = others or {}  # an `other=` text to assume instead of the written one (the fix's check)
        self._memo: dict[tuple[int, int, Path, int, Track, bool], Lanes | str | None] = {}
        self._active: set[tuple[int, Track, bool]] = set()
        self._cut_axes: dict[Access, list[tuple[Track | None, str]]] = {}
        self._broadcasts = Broadcasts(kernel.ir, kernel.flow, kernel.ev)  # places a track on its axis
        self._loads: dict[int, Access] | None = None  # loads by their call and their callee
        self._cut_by: dict[Track, list[tuple[frozenset[str], str, bool]]] = {}
        self._lanes_off: dict[Track, frozenset[tuple[frozenset[str], str]]] = {}
        # A helper call's inlined value, kept alive with the call (the memos key nodes by id).
        self._inlined: dict[int, tuple[cst.Call, cst.BaseExpression | None]] = {}
        # The calls of inlined values rewritten from a helper's own (its loads), by id: (the callee
        # of the call site, the helper's node); and the caller's view of each helper access, by the
        # same pair: a load inside a helper is tracked as the caller sees it.
        self._origins: dict[int, tuple[cst.BaseExpression, cst.Call]] = {}
        self._views: dict[tuple[int, int], Access] | None = None

    def tracks(self, access: Access) -> list[Track]:
        """The tracks of a masked load (one per axis its mask cuts)."""
        raise NotImplementedError

    def _only_when_full(self, loops: tuple[Loop, ...], track: Track) -> bool:
        """Whether these loops run only where the track's tiles are full."""
        raise NotImplementedError

    def follow(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
               valid: bool = False) -> Lanes | str | None:
        """The tracked lanes as they reach `node` (`valid`: the load's real lanes instead); None where
        `node` is not built from the load, `UNKNOWN` where the reading stops."""
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
            return inner if type(node.operator) is cst.Plus else UNKNOWN
        if type(node) is cst.Subscript:
            inner = again(node.value)
            if not isinstance(inner, Lanes):
                return inner
            return broadcast_lanes(node, inner)
        if type(node) is cst.IfExp:
            return join([self.follow(side, order, path | literals, loops, track, valid)
                          for side, literals in self.kernel.reader.sides(node)])
        if type(node) in (cst.Comparison, cst.BooleanOperation):
            return UNKNOWN if any(again(part) is not None for part in expressions_in(node)) else None
        return None

    def _access_of(self, call: cst.Call) -> Access | None:
        """The load `call` is, found by its callee too: `acc += tl.load(...)` is read through a copy;
        or, for a load of an inlined jit helper, the caller's view of the helper's load."""
        if self._loads is None:
            self._loads = {}
            for access in self.kernel.accesses:
                if access.kind == "load":
                    self._loads[id(access.call)] = self._loads[id(access.call.func)] = access
        found = self._loads.get(id(call)) or self._loads.get(id(call.func))
        if found is not None:
            return found
        origin = self._origins.get(id(call))
        if origin is None:
            return None
        views = self.helper_views()
        view = views.get((id(origin[0]), id(origin[1])))
        if view is None:
            # A helper's helper (`load_row` calling `load`): the callee met inside the inlined body
            # is the outer helper's node; known by the access alone when one call reaches it.
            view = views.get((0, id(origin[1])))
        return view if view is not None and view.kind == "load" else None

    def helper_views(self) -> dict[tuple[int, int], Access]:
        """The caller's view of each access of the jit helpers it calls (and of their helpers), by
        (the call site's callee, the access call), and by (0, the access call) where one call
        site reaches that access."""
        if self._views is None:
            self._views = {}
            reached: dict[int, list[Access]] = {}
            for site in self.kernel.ir.calls:
                helper = self.kernel.helpers.get(site.name)
                if helper is None or helper.ir is self.kernel.ir:
                    continue
                for inner, view in self.kernel.hazards.inline(site, helper):
                    self._views[(id(site.call.func), id(inner.call))] = view
                    reached.setdefault(id(inner.call), []).append(view)
            self._views.update(((0, key), views[0]) for key, views in reached.items() if len(views) == 1)
        return self._views

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
                args = loop_range(loop.iterable) if loop is not None else []
                if args and (len(args) == 1 or code_of(args[0]) == "0"):
                    continue
            found.add(key)
        return frozenset(found)

    def _through_name(self, name: str, order: int, path: Path, loops: tuple[Loop, ...], track: Track,
                      valid: bool) -> Lanes | str | None:
        found: list[Lanes | str | None] = []
        carried = False
        for d in self.flow.reaching(name, order, path, loops):
            if d.kind == "param" and (name, valid) in self.bound:
                found.append(self.bound[(name, valid)])  # a helper's parameter: the caller's argument
                continue
            if d.value is None or d.kind not in ("assign", "advance") or self._only_when_full(d.loops, track):
                found.append(None)
                continue
            key = (id(d), track, valid)
            if key in self._active:
                carried = True  # around the loop: the value before this iteration, legitimate data
                continue
            self._active.add(key)
            try:
                value = d.value
                if d.index is not None and type(value) is cst.Call:
                    # `a, b = helper(...)`: the element of the helper's returned tuple, when it is read.
                    body = self._inlined_body(value)
                    if type(body) is cst.Tuple and d.index < len(body.elements) \
                            and not any(type(e) is cst.StarredElement for e in body.elements):
                        found.append(self._placed_at(self.follow(body.elements[d.index].value, d.order, d.path,
                                                                 d.loops, track, valid), value))
                        continue
                found.append(self.follow(value, d.order, d.path, d.loops, track, valid))
            finally:
                self._active.discard(key)
        joined = join(found)
        return CARRIED if joined is None and carried else joined

    def _loaded(self, track: Track, valid: bool) -> Lanes:
        if valid:
            return Lanes(SIGNED, False, track.right, track.ndim)
        text = self._other_text(track.access)
        if text is None and self.kernel.masked_lanes == "undefined":
            # The project keeps to the language's contract: the lanes may hold anything, NaN included.
            return Lanes((math.nan,) * WIDTH, True, track.right, track.ndim)
        if text is None:
            # The language leaves these lanes unspecified; every Triton backend fills them with 0
            # (the NVIDIA PTX builder moves 0 into the destination when there is no `other`; the
            # interpreter uses zeros). 0 is what a sum or a dot of them adds.
            return Lanes((0.0,) * WIDTH, True, track.right, track.ndim)
        value = self._constant(cst.parse_expression(text) if track.access in self.others else
                               track.access.other, track.access.order, track.access.path,
                               track.access.loops)
        if value is None:
            return Lanes(DATA, False, track.right, track.ndim)
        return Lanes((value,) * WIDTH, True, track.right, track.ndim)

    def _other_text(self, access: Access) -> str | None:
        if access in self.others:
            return self.others[access]
        other = access.other
        return None if other is None else code_of(other)

    def _binary(self, node: cst.BinaryOperation, left: cst.BaseExpression, right: cst.BaseExpression, order: int,
                path: Path, loops: tuple[Loop, ...], track: Track, valid: bool) -> Lanes | str | None:
        operation = OPERATIONS.get(type(node.operator))
        sides = [self.follow(side, order, path, loops, track, valid) for side in (left, right)]
        if not any(is_tracked(side) for side in sides):
            return None
        if operation is None or any(side == UNKNOWN for side in sides):
            return UNKNOWN
        return self._combine(sides, [left, right], operation, order, path, loops, track, None, valid)

    def _combine(self, sides: list[Lanes | str | None], nodes: list[cst.BaseExpression], operation: str,
                 order: int, path: Path, loops: tuple[Loop, ...], track: Track,
                 step: cst.Call | None, valid: bool) -> Lanes | str:
        """Two operands lane by lane, each as (legitimate part, own part): `a*L + b`."""
        tracked = [side for side in sides if isinstance(side, Lanes)]
        first = tracked[0]
        if any(side.right != first.right for side in tracked):
            return UNKNOWN
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
        combined = lanewise(operation, pairs[0], pairs[1])
        if combined is None:
            return UNKNOWN
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
            return NO_LEGIT, (constant,) * WIDTH, True
        if valid:
            return NO_LEGIT, DATA, False  # the real lanes' values, not what they add
        if side == CARRIED or self._along(node, order, path, loops, track, 0) or \
                right in (self._axes(node, order, path, loops, 0) or ()):
            return ALL_LEGIT, (0.0,) * WIDTH, True
        return NO_LEGIT, DATA, False

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
            if member not in ("dot", "dot_scaled") and (member in IDENTITY or (
                    member is None and type(node.func) is cst.Attribute and node.func.attr.value in IDENTITY)):
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
            placed = [broadcast_lanes(node, Lanes((), True, axis, ndim)) for axis in inner]
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
                place = self._broadcasts.axis_of(access.pointer, dim, access)
                if place is None:
                    return None
                found.add(place[0])
            return frozenset(found)
        if method == "to" or member == "cast":
            source = node.func.value if method == "to" else (args[0] if args else None)  # type: ignore[attr-defined]
            return None if source is None else self._axes(source, order, path, loops, depth + 1)
        if (member in UNARY or member in ("where", "maximum", "minimum")) and args:
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
                return UNKNOWN  # only the 2-D transpose is read
            return replace(inner, right=1 - inner.right)
        if name == "where" and member is not None and len(args) == 3:
            return self._where(call, args, order, path, loops, track, valid)
        if name in UNARY and (member is not None or method is not None):
            # `tl.exp(x)`, `x.exp()`, and a math module's `libdevice.tanh(x)` (an attribute call with
            # an argument: a function of a module the imports do not name as Triton's).
            source = args[0] if args else (call.func.value if method else None)  # type: ignore[attr-defined]
            if source is None:
                return UNKNOWN
            inner = again(source)
            if not isinstance(inner, Lanes):
                return inner
            if any(inner.legit):
                return UNKNOWN  # a function of legitimate data and the lanes' own part together
            samples = tuple(safe_unary(UNARY[name], value) for value in inner.samples)
            return replace(inner, samples=samples, steps=inner.steps + (call,))
        if name in ("maximum", "minimum") and member is not None and len(args) == 2:
            sides = [again(arg) for arg in args]
            if not any(is_tracked(side) for side in sides):
                return None
            if any(side == UNKNOWN for side in sides):
                return UNKNOWN
            return self._combine(sides, args, name, order, path, loops, track, call, valid)
        if name in IDENTITY:
            return self._through_reduction(call, name, order, path, loops, track, valid, again)
        if member in ("load", "store", "zeros", "full", "arange", "program_id", "num_programs", "cdiv",
                      "zeros_like", "full_like", "static_range", "range"):
            return None
        if type(call.func) is cst.Name and member is None:
            body = self._inlined_body(call)
            if body is not None and type(body) is not cst.Tuple:  # a jit helper: its return value in the caller's terms
                return self._placed_at(again(body), call)
        # Anything else (a reshape, a scan, a helper not read): what it does to the lanes is not read.
        parts = [arg.value for arg in call.args] + ([call.func.value] if type(call.func) is cst.Attribute else [])
        return UNKNOWN if any(again(part) is not None for part in parts) else None

    def _inlined_body(self, call: cst.Call) -> cst.BaseExpression | None:
        """A jit helper call's returned value in the caller's terms (None where it is not read),
        made once per call; the loads in it are known by the helper's own."""
        if type(call.func) is not cst.Name:
            return None
        if id(call) not in self._inlined:
            origins: dict[int, cst.Call] = {}
            self._inlined[id(call)] = (call, inlined(self.kernel, call, origins))
            self._origins.update((key, (call.func, original)) for key, original in origins.items())
        return self._inlined[id(call)][1]

    def _placed_at(self, found: Lanes | str | None, call: cst.Call) -> Lanes | str | None:
        """The lanes out of an inlined helper, the steps taken inside it (nodes of no file's tree,
        or of the helper's) named by the call that reached them."""
        if not isinstance(found, Lanes) or not found.steps:
            return found
        steps: list[cst.Call] = []
        for step in found.steps:
            if not self.kernel.has_node(step.func):
                step = call
            if not steps or steps[-1] is not step:
                steps.append(step)
        return replace(found, steps=tuple(steps))

    def _where(self, call: cst.Call, args: list[cst.BaseExpression], order: int, path: Path,
               loops: tuple[Loop, ...], track: Track, valid: bool) -> Lanes | str | None:
        condition, chosen, otherwise = args
        sides = [self.follow(side, order, path, loops, track, valid) for side in (chosen, otherwise)]
        cuts = self._cuts(condition, order, path, loops, track)
        if cuts:
            # The condition is false exactly where the mask is (it bounds the same axis): the
            # switched-off lanes take the second value, the real ones the first.
            side, node = (sides[0], chosen) if valid else (sides[1], otherwise)
            if isinstance(side, Lanes) or side == UNKNOWN:
                return side
            if not valid:
                return None  # cleaned: the author chose what those lanes hold (`tl.where(mask, x, -1)`)
            legit, own, exact = self._untracked(node, side, order, path, loops, track, valid, track.right)
            return Lanes(own, exact, track.right, track.ndim, (call,), legit)
        if not any(is_tracked(side) for side in sides):
            return None
        return UNKNOWN  # a condition of its own (causal, a window): which side the lanes take is not read

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
        if type(node) is cst.Call and self.flow.is_read(node):
            return True  # a load, or a jit helper's result (`x = load_row(...)`)
        if type(node) is cst.Name:
            return any(d.value is not None and d.kind in ("assign", "advance") and
                       self._reads_data(d.value, d.order, d.path, d.loops, depth + 1)
                       for d in self.flow.reaching(node.value, order, path, loops) if d.order < order)
        return any(self._reads_data(child, order, path, loops, depth + 1) for child in expressions_in(node))

    def _through_reduction(self, call: cst.Call, name: str, order: int, path: Path, loops: tuple[Loop, ...],
                           track: Track, valid: bool,
                           again: Callable[[cst.BaseExpression], Lanes | str | None]) -> Lanes | str | None:
        # `acc += tl.dot(a, b)` is read through a copy of the call: found by its callee too.
        reduction = next((r for r in self.kernel.ir.reductions if r.call is call or r.call.func is call.func), None)
        if reduction is None:
            return UNKNOWN
        folded: Lanes | str | None = None
        for _, node, right in reduced_operands(reduction, self.kernel):
            inner = again(node)
            if inner is None:
                continue
            if not isinstance(inner, Lanes):
                return UNKNOWN
            if right is None:
                right = reduced_axis(reduction, inner, self.kernel)
                if right is None:
                    return UNKNOWN
            if right in (inner.right, -1):
                return None  # folded here: judged at this reduction, carried no further
            kept = after_reduction(reduction, inner, right)
            folded = kept if folded is None else join([folded, kept])
        accumulator = keyword(call, "acc", 2) if name in ("dot",) else None
        if accumulator is not None:
            carried = again(accumulator)
            if carried is not None and folded is not None:
                if UNKNOWN in (folded, carried) or not isinstance(folded, Lanes):
                    return UNKNOWN
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
        if text in NAMED_INFINITIES:
            return NAMED_INFINITIES[text]
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
