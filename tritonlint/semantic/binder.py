"""The binder: one walk over a jit function records its definitions, accesses, loops and helper
calls, each with the path condition it runs under. Every later stage reads what this walk recorded."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import libcst as cst

from tritonlint.semantic.ir import (
    LOOP_PREFIX,
    Access,
    AccessKind,
    Def,
    DefKind,
    HelperCall,
    KernelIR,
    Loop,
    Reduction,
    ReductionKind,
    Tiles,
)
from tritonlint.semantic.paths import EMPTY, ConditionReader, Path
from tritonlint.source.names import ImportMap, code_of, dotted, language_member
from tritonlint.source.syntax import is_boolean_shape, keyword, range_args
from tritonlint.source.tree import IS_EXPRESSION, TypeTest, child_nodes, expressions_in, names_in

_RANGE_CALLS = {"range", "static_range"}
# Nodes that hold statements (the walk for constexpr aliases looks inside them, not into expressions).
_IS_STATEMENT_PART = TypeTest(cst.BaseSuite, cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.Else,
                              cst.ExceptHandler, cst.Finally)
_ROUND_DOWN = re.compile(r"prev_multiple|round_down|floor_to|align_down|rounddown", re.IGNORECASE)
# `tl.program_id(0)`, `tl.program_id(axis=0).to(tl.int64)`: a program's own tile index.
_PROGRAM_ID = re.compile(r"(\w+\.)*program_id\([^()]*\)(\.to\([\w.]+\))?")
DIVISIBLE = re.compile(r"\(?(\w+)%(\w+)\)?==0")
# Calls that fold lanes together, as `tl.sum(x)` or as a tensor method `x.sum()`.
REDUCERS = frozenset({"sum", "max", "min", "argmax", "argmin", "dot", "dot_scaled"})
# The atomics that write the lanes they reach: recorded as stores (a lane past the end corrupts
# memory just the same), each under its own name for messages. `atomic_cas` takes no mask: it is
# recorded too, so a tail it overruns is reported, but no fix is offered for it.
WRITING_ATOMICS = frozenset({"atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
                             "atomic_xchg", "atomic_cas"})


@dataclass
class _Block:
    path: Path
    loops: tuple[Loop, ...]


def _counter_step(small: cst.BaseSmallStatement, counter: str, up: bool) -> cst.BaseExpression | None:
    """s of `k += s` (`k -= s` when counting down) or `k = k + s`, else None."""
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == counter:
        wanted = cst.AddAssign if up else cst.SubtractAssign
        return small.value if isinstance(small.operator, wanted) else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
            and small.targets[0].target.value == counter and isinstance(small.value, cst.BinaryOperation) \
            and isinstance(small.value.left, cst.Name) and small.value.left.value == counter \
            and isinstance(small.value.operator, cst.Add if up else cst.Subtract):
        return small.value.right
    return None


def _assignments_to(body: cst.CSTNode, name: str) -> int:
    """How many statements anywhere in `body` assign `name` (a `for` target counts)."""
    count = 0
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            count += sum(1 for t in targets if name in names_in(t))
        if isinstance(node, (cst.BaseSuite, cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.Else)):
            stack.extend(child_nodes(node))
    return count


def _counted_down_range(top: cst.BaseExpression, step: cst.BaseExpression, index: str,
                        value: cst.BaseExpression) -> cst.Call | None:
    """`range(a, b, s)` of `k = b - r` under `range(b - a, 0, -s)` (`range(0, b, s)` for `range(b, 0, -s)`)."""
    if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Subtract)
            and isinstance(value.right, cst.Name) and value.right.value == index):
        return None
    end = value.left
    if _same_text(top, end):
        return _range_call(cst.Integer("0"), end, step)
    if isinstance(top, cst.BinaryOperation) and isinstance(top.operator, cst.Subtract) and _same_text(top.left, end):
        return _range_call(top.right, end, step)
    return _range_call(cst.BinaryOperation(_bare(end), cst.Subtract(), _bare(top)), end, step)


def _same_text(one: cst.BaseExpression, other: cst.BaseExpression) -> bool:
    return code_of(_bare(one)).replace(" ", "") == code_of(_bare(other)).replace(" ", "")


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """The expression without its outer parentheses (`(BLOCK_K)` is `BLOCK_K`)."""
    return node.with_changes(lpar=[], rpar=[]) if node.lpar else node


def _range_call(start: cst.BaseExpression, stop: cst.BaseExpression, step: cst.BaseExpression) -> cst.Call:
    """`range(start, stop, step)`; `range(start, stop)` for a step of 1 (a tile count, read like `range(n)`)."""
    args = [cst.Arg(_bare(start)), cst.Arg(_bare(stop))]
    if code_of(_bare(step)) != "1":
        args.append(cst.Arg(_bare(step)))
    return cst.Call(cst.Name("range"), args)


def _constexpr_annotation(annotation: cst.BaseExpression) -> bool:
    """`tl.constexpr`, `triton.language.constexpr`, `"tl.constexpr"`: read without printing the
    node (every parameter of every kernel has one; printing was a tenth of the binder's time)."""
    spelled = dotted(annotation)
    return "constexpr" in (spelled if spelled is not None else code_of(annotation))


def bind(module: cst.Module, function: cst.FunctionDef, imports: ImportMap, source: str | None = None,
         extra_flags: frozenset[str] = frozenset(), applied: tuple[cst.BaseExpression, ...] = ()) -> KernelIR:
    """Walk `function` once and return what it holds; `applied`: decorators applied to it as calls
    where it is jitted by assignment."""
    ir = _Binder(module, function, imports, source).finish(extra_flags)
    return dataclasses.replace(ir, decorators=tuple(decorator.decorator for decorator in function.decorators) + applied)


class _Binder:
    def __init__(self, module: cst.Module, function: cst.FunctionDef, imports: ImportMap,
                 source: str | None) -> None:
        self.module = module
        self.function = function
        self.imports = imports
        self.defs: dict[str, list[Def]] = {}
        self.accesses: list[Access] = []
        self.calls: list[HelperCall] = []  # calls to plain names: jit helpers among them
        self.reductions: list[Reduction] = []
        self.loops: list[Loop] = []
        self.divisible: set[tuple[str, str]] = set()
        self._order = 0
        # Facts read from the kernel's source text (printing the tree again would cost as much as
        # parsing it): the integers and strings each name is compared with, the block sizes it spans with
        # `tl.arange(0, BLOCK)`.
        text = source if source is not None else module.code
        constants: dict[str, set[str]] = {}
        for name, value in re.findall(r"""(?<![\w.])([^\W\d]\w*)\s*==\s*(\d+(?![\w.])|"[^"\\\n]*"|'[^'\\\n]*')""", text):
            constants.setdefault(name, set()).add(value)
        self.reader = ConditionReader(self._constexpr_aliases(), constants)
        # Block sizes: spanned by `tl.arange(0, BLOCK)`, or a block pointer's `block_shape=(BM, BK)`.
        self.block_sizes = set(re.findall(r"arange\(\s*0\s*,\s*([^\W\d]\w*)", text))
        for shape in re.findall(r"block_shape\s*=\s*[(\[]([^)\]]*)", text):
            self.block_sizes.update(re.findall(r"[^\W\d]\w*", shape))
        for param in [*function.params.params, *function.params.kwonly_params]:
            self._define(param.name.value, None, _Block(EMPTY, ()), "param",
                         constexpr=param.annotation is not None and _constexpr_annotation(param.annotation.annotation))
        self._walk_block(function.body, _Block(EMPTY, ()))

    def finish(self, extra_flags: frozenset[str]) -> KernelIR:
        return KernelIR(self.module, self.function, self.imports, self.qualify_tl, self.defs, self.accesses,
                        self.calls, self.loops, self.divisible, self.reader, self.block_sizes, extra_flags,
                        self.reductions)

    def qualify_tl(self, node: cst.BaseExpression) -> str | None:
        """`load` for `tl.load`, `triton.language.load`, a `from triton.language import load` name..."""
        return language_member(self.imports.qualify(node))

    def _next(self) -> int:
        self._order += 1
        return self._order

    def _define(self, name: str, value: cst.BaseExpression | None, block: _Block, kind: DefKind,
                constexpr: bool = False, index: int | None = None) -> None:
        self.defs.setdefault(name, []).append(
            Def(name, value, self._next(), block.path, block.loops, kind, constexpr, index))

    def _constexpr_aliases(self) -> dict[str, cst.BaseExpression]:
        """Locals that restate a flag (`HAS_TAIL: tl.constexpr = not EVEN_K`), assigned exactly once."""
        found: dict[str, list[cst.BaseExpression]] = {}
        pending: list[cst.CSTNode] = [self.function.body]
        while pending:
            node = pending.pop()
            if type(node) is cst.Assign:  # exact types (no ABC check): see tree.TypeTest
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        found.setdefault(target.target.value, []).append(node.value)
            elif type(node) is cst.AnnAssign:
                if isinstance(node.target, cst.Name) and node.value is not None:
                    found.setdefault(node.target.value, []).append(node.value)
            elif _IS_STATEMENT_PART[type(node)] and type(node) is not cst.FunctionDef:
                pending.extend(child for child in child_nodes(node) if not IS_EXPRESSION[type(child)])
        return {name: values[0] for name, values in found.items() if len(values) == 1 and is_boolean_shape(values[0])}

    def _walk_block(self, body: cst.BaseSuite | Iterable[cst.BaseStatement], block: _Block) -> bool:
        """Walk statements; returns True when the block always ends in `return`."""
        statements: Iterable[cst.CSTNode]
        if isinstance(body, cst.IndentedBlock):
            statements = body.body
        elif isinstance(body, cst.BaseSuite):
            statements = [body]  # `if x: a; b` on one line
        else:
            statements = body
        path = block.path
        for statement in statements:
            current = _Block(path, block.loops)
            if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in statement.body:
                    if isinstance(small, cst.Return):
                        if small.value is not None:
                            self._scan(small.value, current)
                        return True
                    path |= self._small_statement(small, current)
                    current = _Block(path, block.loops)
            elif isinstance(statement, cst.If):
                established, returns = self._if(statement, current)
                if returns:
                    return True
                path |= established
            elif isinstance(statement, cst.For):
                self._for(statement, current)
            elif isinstance(statement, cst.While):
                self._while(statement, current)
            elif isinstance(statement, (cst.With, cst.Try)):
                self._walk_block(statement.body, current)
        return False

    def _small_statement(self, small: cst.BaseSmallStatement, block: _Block) -> Path:
        """Record one simple statement; returns literals it establishes for what follows."""
        if isinstance(small, cst.Assign):
            self._scan(small.value, block)
            for target in small.targets:
                self._assign(target.target, small.value, block)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self._scan(small.value, block)
                constexpr = _constexpr_annotation(small.annotation.annotation)
                self._assign(small.target, small.value, block, constexpr)
        elif isinstance(small, cst.AugAssign):
            self._scan(small.value, block)
            if isinstance(small.target, cst.Name):
                if isinstance(small.operator, (cst.BitAndAssign, cst.BitOrAssign)):
                    # `mask &= offs < M` is `mask = mask & (offs < M)`: a mask, not an advance.
                    operator: cst.BaseBinaryOp = cst.BitAnd() if isinstance(small.operator, cst.BitAndAssign) else cst.BitOr()
                    combined = cst.BinaryOperation(small.target, operator, small.value.with_changes(
                        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
                    self._define(small.target.value, combined, block, "assign")
                else:
                    # `p += step` is `p = p + step`: the old value flows on (a pointer stays a pointer).
                    kinds: dict[type, type[cst.BaseBinaryOp]] = {
                        cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply}
                    operator = kinds.get(type(small.operator), cst.Add)()
                    combined = cst.BinaryOperation(small.target, operator, small.value.with_changes(
                        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
                    self._define(small.target.value, combined, block, "advance" if block.loops else "assign")
        elif isinstance(small, cst.Expr):
            self._scan(small.value, block)
            value = small.value
            if (isinstance(value, cst.Call) and self.qualify_tl(value.func) == "static_assert"
                    and value.args):
                match = DIVISIBLE.fullmatch(code_of(value.args[0].value))
                if match and not block.path and not block.loops:
                    self.divisible.add((match.group(1), match.group(2)))
                return self.reader.when_true(value.args[0].value)
        return EMPTY

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression, block: _Block,
                constexpr: bool = False) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, cst.IfExp):
                # `mask = None if EVEN_K else offs < K`: two definitions, one per side.
                for side, literals in self.reader.sides(value):
                    self._define(target.value, side, _Block(block.path | literals, block.loops), "assign", constexpr)
                return
            kind: DefKind = "assign"
            if block.loops and self._advances_itself(target.value, value):
                kind = "advance"  # `ptrs = ptrs + BLOCK * stride` or `bp = tl.advance(bp, ...)`
            self._define(target.value, value, block, kind, constexpr)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [element.value for element in target.elements]
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(elements):
                for element, item in zip(elements, value.elements):
                    self._assign(element, item.value, block, constexpr)
            else:
                for index, element in enumerate(elements):
                    if isinstance(element, cst.Name):
                        self._define(element.value, value, block, "assign", constexpr, index)

    def _advances_itself(self, name: str, value: cst.BaseExpression) -> bool:
        """`x = x + step` or `x = tl.advance(x, ...)` moves x on; `x = tl.where(x < M, x, 0)` or
        `x = x.to(tl.int64)` only transforms the value it has, and replaces it."""
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)):
            return any(isinstance(side, cst.Name) and side.value == name for side in (value.left, value.right)) \
                or self._advances_itself(name, value.left)
        return isinstance(value, cst.Call) and self.qualify_tl(value.func) == "advance"

    def _if(self, node: cst.If, block: _Block) -> tuple[Path, bool]:
        """Walk both sides; returns what holds after the `if` (early returns) and whether both sides return."""
        self._scan(node.test, block)
        true_side = block.path | self.reader.when_true(node.test)
        false_side = block.path | self.reader.when_false(node.test)
        body_returns = self._walk_block(node.body, _Block(true_side, block.loops))
        else_returns = False
        if isinstance(node.orelse, cst.If):
            _, else_returns = self._if(node.orelse, _Block(false_side, block.loops))
        elif isinstance(node.orelse, cst.Else):
            else_returns = self._walk_block(node.orelse.body, _Block(false_side, block.loops))
        if body_returns and else_returns:
            return EMPTY, True
        if body_returns:
            return self.reader.when_false(node.test), False
        if else_returns:
            return self.reader.when_true(node.test), False
        return EMPTY, False

    def _for(self, node: cst.For, block: _Block) -> None:
        self._scan(node.iter, block)
        targets = frozenset(names_in(node.target))
        # A loop counted in tiles or down, whose body starts by deriving the offset it walks
        # (`k = a + i * s`, `k = b - r`), walks k like the `range(a, b, s)` it is written for.
        derived = self._derived_range(node.body, node.iter, node.target.value) \
            if isinstance(node.target, cst.Name) else None
        walked = derived[0] if derived is not None else None
        body = node.body
        if derived is not None and isinstance(body, cst.IndentedBlock):
            # k is then the loop's target, as in the loop it restates: its derivation is not walked.
            targets |= frozenset(derived[1])
            body = body.with_changes(body=body.body[len(derived[1]):])
        tiles, why = self._range_tiles(walked if walked is not None else node.iter)
        loop = Loop(node, f"{LOOP_PREFIX}{len(self.loops)}", targets, tiles, code_of(node.iter), why,
                    walked if walked is not None else node.iter)
        self.loops.append(loop)
        inner = _Block(block.path, block.loops + (loop,))
        for name in sorted(targets):
            self._define(name, None, inner, "for")
        self._walk_block(body, inner)

    def _while(self, node: cst.While, block: _Block) -> None:
        self._scan(node.test, block)
        iterable = self._while_range(node)
        body = node.body
        counters: list[str] = []
        if iterable is not None:
            # `k = a` / `while k < b:` / `k += s` walks k like `for k in range(a, b, s)`.
            counter = next(iter(names_in(cast(cst.Comparison, node.test).left)))
            counters = [counter]
            derived = self._derived_range(body, iterable, counter, stepped=True)
            if derived is not None and isinstance(body, cst.IndentedBlock):
                # `i = 0; while i < tl.cdiv(E, s): k = i * s ... i += 1`: the walk of k, as for a `for`.
                iterable, counters = derived[0], counters + derived[1]
                body = body.with_changes(body=body.body[len(derived[1]):])
            tiles, why = self._range_tiles(iterable)
            loop = Loop(node, f"{LOOP_PREFIX}{len(self.loops)}", frozenset(counters), tiles, code_of(iterable),
                        why, iterable)
        else:
            # `while i < n` steps by whatever the body says; that is no evidence of a partial tile.
            loop = Loop(node, f"{LOOP_PREFIX}{len(self.loops)}", frozenset(names_in(node.test)), "unknown",
                        code_of(node.test))
        self.loops.append(loop)
        inner = _Block(block.path, block.loops + (loop,))
        for name in counters:
            # In the body k is the loop's target, as in `for k in range(a, b, s)`: what it starts
            # from (`k = start` before the loop) and its step reach it only through the loop.
            self._define(name, None, inner, "for")
        self._walk_block(body, inner)

    def _derived_range(self, body: cst.BaseSuite, iterable: cst.BaseExpression, index: str,
                       stepped: bool = False) -> tuple[cst.Call, list[str]] | None:
        """The `range(a, b, s)` of the offset a loop's first statements derive from its index, where
        the loop counts tiles or counts down: `for i in range(0, tl.cdiv(E, s)): k = a + i * s` walks
        k over `range(a, a + E, s)` (`range(a, b, s)` when E is `b - a`); `for r in range(T, 0, -s):
        k = b - r` over `range(b - T, b, s)` (`range(a, b, s)` when T is `b - a`); one derivation
        may follow another (`i = n - r`, then `k = i * s`). Each derived name is assigned nowhere
        else in the body, and each index is used by the statement deriving from it alone (a
        `while` counter also by its own step, `stepped`). With the names derived, in order; None
        when the first statement derives nothing."""
        if not isinstance(body, cst.IndentedBlock) or not isinstance(iterable, cst.Call):
            return None
        derived: list[str] = []
        walked: cst.Call = iterable
        for statement in body.body[:3]:
            name = self.qualify_tl(walked.func) or dotted(walked.func)
            if name not in _RANGE_CALLS or not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                break
            small = statement.body[0]
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)):
                break
            counter, value = small.targets[0].target.value, small.value
            if counter == index or counter in derived:
                break
            # The statement's own shape first: the body walks below are asked only of a derivation.
            args = range_args(walked)
            made = None
            if len(args) in (1, 2) and (len(args) == 1 or code_of(args[0]) == "0"):
                made = self._counted_in_tiles(args[-1], index, value)
            elif len(args) == 3 and code_of(args[1]) == "0" and isinstance(args[2], cst.UnaryOperation) \
                    and isinstance(args[2].operator, cst.Minus):
                made = _counted_down_range(args[0], args[2].expression, index, value)
            if made is None:
                break
            own_step = stepped and not derived  # a `while` counter's `k += 1`
            if _assignments_to(body, counter) != 1 \
                    or _assignments_to(body, index) != (1 if own_step or derived else 0) \
                    or sum(1 for used in names_in(body) if used == index) != (2 if own_step or derived else 1):
                break
            walked, index = made, counter
            derived.append(counter)
        return (walked, derived) if derived else None

    def _counted_in_tiles(self, count: cst.BaseExpression, index: str, value: cst.BaseExpression) -> cst.Call | None:
        """`range(a, b, s)` of `k = a + i * s` (or `i * s`) under `range(tl.cdiv(b - a, s))`."""
        if not (isinstance(count, cst.Call) and (self.qualify_tl(count.func) or dotted(count.func) or "").endswith("cdiv")
                and len(count.args) == 2 and not any(arg.keyword or arg.star for arg in count.args)):
            return None
        extent, step = count.args[0].value, count.args[1].value
        start: cst.BaseExpression | None = None
        product = value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
            start, product = value.left, value.right
        if not (isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply)
                and isinstance(product.left, cst.Name) and product.left.value == index
                and _same_text(product.right, step)):
            return None
        if start is None:
            return _range_call(cst.Integer("0"), extent, step)
        if isinstance(extent, cst.BinaryOperation) and isinstance(extent.operator, cst.Subtract) \
                and _same_text(extent.right, start):
            return _range_call(start, extent.left, step)
        return _range_call(start, cst.BinaryOperation(_bare(start), cst.Add(), _bare(extent)), step)

    def _while_range(self, node: cst.While) -> cst.Call | None:
        """The `range(a, b, s)` a `while` tile loop walks: `while k < b:` (or `while k > 0:`, counting
        down) whose body moves `k` once, by a top-level `k += s` (`k -= s`) or `k = k + s`, and
        assigns it nowhere else; `a` is the value `k` reaches the loop with. None otherwise."""
        test = node.test
        if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1):
            return None
        counter, (target,) = test.left.value, test.comparisons
        up = isinstance(target.operator, cst.LessThan)
        down = isinstance(target.operator, cst.GreaterThan) and code_of(target.comparator) == "0"
        if not (up or down) or not isinstance(node.body, cst.IndentedBlock):
            return None
        steps: list[cst.BaseExpression] = []
        for statement in node.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                step = _counter_step(small, counter, up)
                if step is not None:
                    steps.append(step)
        if len(steps) != 1 or _assignments_to(node.body, counter) != 1 or counter in names_in(target.comparator):
            return None
        before = [d for d in self.defs.get(counter, []) if d.value is not None]
        start: cst.BaseExpression = before[-1].value if before and before[-1].value is not None else test.left
        stop = target.comparator if up else cst.Integer("0")
        step = steps[0] if up else cst.UnaryOperation(cst.Minus(), steps[0].with_changes(
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        if up and code_of(step) == "1":  # `k += 1`: counts tiles, read like `range(a, b)`
            return cst.Call(cst.Name("range"), [cst.Arg(start), cst.Arg(stop)])
        return cst.Call(cst.Name("range"), [cst.Arg(start), cst.Arg(stop), cst.Arg(step)])

    def _range_tiles(self, iterable: cst.BaseExpression) -> tuple[Tiles, str]:
        """Whether a tile loop's last iteration can cover less than a full tile.

        `range(0, K, BLOCK_K)` and `range(tl.cdiv(K, BLOCK_K))` can ("partial"); `range(K // BLOCK_K)`
        visits full tiles only ("full"); `range(num_tiles)` visits what the caller counted ("unknown").
        The second answer says why, for the messages and `--explain`.
        """
        if not isinstance(iterable, cst.Call):
            return "unknown", ""
        name = self.qualify_tl(iterable.func) or dotted(iterable.func)
        if name not in _RANGE_CALLS:
            return "unknown", ""
        args = range_args(iterable)
        if not args:
            return "unknown", ""
        bounds = args[:2] if len(args) >= 2 else args
        texts = [self._expanded_text(bound) for bound in bounds]
        if any("//" in text or re.search(r"(\w+)-\1%", text) or _ROUND_DOWN.search(text) for text in texts):
            # `K // BLOCK_K`, `K - K % BLOCK_K`, `prev_multiple_of(K, BLOCK_K)`
            return "full", "its bound is rounded down to whole tiles"
        names = {token for text in [code_of(iterable)] + texts for token in re.findall(r"\w+", text)}
        for total, block in sorted(self.divisible):
            if total in names and block in names:  # after `tl.static_assert(K % BLOCK_K == 0)`
                return "full", f"the kernel asserts {total} % {block} == 0"
        if len(args) >= 3:
            step = code_of(args[2])
            if step in ("1", "+1") or (step == "-1" and code_of(args[1]) == "0"):
                # A tile count walked one by one, either way: `range(0, n, 1)` is `range(n)`, and
                # `range(n, 0, -1)` visits n tiles too (`range(tl.cdiv(K, BLOCK_K), 0, -1)`).
                counted = [args[0]] if step == "-1" else args[:2]
                if any("cdiv(" in text or re.search(r"-1\)?//", text) for text in map(self._expanded_text, counted)):
                    return "partial", "it counts tiles rounded up"
                return "unknown", ""
            if step == "-1":
                return "unknown", ""
            if self._before_own_tile(args[0], args[1], step):
                return "full", "it visits the tiles before the program's own, which starts inside the tensor"
            # A tile loop steps by a block size (one the kernel spans with `tl.arange(0, BLOCK)`);
            # `range(pid, n, num_programs)` or `range(start_pid, num_tiles, NUM_SMS)` strides over
            # rows or tiles, and its index is no element offset.
            block_step = isinstance(args[2], cst.Integer) or bool(set(names_in(args[2])) & self.block_sizes)
            if block_step and "num_programs" not in step:
                return "partial", "it steps by a block size to a bound that need not be a multiple of it"
            return "unknown", ""
        if any("cdiv(" in text or re.search(r"-1\)?//", text) for text in texts):
            return "partial", "it counts tiles rounded up"
        return "unknown", ""

    def _before_own_tile(self, start: cst.BaseExpression, stop: cst.BaseExpression, step: str) -> bool:
        """`range(0, pid * BLOCK, BLOCK)`: the tiles before this program's own, which starts inside
        the tensor (the grid covers it), so every one of them is full."""
        if not (isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.Multiply)):
            return False
        sides = [(stop.left, stop.right), (stop.right, stop.left)]
        factor = next((other for side, other in sides if code_of(side) == step), None)
        if factor is None or not _PROGRAM_ID.fullmatch(self._expanded_text(factor)):
            return False
        return code_of(start) == "0"

    def _expanded_text(self, node: cst.BaseExpression) -> str:
        """Source of an expression with local names replaced by their single definition, one level."""
        text = code_of(node)
        if isinstance(node, cst.Name):
            defs = [d for d in self.defs.get(node.value, []) if d.value is not None]
            if len(defs) == 1 and defs[0].value is not None:
                return code_of(defs[0].value)
        return text

    def _scan(self, expression: cst.BaseExpression, block: _Block) -> None:
        """Find tl.load / tl.store calls in an expression, with the path of any `a if c else b` around them."""
        if type(expression) is cst.IfExp:  # exact types (no ABC check): see tree.TypeTest
            self._scan(expression.test, block)
            for side, literals in self.reader.sides(expression):
                self._scan(side, _Block(block.path | literals, block.loops))
            return
        if type(expression) is cst.Call:
            member = self.qualify_tl(expression.func)
            if member in ("load", "store"):
                self._record_access(cast(AccessKind, member), expression, block)
            elif member in WRITING_ATOMICS:
                self._record_access("store", expression, block, member)
            elif member == "make_block_ptr":  # `block_shape` given by position (the text scan reads keywords)
                self.block_sizes.update(names_in(keyword(expression, "block_shape", 4)))
            elif member is None and type(expression.func) is cst.Name:
                self.calls.append(HelperCall(expression.func.value, expression, self._next(), block.path, block.loops))
            reducer = member if member is not None else (
                expression.func.attr.value if type(expression.func) is cst.Attribute else None)
            if reducer in REDUCERS:
                # Placed after what precedes it without taking an order of its own: the orders of
                # definitions stay what they were before reductions were recorded.
                self.reductions.append(Reduction(cast(ReductionKind, reducer), expression, self._order + 1, block.path, block.loops))
        for child in expressions_in(expression):
            self._scan(child, block)

    def _record_access(self, kind: AccessKind, call: cst.Call, block: _Block, member: str | None = None) -> None:
        # Signatures: load(pointer, mask, other, boundary_check, ...), store(pointer, value, mask, boundary_check, ...),
        # atomic_add(pointer, val, mask, sem, scope) and its kin, atomic_cas(pointer, cmp, val, sem, scope).
        positional = ["pointer", "mask", "other", "boundary_check"] if kind == "load" else \
            ["pointer", "value", "mask", "boundary_check"] if member is None else \
            ["pointer", "cmp", "value", "sem", "scope"] if member == "atomic_cas" else \
            ["pointer", "value", "mask", "sem", "scope"]
        args: dict[str, cst.BaseExpression] = {}
        index = 0
        for arg in call.args:
            if arg.keyword is not None:
                args[arg.keyword.value] = arg.value
            elif arg.star == "" and index < len(positional):
                args[positional[index]] = arg.value
                index += 1
        pointer = args.get("pointer")
        if pointer is None:
            return
        mask, other = (None if isinstance(value, cst.Name) and value.value == "None" else value
                       for value in (args.get("mask"), args.get("other")))
        self.accesses.append(Access(kind, call, pointer, mask, args.get("boundary_check"), self._next(),
                                    block.path, block.loops, other, member))
