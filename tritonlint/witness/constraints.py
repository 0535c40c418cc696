"""A kernel's own constraints on its constexprs, read from its syntax, and constexpr values that keep them.

A launch the kernel itself rejects proves nothing: `tl.static_assert(BLOCK_K % PACK == 0)` fails
at compile time, and `tl.arange(0, BLOCK_K // 32)` needs a non-empty power-of-two range. The
constraints are read from `tl.static_assert(cond)`, `assert cond` and every `tl.arange(start,
end)` of the kernel and of the jit helpers it calls (a helper's parameters replaced by the
arguments of the call), each under the constexpr `if` tests around it: an assertion in a branch
the chosen constexprs do not take constrains nothing. The synthesizer then changes the values it
chose itself (never those the callers pass or the finding needs) until every constraint it can
evaluate holds.
"""

from __future__ import annotations

import ast
import copy
import itertools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tritonlint.witness.call_names import call_name
from tritonlint.witness.tile_shapes import Shape, product, reshapes, shape_of, shape_reads
from tritonlint.witness.uses import dotted, params_of

MAX_ROUNDS = 8
POWERS = [1 << i for i in range(11)]  # 1 .. 1024


class Unknown(Exception):
    """The expression reads something the synthesizer does not choose (a runtime value, a dtype attribute)."""


@dataclass(frozen=True)
class DType:
    name: str


class _Present:
    """The value of an optional runtime parameter (a pointer or size the kernel tests with `is None`)
    that the launch passes: only `is None` / `is not None` can be decided about it."""

    def __repr__(self) -> str:
        return "PRESENT"


PRESENT = _Present()


class _Absent:
    """An optional runtime parameter the launch passes as None (reads as None in every test)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def _none_tested(fn: ast.FunctionDef, helpers: dict[str, Any], depth: int = 0) -> set[str]:
    """The parameters of `fn` tested with `is None` / `is not None`, in it or in a jit helper it hands
    them to unchanged (`float_to_flex(out, YExpectedScale, ...)`, tested there)."""
    tested: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            sides = (node.left, node.comparators[0])
            if any(isinstance(x, ast.Constant) and x.value is None for x in sides):
                tested |= {x.id for x in sides if isinstance(x, ast.Name)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers \
                and node.func.id != fn.name and depth < 3:
            inner = helpers[node.func.id].node
            names = [a.arg for a in params_of(inner)]
            passed = {names[i]: a.id for i, a in enumerate(node.args) if i < len(names) and isinstance(a, ast.Name)}
            passed.update({k.arg: k.value.id for k in node.keywords if k.arg and isinstance(k.value, ast.Name)})
            inner_tested = _none_tested(inner, helpers, depth + 1)
            tested |= {outer for name, outer in passed.items() if name in inner_tested}
    return tested


def optional_params(fn: ast.FunctionDef, constexprs: set[str], helpers: dict[str, Any] | None = None) -> list[str]:
    """The runtime parameters the kernel (or a jit helper it hands them to) tests with `is None` /
    `is not None` (`if ExptData is None:`): the launch may pass None for them."""
    tested = _none_tested(fn, helpers or {})
    return [a.arg for a in params_of(fn) if a.arg not in constexprs and a.arg in tested]


@dataclass
class Constraint:
    """`test` must hold wherever every one of `guards` holds (the constexpr branches around it)."""

    test: ast.expr
    guards: tuple[ast.expr, ...]
    what: str  # the source text, for a reason

    def names(self) -> set[str]:
        return {n.id for e in (self.test, *self.guards) for n in ast.walk(e) if isinstance(n, ast.Name)}


def _is_static_assert(node: ast.Call) -> bool:
    return call_name(node) == "static_assert"


_MODULES = {"tl", "triton", "language", "math", "libdevice"}


class _Substitute(ast.NodeTransformer):
    """A helper's expression in the caller's names: its parameters become the call's arguments, and its
    own locals get names no caller's local can share (they stay unknown)."""

    def __init__(self, mapping: dict[str, ast.expr], depth: int, shapes: dict[str, Shape] | None = None,
                 helper_locals: dict[str, ast.expr] | None = None) -> None:
        self.mapping = mapping
        self.depth = depth
        self.shapes = shapes or {}
        # The helper's locals bound once (`LANES: tl.constexpr = tile.shape[1]`): read through, in the
        # caller's names, so that an assertion on them constrains what the caller chooses.
        self.helper_locals = helper_locals or {}
        self.inlining: set[str] = set()

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        extent = shape_reads(node, self.shapes)
        return extent if extent is not None else self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        if node.id in self.helper_locals and node.id not in self.inlining:
            self.inlining.add(node.id)
            try:
                inlined: ast.AST = self.visit(copy.deepcopy(self.helper_locals[node.id]))
                return inlined
            finally:
                self.inlining.discard(node.id)
        if node.id in _MODULES:
            return node
        return ast.Name(id=f"__helper{self.depth}_{node.id}", ctx=ast.Load())


