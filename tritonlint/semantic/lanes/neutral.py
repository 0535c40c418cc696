"""Whether the lanes a new mask switches off on a load can change anything: the proof a masking fix
needs to be safe.

A fix that masks a load (TL101) replaces what the lanes past the tensor's end held with `other=`.
That changes no result when every place those lanes reach is neutral to them:

- a reduction along the axis the mask cuts that sees them as its identity (0 in a sum or a dot, -inf
  in a max, +inf in a min), or a dot whose other operand holds zeros there, or the scale of a
  microscaled dot operand (a finite scale of zeroed data adds nothing), as TL105 reads them;
- a store whose own mask bounds the same dimension, on the axis the lanes lie on (it drops them);
- arithmetic, casts, transposes and reductions along other axes on the way to one of those.

Anything else the lanes reach makes the fix unsafe, and says why: a helper, a reshape or any call
whose effect on them is not read, a store that writes them, an address or a mask computed from
them, a condition (`if`, `while`, the test of a `tl.where`), a `return`. The places are found by
following the loaded value through every assignment, whatever the path (more places, never fewer);
the values the lanes hold there come from the same reading as TL105 (`MaskedLanes`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import libcst as cst

from tritonlint.semantic.broadcasts import Broadcasts
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import Access, Reduction
from tritonlint.semantic.lanes.follow import Track
from tritonlint.semantic.lanes.masked import LaneVerdict, MaskedLanes
from tritonlint.semantic.lanes.values import (
    IDENTITY,
    UNARY,
    UNKNOWN,
    Lanes,
    reduced_axis,
    reduced_operands,
    value_words,
)
from tritonlint.source.names import code_of
from tritonlint.source.tree import TypeTest, child_nodes, nodes_under
from tritonlint.source.tree_caches import tree_cache

# Calls the lane reading follows through (what each does to a lane's value is read): anything else
# that receives the lanes is a place whose effect on them is unknown.
_THROUGH = frozenset({*UNARY, *IDENTITY, "maximum", "minimum", "where", "trans", "permute", "cast", "to",
                      "zeros_like", "full_like", "load", "store"})
_METHODS = frozenset({"to", "trans", "permute", *IDENTITY})
# Expressions the lane reading passes over in silence (it reads names, calls, arithmetic, subscripts,
# conditional expressions; it gives up loudly on comparisons): holding the lanes, they are not read.
_UNFOLLOWED = (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
               cst.GeneratorExp, cst.Await, cst.Yield, cst.NamedExpr, cst.StarredElement)
_IS_UNFOLLOWED = TypeTest(*_UNFOLLOWED)  # isinstance answered once per node type (libcst's ABCs are slow)
_IS_STATEMENT = TypeTest(cst.If, cst.While, cst.For, cst.Return, cst.Assert, cst.Assign, cst.AugAssign, cst.AnnAssign,
                         cst.Expr)
_METADATA = frozenset({"dtype", "shape", "type", "numel"})
_WORDS = {0.0: "0", -math.inf: "-inf", math.inf: "+inf"}


@dataclass(frozen=True)
class LaneProof:
    """Whether a load's masked-off lanes reach only neutral places, and the words saying why."""

    neutral: bool
    reason: str  # "the lanes it switches off reach only `tl.sum` (line 17) as 0"


def prove_neutral(kernel: KernelContext, access: Access, dims: Iterable[str], other: str | None) -> LaneProof:
    """Whether masking `access` along `dims`, its switched-off lanes holding `other` (None: the
    `other=` already written, or none), changes no result of the kernel."""
    reader = MaskedLanes(kernel, {access: other} if other is not None else None)
    tracks: list[Track] = []
    for dim in sorted(set(dims)):
        track = reader.track_of(access, dim)
        if track is None:
            return LaneProof(False, f"the place of `{kernel.label(dim)}` in the loaded tile is not read")
        tracks.append(track)
    places = _Places(kernel, access)
    if places.unread:
        return LaneProof(False, f"the lanes it switches off reach {places.unread[0]}")
    reached: list[str] = []
    for track in tracks:
        for verdict in reader.track_verdicts(track):
            why = _not_neutral(reader, verdict)
            where = f"`tl.{verdict.reduction.kind}` (line {_line(kernel, verdict.reduction.call)})"
            if why:
                return LaneProof(False, f"the lanes it switches off reach {where} {why}")
            reached.append(f"{where} as {_WORDS.get(verdict.identity, 'its identity')}"
                           if not verdict.operand.startswith("the scale") else f"{where} as a scale of zeros")
        for reduction in places.reductions:
            unread = _unread_at(reader, reduction, track)
            if unread:
                return LaneProof(False, f"the lanes it switches off reach `tl.{reduction.kind}` (line "
                                        f"{_line(kernel, reduction.call)}) {unread}")
        for store in places.stores:
            kept = _kept_by(reader, store, track)
            if kept is None:
                continue  # folded by a reduction on the way (judged there), or not on this path
            if kept:
                return LaneProof(False, f"the lanes it switches off reach the tl.store at line {_line(kernel, store.call)}"
                                        f" {kept}")
            reached.append(f"the tl.store at line {_line(kernel, store.call)} (its mask drops them)")
    if not reached:
        return LaneProof(True, "the lanes it switches off reach no reduction and no store")
    return LaneProof(True, "the lanes it switches off reach only " + ", ".join(dict.fromkeys(reached)))


