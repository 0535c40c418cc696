"""The context of one jit function: the semantic stages, built in order, each reading the ones before.

    binder (ir.py, binder.py)   one walk: definitions, accesses, loops, helper calls, path conditions
    dataflow.py                 which definitions reach a use; what a value is built from
    evaluator.py                which tiled dimensions an offset varies along, which a mask bounds
    walks.py                    what each access's pointer walks, and the loop moving each tile
    flags.py                    evenness flags, learnt from how the kernel uses them
    facts/                      one provider per idiom that keeps a walk's tiles full
    verdicts.py                 accesses that can meet a partial tile unbounded, with their reasons
    host/                       the launches in view and the predicates setting evenness flags

Rules and the fixer ask `KernelContext`: what it holds is everything a rule may ask. It is
complete when built (the engine passes the file's other jit functions and the launches in view).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import cached_property, partial

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from tritonlint.semantic.binder import bind
from tritonlint.semantic.dataflow import Dataflow
from tritonlint.semantic.evaluator import Evaluator
from tritonlint.semantic.flags import FlagRecognizer
from tritonlint.semantic.host.flag_setters import WeakPredicate, weak_predicates
from tritonlint.semantic.host.launches import Launch
from tritonlint.semantic.ir import (
    LOOP_PREFIX,
    PROGRAM,
    Access,
    Def,
    Fact,
    Flag,
    HelperCall,
    Loop,
    Walk,
)
from tritonlint.semantic.verdicts import HazardFinder, Judgement, TailHazard
from tritonlint.semantic.walks import Walker
from tritonlint.source.locations import Locator, Span
from tritonlint.source.names import ImportMap
from tritonlint.source.outline import NESTED_PREFIX, KernelSource
from tritonlint.source.syntax import strip_casts
from tritonlint.source.tree import child_nodes, nodes_under

__all__ = ["LOOP_PREFIX", "PROGRAM", "Access", "Def", "Fact", "Flag", "HelperCall", "Judgement", "KernelContext",
           "Loop", "TailHazard", "Walk", "strip_casts"]


class KernelContext:
    """Built once per jit function, complete before any rule runs; every rule queries it.

    Everything it knows is given to the constructor (the file's other jit functions, the launches
    in view, the file's place): nothing is assigned on it afterwards, which `__setattr__` enforces.
    """

    def __init__(self, module: cst.Module, function: cst.FunctionDef, imports: ImportMap,
                 line_base: int = 0, extra_flags: frozenset[str] = frozenset(), source: str | None = None,
                 locator: Locator | None = None, *, outline: KernelSource | None = None,
                 helpers: dict[str, KernelContext] | None = None, launches: Sequence[Launch] = (),
                 origin: tuple[str, str] | None = None, depends: set[str] | None = None,
                 masked_lanes: str = "zero") -> None:
        self.locator = locator  # positions from the file's ast; None: PositionProvider only
        self.line_base = line_base  # add to a line of `module` to get the file's line
        self.outline = outline  # where the jit function sits in its file (None: a tree on its own)
        # The jit functions of the same file, by name: one mapping shared by the file's contexts,
        # filled by the engine before any rule runs.
        self.helpers: dict[str, KernelContext] = helpers if helpers is not None else {}
        self.launches: list[Launch] = list(launches)  # its launch sites in the file and its neighbours
        self.origin = origin  # (path, text) of the file, for helpers it imports
        # Other files the fixer read (their helpers): results not cacheable. Shared by the file's contexts.
        self.depends: set[str] = depends if depends is not None else set()
        self.masked_lanes = masked_lanes  # what a load without `other=` holds in its masked-off lanes
        # `f = triton.heuristics(...)(triton.jit(f))`: that statement, parsed alone, and the
        # decorators it applies as calls; `applied_base` added to a line of it gives the file's line
        # (not padded with blank lines to its place: that cost a parse and a position pass as long
        # as the file above it, for each such kernel).
        self.applied = _applied_module(outline)
        self.applied_base = outline.applied_line - 1 - (1 if outline.applied[:1] in (" ", "\t") else 0) \
            if self.applied is not None and outline is not None else 0
        self.ir = bind(module, function, imports, source, extra_flags, _applied_decorators(self.applied))
        self.flow = Dataflow(self.ir, partial(_helper_returns_load, weakref.proxy(self)))
        self.ev = Evaluator(self.ir, self.flow)
        self.walker = Walker(self.ir, self.flow, self.ev)
        # Through a proxy: a bound method would hold the context from its own flags, a cycle that leaves
        # the file's syntax trees to the cyclic collector (the HazardFinder holds it the same way).
        self.flags = FlagRecognizer(self.ir, self.flow, self.ev, partial(_helper_views, weakref.proxy(self)))
        self.hazards = HazardFinder(self)
        # What the rules and the fixer ask most, under short names.
        self.module, self.function, self.defs, self.accesses = module, function, self.ir.defs, self.ir.accesses
        self.reader, self.qualify_tl = self.ir.reader, self.ir.qualify_tl
        self.reaching, self.chain = self.flow.reaching, self.flow.chain
        self.dims, self.mask_dims, self.dim_size, self.label = self.ev.dims, self.ev.mask_dims, self.ev.dim_size, self.ev.label
        self.tail_hazards, self.hazards_of = self.hazards.tail_hazards, self.hazards.hazards_of
        self._complete = True

    def __setattr__(self, name: str, value: object) -> None:
        if getattr(self, "_complete", False):
            raise AttributeError(f"a KernelContext is complete once built: cannot set {name}")
        object.__setattr__(self, name, value)

    @cached_property
    def weak_predicates(self) -> list[WeakPredicate]:
        """The predicates setting its evenness flags (heuristics, launch arguments) that do not
        imply full tiles of the walks they let through."""
        return weak_predicates(self)

    @cached_property
    def returns_load(self) -> bool:
        """Whether the function returns data it loads (`return tl.load(p)`, `x = tl.load(p)` then
        `return x.to(tl.int64)`, or a helper's result that does): read through its assignments,
        in any order (a conservative reading of what a return can hold)."""
        pending: list[cst.CSTNode] = [self.function.body]
        returned: list[cst.BaseExpression] = []
        while pending:
            current = pending.pop()
            if isinstance(current, cst.Return) and current.value is not None:
                returned.append(current.value)
            elif not isinstance(current, (cst.BaseExpression, cst.FunctionDef)):
                pending.extend(child_nodes(current))
        seen: set[str] = set()
        while returned:
            value = returned.pop()
            for node in nodes_under(value):
                if type(node) is cst.Name and node.value not in seen:
                    seen.add(node.value)
                    returned += [d.value for d in self.ir.defs.get(node.value, ()) if d.value is not None]
                elif type(node) is cst.Call and (self.ir.qualify_tl(node.func) == "load" or _helper_returns_load(
                        self, node.func.value if type(node.func) is cst.Name else "")):
                    return True
        return False

    @cached_property
    def names_used(self) -> frozenset[str]:
        """Every name the function's text uses (a fix that names a new value must pick another);
        one walk per kernel, not one per finding."""
        names: set[str] = set()
        pending: list[cst.CSTNode] = [self.function]
        while pending:
            current = pending.pop()
            if type(current) is cst.Name:  # exact type (no ABC check): see tree.TypeTest
                names.add(current.value)
            pending.extend(child_nodes(current))
        return frozenset(names)

    # ------------------------------------------------------------------ positions

    @cached_property
    def _positions(self) -> dict[cst.CSTNode, CodeRange]:
        # The fallback when the ast outline cannot place a node: a position pass costs as much as
        # parsing the kernel again.
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        return dict(wrapper.resolve(PositionProvider))

    def span_of(self, node: cst.CSTNode) -> Span:
        """Where a node of this kernel sits in the file. KeyError for a node of another tree."""
        span = self.locator.span(self.function, node) if self.locator is not None else None
        if span is not None:
            return span
        position = self._positions.get(node)
        if position is None and self.applied is not None:
            position = self._applied_positions[node]  # a decorator applied by assignment: placed as parsed
            return Span(position.start.line + self.applied_base, position.start.column,
                        position.end.line + self.applied_base, position.end.column)
        if position is None:
            raise KeyError(node)
        return Span(position.start.line + self.line_base, position.start.column,
                    position.end.line + self.line_base, position.end.column)

    @cached_property
    def _applied_positions(self) -> dict[cst.CSTNode, CodeRange]:
        assert self.applied is not None
        return dict(MetadataWrapper(self.applied, unsafe_skip_copy=True).resolve(PositionProvider))

    def statement_start(self, statement: cst.SimpleStatementLine, call: cst.Call) -> tuple[int, int]:
        """(line, column) where `statement`, a line holding only the statement that holds `call`, starts."""
        if self.locator is not None:
            found = self.locator.statement_start(self.function, call, type(statement.body[0]).__name__)
            if found is not None:
                return found
        span = self.span_of(statement)
        return span.line, span.column

    def line_of(self, node: cst.CSTNode) -> int:
        """The file line of a node of this kernel, or of a jit helper it calls: an access judged at
        its call site keeps the helper's own call node, and a fact may name its line. KeyError for
        a node of no tree of the file (one an inlining built)."""
        owner = self._owner_of(node)
        if owner is None:
            raise KeyError(node)
        return owner.span_of(node).line

    def has_node(self, node: cst.CSTNode) -> bool:
        """Whether `line_of` can place the node (without placing it)."""
        return self._owner_of(node) is not None

    def _owner_of(self, node: cst.CSTNode) -> KernelContext | None:
        """The context whose tree holds `node` (trees never share nodes, so at most one does): this
        one, else the helpers it calls, transitively, else any other jit function of the file."""
        if self.locator is not None and self.locator.span(self.function, node) is not None:
            return self  # the position index knows only this tree's nodes: no walk to ask it
        if id(node) in self._node_ids or (self.applied is not None and id(node) in self._applied_ids):
            return self  # (a decorator applied by assignment lives in a tree of its own)
        seen = {id(self.function)}
        for helper in (*self._callees, *self.helpers.values()):
            if id(helper.function) not in seen:
                seen.add(id(helper.function))
                if id(node) in helper._node_ids:
                    return helper
        return None

    @property
    def _callees(self) -> list[KernelContext]:
        """The jit helpers it calls, transitively, nearest first."""
        found: list[KernelContext] = []
        seen = {id(self.function)}
        pending = [self]
        while pending:
            current = pending.pop(0)
            for site in current.ir.calls:
                helper = self.helpers.get(site.name)
                if helper is not None and id(helper.function) not in seen:
                    seen.add(id(helper.function))
                    found.append(helper)
                    pending.append(helper)
        return found

    @cached_property
    def _node_ids(self) -> frozenset[int]:
        # Which tree a node is in, asked before placing it: a position pass over a tree only to
        # learn that the node is not there cost a tenth of a cold check (and, through every helper
        # of a file, grew with the file's size).
        return frozenset(map(id, nodes_under(self.module)))

    @cached_property
    def _applied_ids(self) -> frozenset[int]:
        assert self.applied is not None
        return frozenset(map(id, nodes_under(self.applied)))

    def describe_walk(self, walk: Walk) -> str:
        """`offs_k` (tiles of BLOCK_K), advanced by the loop at line 9."""
        parts = []
        if walk.dim:
            size = self.ev.dim_size.get(walk.dim)
            parts.append(f"`{self.ev.label(walk.dim)}`" + (f" (tiles of {size})" if size else ""))
        if walk.loop is not None:
            parts.append(f"advanced by the loop at line {self.line_of(walk.loop.node)}")
        return ", ".join(parts)


def _applied_module(outline: KernelSource | None) -> cst.Module | None:
    """The statement jitting the function by assignment with decorators applied as calls, parsed
    alone (an indented one behind an `if 1:`, so that its columns are the file's); its lines are
    the file's less `KernelContext.applied_base`."""
    if outline is None or not outline.applied:
        return None
    text = outline.applied
    indented = text[:1] in (" ", "\t")
    try:
        return cst.parse_module((NESTED_PREFIX if indented else "") + text)
    except cst.ParserSyntaxError:
        return None


def _applied_decorators(applied: cst.Module | None) -> tuple[cst.BaseExpression, ...]:
    """`A(...)(B(...)(triton.jit(f)))` -> (A(...), B(...), triton.jit): the decorators, outermost first."""
    if applied is None:
        return ()
    statement: cst.CSTNode = applied.body[0]
    if isinstance(statement, cst.If):
        statement = statement.body.body[0]
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and statement.body else None
    if not isinstance(small, cst.Assign):
        return ()
    found: list[cst.BaseExpression] = []
    node: cst.BaseExpression = small.value
    while isinstance(node, cst.Call) and len(node.args) == 1 and len(found) < 8:
        found.append(node.func)
        if not isinstance(node.func, cst.Call):
            break  # `triton.jit(f)`: the innermost
        node = node.args[0].value
    return tuple(found)


def _helper_returns_load(context: KernelContext, name: str) -> bool:
    """Whether the jit helper `name` of the caller's file returns data it loads."""
    helper = context.helpers.get(name)
    if helper is None or helper.ir is context.ir or id(helper.ir) in _ASKING:
        return False  # not a helper of the file, or one reached again through its own calls
    _ASKING.add(id(helper.ir))
    try:
        return helper.returns_load
    finally:
        _ASKING.discard(id(helper.ir))


_ASKING: set[int] = set()  # the helpers whose `returns_load` is being read (a call cycle stops there)


def _helper_views(context: KernelContext) -> list[Access]:
    """The accesses of the jit helpers it calls, as each call site sees them (for its flags)."""
    views: list[Access] = []
    for site in context.ir.calls:
        helper = context.helpers.get(site.name)
        if helper is not None and helper.ir is not context.ir:  # context is a proxy: compare what it holds
            views += [view for _, view in context.hazards.inline(site, helper)]
    return views