def _collect(fn: ast.FunctionDef, helpers: dict[str, Any], mapping: dict[str, ast.expr], guards: tuple[ast.expr, ...],
             out: list[Constraint], depth: int, shapes: dict[str, Shape] | None = None) -> None:
    shapes = shapes or {}
    own = {k: v for k, v in locals_of(fn).items() if k not in mapping} if depth else {}
    sub = _Substitute(mapping, depth, shapes, own)

    def mapped(e: ast.expr) -> ast.expr:
        return sub.visit(copy.deepcopy(e)) if depth else e

    # A reshape of a tile the helper was handed compiles only with as many elements as the tile has.
    for call, param, dims in reshapes(fn, set(shapes)) if depth else []:
        out.append(Constraint(ast.Compare(left=product([mapped(d) for d in dims]), ops=[ast.Eq()],
                                          comparators=[product(shapes[param])]), guards,
                              f"{dotted(call)} keeps the element count of `{param}`"))
    scalars = {a.arg for a in params_of(fn)} - set(shapes)

    def visit(stmts: list[ast.stmt], g: tuple[ast.expr, ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                test = mapped(stmt.test)
                visit(stmt.body, (*g, test))
                visit(stmt.orelse, (*g, ast.UnaryOp(op=ast.Not(), operand=test)))
                continue
            if isinstance(stmt, ast.Assert):
                t = mapped(stmt.test)
                out.append(Constraint(t, g, dotted(stmt.test)))
            for node in ast.walk(stmt) if not isinstance(stmt, (ast.For, ast.While, ast.With)) else ast.walk(
                    _header(stmt)):
                if not isinstance(node, ast.Call):
                    continue
                if _is_static_assert(node) and node.args:
                    out.append(Constraint(mapped(node.args[0]), g, dotted(node.args[0])))
                elif call_name(node) == "arange" and len(node.args) == 2:
                    start, end = mapped(node.args[0]), mapped(node.args[1])
                    span = ast.BinOp(left=end, op=ast.Sub(), right=start)
                    out.append(Constraint(ast.Compare(left=end, ops=[ast.Gt()], comparators=[start]), g,
                                          f"arange({dotted(node.args[0])}, {dotted(node.args[1])}) not empty"))
                    out.append(Constraint(ast.Call(func=ast.Name(id="__pow2__", ctx=ast.Load()), args=[span],
                                                   keywords=[]), g,
                                          f"arange({dotted(node.args[0])}, {dotted(node.args[1])}) a power of two"))
                elif isinstance(node.func, ast.Name) and node.func.id in helpers and depth < 3 \
                        and node.func.id != fn.name:
                    inner = helpers[node.func.id].node
                    names = [a.arg for a in params_of(inner)]
                    call_map: dict[str, ast.expr] = {}
                    for i, arg in enumerate(node.args):
                        if i < len(names) and not isinstance(arg, ast.Starred):
                            call_map[names[i]] = mapped(arg)
                    for kw in node.keywords:
                        if kw.arg is not None:
                            call_map[kw.arg] = mapped(kw.value)
                    pos = [*inner.args.posonlyargs, *inner.args.args]
                    for a, d in zip(pos[len(pos) - len(inner.args.defaults):], inner.args.defaults):
                        call_map.setdefault(a.arg, d)
                    tiles: dict[str, Shape] = {}
                    for i, arg in enumerate(node.args):
                        shape = shape_of(arg, fn, scalars) if i < len(names) else None
                        if shape:  # a tile (a scalar's empty shape says nothing a helper reads)
                            tiles[names[i]] = [mapped(e) for e in shape]
                    _collect(inner, helpers, call_map, g, out, depth + 1, tiles)
            if isinstance(stmt, (ast.For, ast.While, ast.With)):
                visit(stmt.body, g)
                visit(getattr(stmt, "orelse", []), g)

    visit(fn.body, guards)


def _header(stmt: ast.stmt) -> ast.AST:
    """The part of a compound statement outside its body (a loop's iterable, a with's items)."""
    if isinstance(stmt, ast.For):
        return stmt.iter
    if isinstance(stmt, ast.While):
        return stmt.test
    if isinstance(stmt, ast.With):
        return ast.Tuple(elts=[i.context_expr for i in stmt.items], ctx=ast.Load())
    return stmt


def constraints_of(fn: ast.FunctionDef, helpers: dict[str, Any]) -> list[Constraint]:
    out: list[Constraint] = []
    _collect(fn, helpers, {}, (), out, 0)
    return out


def locals_of(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    """Locals assigned once at the kernel's top level (`is_mx = WMxScale is not None`): a guard reads them."""
    seen: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            seen.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            seen.setdefault(node.target.id, []).append(node.value)  # `X: tl.constexpr = MXFP_BLOCK_SIZE`
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            seen.setdefault(node.target.id, []).extend([node.value, node.target])  # changes: no constant
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def module_constants(source: str) -> dict[str, ast.expr]:
    """Top-level names the generated module binds to a literal (`MXFP_BLOCK_SIZE = tl.constexpr(32)`,
    constants copied from the kernel's own and sibling modules): a constraint or a guard may read them."""
    out: dict[str, ast.expr] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    # Top level, or inside the `try:` the extractor wraps a copied constant in; never a function's body.
    top = [n for stmt in tree.body for n in ([stmt] if not isinstance(stmt, ast.Try) else stmt.body)]
    assigned: dict[str, int] = {}
    for node in top:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    assigned[t.id] = assigned.get(t.id, 0) + 1
    for node in top:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and assigned.get(t.id, 0) > 1
                                                for t in node.targets):
            continue  # bound twice: which one holds is not a literal question
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) and node.value is not None else None
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not isinstance(target, ast.Name) or value is None:
            continue
        if isinstance(value, ast.Call) and call_name(value) == "constexpr" and len(value.args) == 1:
            value = value.args[0]
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, str, bool)):
            out[target.id] = value
    return out