def _not_neutral(reader: MaskedLanes, verdict: LaneVerdict) -> str:
    """"" when the lanes are proven neutral at this reduction, else what they hold there. Stricter than
    TL105's verdict: what TL105 leaves unjudged (a max of data, a stated `other=0.0`) is unproven."""
    lanes = verdict.lanes
    if any(math.isnan(value) or math.isinf(value) for value in lanes.samples) and \
            (verdict.operand.startswith("the scale") or verdict.identity == 0.0):
        return f"as {value_words(lanes.samples)}"
    if verdict.operand.startswith("the scale"):
        return "" if lanes.exact else "as a scale the reading cannot bound"
    if lanes.exact and all(value == verdict.identity for value in lanes.samples):
        return ""
    if verdict.reduction.kind == "dot" and reader.partner_zero(verdict.reduction, verdict.operand, verdict.track):
        return ""  # finite lanes times the other operand's zeros
    need = _WORDS.get(verdict.identity, "its identity")
    if not lanes.exact:
        return f"as a value computed from loaded data, not proven to be its identity {need}"
    return f"as {value_words(lanes.samples, lanes.exact)}, not its identity {need}"


def _unread_at(reader: MaskedLanes, reduction: Reduction, track: Track) -> str:
    """The lanes reach the reduction's operand, but the reading stopped on the way, or the axis it
    folds cannot be told (TL105 then judges nothing there)."""
    for _, node, right in reduced_operands(reduction, reader.kernel):
        lanes = reader.follow(node, reduction.order, reduction.path, reduction.loops, track)
        if lanes == UNKNOWN:
            return "through something not read"
        if isinstance(lanes, Lanes) and right is None and reduced_axis(reduction, lanes, reader.kernel) is None:
            return "along an axis the reading cannot tell"
    return ""


def _kept_by(reader: MaskedLanes, store: Access, track: Track) -> str | None:
    """"" when the store's mask drops the tracked lanes, else why it writes them; None when they do
    not reach the stored value."""
    lanes = reader.follow(_stored_value(store), store.order, store.path, store.loops, track)
    if lanes is None:
        return None
    kernel = reader.kernel
    bounded = kernel.mask_dims(store) if store.mask is not None else frozenset()
    dims = [dim for dim in bounded or () if kernel.ev.same_tile(dim, track.dim) or kernel.ev.same_tile(track.dim, dim)]
    if not dims:
        return "with no mask on that dimension" if store.mask is None else "under a mask that does not bound that dimension"
    if not isinstance(lanes, Lanes):
        return "through something not read"
    places = Broadcasts(kernel.ir, kernel.flow, kernel.ev)
    if all((place := places.axis_of(store.pointer, dim, store)) is None or place[0] != lanes.right for dim in dims):
        return "on another axis than its mask bounds"
    return ""


def _stored_value(store: Access) -> cst.BaseExpression:
    for arg in store.call.args:
        if arg.keyword is not None and arg.keyword.value in ("value", "val"):  # `val=`: an atomic's
            return arg.value
    positional = [arg.value for arg in store.call.args if arg.keyword is None]
    return positional[1] if len(positional) > 1 else store.pointer


def _line(kernel: KernelContext, call: cst.Call) -> int:
    # `acc += tl.sum(x)` is read through a copy of the call, placed by its callee (the original node).
    for node in (call, call.func):
        try:
            return kernel.line_of(node)
        except KeyError:
            continue
    return kernel.line_of(kernel.function)


