"""The shape of a tile handed to a jit helper, in the caller's constexpr names, and what a helper asks of it.

A helper may constrain the tile it is given rather than a constexpr it is passed:
`LANES: tl.constexpr = tile.shape[1]` then `tl.static_assert(LANES % 64 == 0)`, or
`tile.reshape(ROWS // GROUPS, GROUPS, ...)`, which only compiles when the new shape holds as many
elements as the tile. Read with the tile's shape unknown, those constraints ask for nothing, and the
synthesizer launches values the kernel rejects (an `AssertionError` of the interpreter, or a reshape
of 0 rows). Here a tile argument's shape is read from the caller's syntax (`tl.arange` extents,
`[:, None]` broadcasts, arithmetic, `tl.load` of a pointer tile, `tl.zeros((A, B))`), each extent an
expression in the caller's names, so a helper's `x.shape[i]` can be replaced by it; and a reshape of a
parameter the helper has not yet reassigned is read as a constraint: the element counts agree.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from tritonlint.witness.call_names import call_name

Shape = list[ast.expr]

# Calls whose result has the shape of their first argument (a load of a pointer tile, a cast, a math op).
_SAME_SHAPE = {"load", "to", "abs", "exp", "exp2", "log", "log2", "sqrt", "sigmoid", "cast", "where"}


def _assignments(fn: ast.FunctionDef) -> dict[str, list[ast.expr]]:
    """Every value bound to each local by `=` (an augmented assignment keeps a tile's shape: not listed)."""
    out: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out.setdefault(node.target.id, []).append(node.value)
    return out


def _is_one(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value == 1


def _broadcast(a: Shape, b: Shape) -> Shape | None:
    if not a:
        return b
    if not b:
        return a
    if len(a) != len(b):
        return None
    # Two extents that both differ from 1 must agree for the kernel to compile: either names them.
    return [y if _is_one(x) else x for x, y in zip(a, b)]


def shape_of(expr: ast.expr, fn: ast.FunctionDef, scalars: set[str], depth: int = 0) -> Shape | None:
    """The shape of `expr` in `fn`, each extent an expression in `fn`'s names; [] for a scalar (a
    parameter in `scalars`, a literal); None where the syntax does not say.

    One question reads `fn`'s assignments once, and each (node, depth) it meets once: a kernel that rebinds
    its accumulators in a loop (`acc = acc * alpha + ...`, each read again through every binding) asked
    1.4 million times, each walking `fn` anew, and took minutes. The answer at a (node, depth) depends on
    nothing else here, so it is the same however often it is asked; callers copy extents before changing them."""
    return _ShapeReading(fn, scalars).shape(expr, depth)


class _ShapeReading:
    """One `shape_of` question: `fn`'s assignments, and the shapes found so far by (node id, depth); the
    nodes are `fn`'s own, alive while it is, so no id is reused meanwhile."""

    def __init__(self, fn: ast.FunctionDef, scalars: set[str]) -> None:
        self.scalars = scalars
        self.assignments = _assignments(fn)
        self.found: dict[tuple[int, int], Shape | None] = {}

    def shape(self, expr: ast.expr, depth: int) -> Shape | None:
        key = (id(expr), depth)
        if key not in self.found:
            self.found[key] = self._shape(expr, depth)
        known = self.found[key]
        return None if known is None else list(known)

    def _shape(self, expr: ast.expr, depth: int) -> Shape | None:
        if depth > 20:
            return None

        def rec(e: ast.expr) -> Shape | None:
            return self.shape(e, depth + 1)

        return _shape_here(expr, self.scalars, self.assignments, rec)


def _shape_here(expr: ast.expr, scalars: set[str], assignments: dict[str, list[ast.expr]],
                rec: Callable[[ast.expr], Shape | None]) -> Shape | None:
    """`expr`'s shape from the shapes `rec` gives of its parts."""
    if isinstance(expr, ast.Constant):
        return []
    if isinstance(expr, ast.Name):
        if expr.id in scalars:
            return []
        values = assignments.get(expr.id, [])
        shapes = [rec(v) for v in values]
        known = [s for s in shapes if s is not None]
        # A local rebound to tiles of one shape (a pointer tile advanced, a mask rebuilt) keeps it.
        if known and len(known) == len(shapes) and all(ast.dump(ast.Tuple(elts=s)) == ast.dump(ast.Tuple(elts=known[0]))
                                                      for s in known):
            return known[0]
        return None
    if isinstance(expr, ast.BinOp):
        left, right = rec(expr.left), rec(expr.right)
        return None if left is None or right is None else _broadcast(left, right)
    if isinstance(expr, ast.UnaryOp):
        return rec(expr.operand)
    if isinstance(expr, ast.Compare) and len(expr.comparators) == 1:
        left, right = rec(expr.left), rec(expr.comparators[0])
        return None if left is None or right is None else _broadcast(left, right)
    if isinstance(expr, ast.Subscript):
        return _indexed(rec(expr.value), expr.slice)
    if isinstance(expr, ast.Call):
        name = call_name(expr)
        if name in ("program_id", "num_programs", "cdiv"):
            return []  # a scalar per program
        if name == "arange" and len(expr.args) == 2:
            return [ast.BinOp(left=copy.deepcopy(expr.args[1]), op=ast.Sub(), right=copy.deepcopy(expr.args[0]))]
        if name in ("zeros", "full", "empty") and expr.args and isinstance(expr.args[0], (ast.Tuple, ast.List)):
            return [copy.deepcopy(e) for e in expr.args[0].elts]
        if name in _SAME_SHAPE:
            # `x.to(dtype)` has the shape of `x`; `tl.load(p)` of `p`; `tl.where(c, a, b)` of `a` here.
            first = expr.func.value if isinstance(expr.func, ast.Attribute) and name == "to" else \
                (expr.args[1] if name == "where" and len(expr.args) > 1 else (expr.args[0] if expr.args else None))
            return rec(first) if first is not None else None
    return None


def _indexed(shape: Shape | None, index: ast.expr) -> Shape | None:
    """`x[:, None]`: a slice keeps an extent, None adds one of 1; anything else is not read."""
    if shape is None:
        return None
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    out: Shape = []
    rest = list(shape)
    for item in items:
        if isinstance(item, ast.Constant) and item.value is None:
            out.append(ast.Constant(value=1))
        elif isinstance(item, ast.Slice) and item.lower is None and item.upper is None and item.step is None:
            if not rest:
                return None
            out.append(rest.pop(0))
        else:
            return None
    return out + rest


def shape_reads(node: ast.Subscript, shapes: dict[str, Shape]) -> ast.expr | None:
    """The extent `param.shape[i]` names, where the caller's tile for `param` has a known shape."""
    value = node.value
    if not (isinstance(value, ast.Attribute) and value.attr == "shape" and isinstance(value.value, ast.Name)
            and value.value.id in shapes and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)):
        return None
    shape, i = shapes[value.value.id], node.slice.value
    return copy.deepcopy(shape[i]) if -len(shape) <= i < len(shape) else None


def reshapes(fn: ast.FunctionDef, params: set[str]) -> list[tuple[ast.Call, str, list[ast.expr]]]:
    """`p.reshape(a, b, ...)` / `tl.reshape(p, (a, b, ...))` of a parameter `p` not rebound before it
    (on an earlier line): the call, the parameter and the new extents."""
    rebound: dict[str, int] = {}
    for node in ast.walk(fn):
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if isinstance(t, ast.Name) and t.id in params:
                rebound[t.id] = min(rebound.get(t.id, node.lineno), node.lineno)
    out = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and call_name(node) == "reshape"):
            continue
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            target, dims = node.func.value.id, list(node.args)
        elif len(node.args) >= 2 and isinstance(node.args[0], ast.Name):
            target, dims = node.args[0].id, list(node.args[1:])
        else:
            continue
        if len(dims) == 1 and isinstance(dims[0], (ast.Tuple, ast.List)):
            dims = list(dims[0].elts)
        if target in params and node.lineno <= rebound.get(target, node.lineno) \
                and not any(isinstance(d, ast.Starred) for d in dims):
            out.append((node, target, dims))
    return out


def product(extents: list[ast.expr]) -> ast.expr:
    out: ast.expr = ast.Constant(value=1)
    for e in extents:
        out = ast.BinOp(left=out, op=ast.Mult(), right=copy.deepcopy(e))
    return out


def arange_extents(fn: ast.FunctionDef) -> set[str]:
    """Constexprs a `tl.arange(0, NAME)` of `fn` spans: the tiles the launch's sizes are built on. To keep
    an assertion, changing one of them moves every extent laid out in it (a tile wider than the size
    chosen for it); a constexpr that spans no range (a group count of a reshape) is changed first."""
    return {a.args[1].id for a in ast.walk(fn) if isinstance(a, ast.Call) and call_name(a) == "arange"
            and len(a.args) == 2 and isinstance(a.args[1], ast.Name)}