_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
        ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.Div: operator.truediv}
_CMP: dict[type, Callable[[Any, Any], Any]] = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
        ast.GtE: operator.ge, ast.Is: lambda a, b: a == b if isinstance(a, DType) else a is b,
        ast.IsNot: lambda a, b: a != b if isinstance(a, DType) else a is not b}


# The num_warps of the witness's launches (it passes none: Triton's default), which
# `tl.extra.cuda.num_warps()` returns (the interpreter's shim in verify/interpreter_compat.py).
LAUNCH_NUM_WARPS = 4
_CUDA_EXTRA = ("tl.extra.cuda.", "triton.language.extra.cuda.", "extra.cuda.", "cuda.")


def evaluate(expr: ast.expr, env: dict[str, Any], local: dict[str, ast.expr], depth: int = 0) -> Any:
    """The value of a constexpr expression under `env`; Unknown when it reads anything else."""
    if depth > 40:
        raise Unknown("too deep")

    def ev(e: ast.expr) -> Any:
        return evaluate(e, env, local, depth + 1)

    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Name):
        if expr.id in env:
            value = env[expr.id]
            if value is ABSENT:
                return None
            return DType(value["dtype"]) if isinstance(value, dict) and "dtype" in value else value
        if expr.id in local:
            return ev(local[expr.id])
        if expr.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[expr.id]
        raise Unknown(expr.id)
    if isinstance(expr, ast.Attribute):
        if dotted(expr.value) in ("tl", "triton.language", "language") and expr.attr[:1].islower() \
                and any(ch.isdigit() for ch in expr.attr):
            return DType(expr.attr)
        raise Unknown(dotted(expr))
    if isinstance(expr, ast.BinOp) and type(expr.op) in _BIN:
        a, b = ev(expr.left), ev(expr.right)
        if not all(isinstance(x, (int, float)) for x in (a, b)):
            raise Unknown("operands")
        try:
            return _BIN[type(expr.op)](a, b)
        except (ZeroDivisionError, ValueError, OverflowError) as error:
            raise Unknown(str(error)) from error
    if isinstance(expr, ast.UnaryOp):
        v = ev(expr.operand)
        if v is PRESENT:
            raise Unknown("a runtime value")
        if isinstance(expr.op, ast.Not):
            return not v
        if isinstance(expr.op, ast.USub) and isinstance(v, (int, float)):
            return -v
        raise Unknown("unary")
    if isinstance(expr, ast.BoolOp):
        unknown = False
        for value in expr.values:
            try:
                v = ev(value)
            except Unknown:
                unknown = True
                continue
            if isinstance(expr.op, ast.Or) and v:
                return v
            if isinstance(expr.op, ast.And) and not v:
                return v
        if unknown:
            raise Unknown("bool")
        return isinstance(expr.op, ast.And)
    if isinstance(expr, ast.Compare):
        left = ev(expr.left)
        for op, right_node in zip(expr.ops, expr.comparators):
            right = ev(right_node)
            if type(op) not in _CMP:
                raise Unknown("compare")
            if (left is PRESENT or right is PRESENT) and not isinstance(op, (ast.Is, ast.IsNot)):
                raise Unknown("a runtime value")  # only whether it is None is known
            try:
                ok = _CMP[type(op)](left, right)
            except TypeError as error:
                raise Unknown(str(error)) from error
            if not ok:
                return False
            left = right
        return True
    if isinstance(expr, ast.IfExp):
        return ev(expr.body) if ev(expr.test) else ev(expr.orelse)
    if isinstance(expr, ast.Call):
        name = call_name(expr)
        args = [ev(a) for a in expr.args]
        if name == "__pow2__" and len(args) == 1 and isinstance(args[0], int):
            return args[0] > 0 and args[0] & (args[0] - 1) == 0
        if name == "cdiv" and len(args) == 2 and all(isinstance(a, int) for a in args) and args[1]:
            return -(-args[0] // args[1])
        if name in ("min", "max", "minimum", "maximum") and args and all(isinstance(a, (int, float)) for a in args):
            return min(args) if name in ("min", "minimum") else max(args)
        if name in ("num_warps", "num_threads") and not args and dotted(expr.func).startswith(_CUDA_EXTRA):
            # The witness launches without a num_warps option: Triton's default, 4 warps of 32 threads.
            return LAUNCH_NUM_WARPS * (32 if name == "num_threads" else 1)
        if name == "next_power_of_2" and len(args) == 1 and isinstance(args[0], int):
            return 1 << max(0, args[0] - 1).bit_length()
        raise Unknown(name)
    raise Unknown(type(expr).__name__)


def holds(c: Constraint, env: dict[str, Any], local: dict[str, ast.expr]) -> bool:
    """False only when the constraint applies (no guard known false) and its test is known false."""
    for g in c.guards:
        try:
            if not evaluate(g, env, local):
                return True
        except Unknown:
            continue  # a runtime branch: Triton compiles both sides, so the assertion applies
    try:
        return bool(evaluate(c.test, env, local))
    except Unknown:
        return True


def broken(cs: list[Constraint], env: dict[str, Any], local: dict[str, ast.expr]) -> list[Constraint]:
    return [c for c in cs if not holds(c, env, local)]


def _candidates(name: str, current: Any, c: Constraint) -> list[Any]:
    literals = [n.value for n in ast.walk(c.test) if isinstance(n, ast.Constant)]
    if isinstance(current, bool):
        return [not current]
    if isinstance(current, dict) and "dtype" in current:
        return [{"dtype": n.attr} for n in ast.walk(c.test) if isinstance(n, ast.Attribute)
                and dotted(n.value) in ("tl", "triton.language") and n.attr != current["dtype"]]
    if current is PRESENT:
        return [ABSENT]
    if current is ABSENT:
        return [PRESENT]
    if isinstance(current, str) or current is None:
        return [v for v in literals if isinstance(v, str) or v is None] + ([None] if current is not None else [])
    if isinstance(current, int):
        ints = [v for v in literals if isinstance(v, int) and not isinstance(v, bool) and v > 0]
        pool = sorted(set(POWERS + ints + [2 * v for v in ints]), key=lambda v: (abs(v - current), -v))
        return [v for v in pool if v != current]
    return []


def satisfy(cs: list[Constraint], env: dict[str, Any], free: list[str],
            local: dict[str, ast.expr]) -> tuple[dict[str, Any], list[Constraint]]:
    """`env` with free names changed, one at a time and greedily, until fewer constraints break;
    returns the new values and the constraints still broken."""
    env = dict(env)
    bad = broken(cs, env, local)
    for _ in range(MAX_ROUNDS):
        if not bad:
            break
        best: tuple[int, str, Any] | None = None
        for c in bad:
            for name in [n for n in free if n in c.names() or n in _local_names(c, local)]:
                for value in _candidates(name, env.get(name), c):
                    trial = {**env, name: value}
                    n_bad = len(broken(cs, trial, local))
                    if n_bad < len(bad) and (best is None or n_bad < best[0]):
                        best = (n_bad, name, value)
                        break  # the nearest value that helps, for this name
            if best is not None:
                break
        if best is None:
            break
        env[best[1]] = best[2]
        bad = broken(cs, env, local)
    return env, bad


def _local_names(c: Constraint, local: dict[str, ast.expr]) -> set[str]:
    out: set[str] = set()
    frontier = c.names()
    for _ in range(4):
        nxt: set[str] = set()
        for n in frontier:
            if n in local:
                nxt |= {m.id for m in ast.walk(local[n]) if isinstance(m, ast.Name)}
        out |= nxt
        frontier = nxt
    return out


def reaching(fn: ast.FunctionDef, line: int) -> list[Constraint]:
    """The branch tests a line of the kernel sits under, each as a constraint that takes its side
    (`if not IS_KDA: ... else: <line>` asks for IS_KDA): constexprs chosen elsewhere than the callers
    should let the launch reach the flagged access. Runtime tests stay unknown and ask for nothing."""
    out: list[Constraint] = []

    def visit(stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if not (stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)):
                continue
            if isinstance(stmt, ast.If):
                inside_body = any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in stmt.body)
                inside_else = any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in stmt.orelse)
                if inside_body:
                    out.append(Constraint(stmt.test, (), f"reach line {line}: {dotted(stmt.test)}"))
                    visit(stmt.body)
                elif inside_else:
                    out.append(Constraint(ast.UnaryOp(op=ast.Not(), operand=stmt.test), (),
                                          f"reach line {line}: not {dotted(stmt.test)}"))
                    visit(stmt.orelse)
            elif isinstance(stmt, (ast.For, ast.While, ast.With)):
                visit(stmt.body)
                visit(getattr(stmt, "orelse", []))
            else:  # an arm of a conditional expression (`tl.load(a) if FLAG else tl.load(b)`, one a line)
                for node in ast.walk(stmt):
                    if isinstance(node, ast.IfExp):
                        body, other = _spans(node.body, line), _spans(node.orelse, line)
                        if body and not other:
                            out.append(Constraint(node.test, (), f"reach line {line}: {dotted(node.test)}"))
                        elif other and not body:
                            out.append(Constraint(ast.UnaryOp(op=ast.Not(), operand=node.test), (),
                                                  f"reach line {line}: not {dotted(node.test)}"))

    visit(fn.body)
    return out


def _spans(node: ast.AST, line: int) -> bool:
    start: int = getattr(node, "lineno", 0)
    end: int = getattr(node, "end_lineno", None) or start
    return start <= line <= end


def branch_not_taken(fn: ast.FunctionDef, node: ast.AST, env: dict[str, Any], local: dict[str, ast.expr]) -> bool:
    """Whether `node` sits on the side of a constexpr branch (`if FLAG:` / `a if FLAG else b`) that the
    values in `env` do not take. A test that cannot be evaluated (a runtime one) takes both sides."""

    def path(at: ast.AST) -> list[ast.AST] | None:
        if at is node:
            return [at]
        for child in ast.iter_child_nodes(at):
            found = path(child)
            if found is not None:
                return [at, *found]
        return None

    chain = path(fn) or []
    for parent, child in itertools.pairwise(chain):
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            in_body = child is parent.body or (isinstance(parent.body, list) and child in parent.body)
            try:
                taken = bool(evaluate(parent.test, env, local))
            except Unknown:
                continue
            if taken != in_body:
                return True
    return False