class _Places:
    """Every place the loaded value reaches, through every assignment whatever the path: the
    reductions and stores that take it (judged by their lanes), and the first place that takes it
    in a way that is not read (`unread`, in words)."""

    def __init__(self, kernel: KernelContext, access: Access) -> None:
        self.kernel, self.access = kernel, access
        self.tainted = self._tainted_names()
        self.reductions: list[Reduction] = []
        self.stores: list[Access] = []
        self.unread: list[str] = []
        by_call = {id(r.call): r for r in kernel.ir.reductions} | {id(r.call.func): r for r in kernel.ir.reductions}
        accesses = {id(a.call): a for a in kernel.accesses} | {id(a.call.func): a for a in kernel.accesses}
        self._reductions, self._accesses = by_call, accesses
        self._statements(kernel.function.body)

    def _carries(self, node: cst.CSTNode | None) -> bool:
        """The expression holds the loaded value, or a name assigned from it (its `.dtype` and
        `.shape` are the type's, not the lanes')."""
        if node is None:
            return False
        names, calls = _reach(node)
        return not self.tainted.isdisjoint(names) or id(self.access.call) in calls or id(self.access.call.func) in calls

    def _tainted_names(self) -> set[str]:
        tainted: set[str] = set()
        self.tainted = tainted
        changed = True
        while changed:
            changed = False
            for name, defs in self.kernel.defs.items():
                if name in tainted:
                    continue
                if any(d.kind in ("assign", "advance") and self._carries(d.value) for d in defs):
                    tainted.add(name)
                    changed = True
        return tainted

    def _say(self, what: str, node: cst.CSTNode, why: str = "") -> None:
        try:
            line = self.kernel.line_of(node)
        except KeyError:
            line = None
        self.unread.append(what + (f" (line {line})" if line is not None else "") + why)

    def _statements(self, body: cst.CSTNode) -> None:
        for statement in _statements_of(body):
            if isinstance(statement, (cst.If, cst.While)) and self._carries(statement.test):
                self._say("a condition", statement.test)
            elif isinstance(statement, cst.For) and self._carries(statement.iter):
                self._say("a loop's range", statement.iter)
            elif isinstance(statement, cst.Return) and self._carries(statement.value):
                self._say("a `return`", statement)
            elif isinstance(statement, cst.Assert) and self._carries(statement.test):
                self._say("an `assert`", statement)
            elif isinstance(statement, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]
                if statement.value is not None and self._carries(statement.value) and \
                        any(not _plain_target(target) for target in targets):
                    self._say(f"an assignment to `{code_of(targets[0])}`", statement)
                if statement.value is not None:
                    self._expression(statement.value)
            elif isinstance(statement, cst.Expr):
                self._expression(statement.value)

    def _expression(self, node: cst.BaseExpression) -> None:
        nodes = _nodes_of(node)
        called = {id(each.func) for each in nodes if type(each) is cst.Call}
        for each in nodes:
            if type(each) is cst.Call:
                self._call(each)
            elif type(each) is cst.Attribute and id(each) not in called and each.attr.value not in _METADATA \
                    and self._carries(each.value):
                # `w.T`: the lane reading stops at it and says nothing (not even that it stopped).
                self._say(f"`{code_of(each)}`", each, ", which the lane reading does not follow")
            elif _IS_UNFOLLOWED[type(each)] and self._carries(each):
                self._say(f"`{code_of(each)}`", each, ", which the lane reading does not follow")

    def _call(self, call: cst.Call) -> None:
        kernel = self.kernel
        access = self._accesses.get(id(call)) or self._accesses.get(id(call.func))
        if access is not None:
            if access is self.access:
                return
            if self._carries(access.pointer) or self._carries(access.mask) or self._carries(access.other):
                self._say(f"the address or mask of the {access.call_name}", call)
            elif access.kind == "store" and self._carries(_stored_value(access)):
                self.stores.append(access)
            return
        reduction = self._reductions.get(id(call)) or self._reductions.get(id(call.func))
        if reduction is not None:
            if self._carries(call):
                self.reductions.append(reduction)
            return
        member = kernel.qualify_tl(call.func)
        method = call.func.attr.value if type(call.func) is cst.Attribute and member is None else None
        arguments = [arg.value for arg in call.args]
        if member == "where" and arguments and self._carries(arguments[0]):
            self._say("the condition of a `tl.where`", call)
            return
        receiver = call.func.value if method is not None else None  # type: ignore[attr-defined]
        if not (any(self._carries(arg) for arg in arguments) or self._carries(receiver)):
            return
        if member is not None and member in _THROUGH:
            return
        if method is not None and method in _METHODS:
            return
        self._say(f"`{code_of(call.func)}`", call, ", whose effect on them is not read")


def _plain_target(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_plain_target(element.value) for element in target.elements)
    return False


# Every load a fix masks walks the whole kernel again (one `_Places` per load, each with its own
# tainted names): the walks are kept per kernel, the trees being immutable.
@tree_cache(maxsize=8)
def _statements_of(body: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    return tuple(_statements_in(body))


@tree_cache(maxsize=4096)
def _nodes_of(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    return tuple(nodes_under(node))


@tree_cache(maxsize=16384)
def _reach(node: cst.CSTNode) -> tuple[frozenset[str], frozenset[int]]:
    """The names an expression reads and the calls in it (each call's id and its callee's), past
    `.dtype`-like metadata and keywords' names: what `_Places._carries` asks of the same
    expressions for every load of the kernel, walked once."""
    names: set[str] = set()
    calls: set[int] = set()
    pending = [node]
    while pending:
        each = pending.pop()
        kind = type(each)
        if kind is cst.Attribute and each.attr.value in _METADATA:  # type: ignore[attr-defined]
            continue
        if kind is cst.Name:
            names.add(each.value)  # type: ignore[attr-defined]
        elif kind is cst.Call:
            calls.add(id(each))
            calls.add(id(each.func))  # type: ignore[attr-defined]
        elif kind is cst.Arg and each.keyword is not None:  # type: ignore[attr-defined]
            pending.append(each.value)  # type: ignore[attr-defined]  # not the keyword's name
            continue
        pending.extend(child_nodes(each))  # fields, not libcst's rebuilding `children`
    return frozenset(names), frozenset(calls)


def _statements_in(body: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every statement under a block, compound ones and the small ones of each line, in order."""
    for node in nodes_under(body):
        if _IS_STATEMENT[type(node)]:
            yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not body:
            continue
