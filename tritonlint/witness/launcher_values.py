"""The ints a launching function's parameters take, read as text: a parameter's default and what a call of
the function passes it. One reader for the two users: the tiles the launcher gives by default
(`tile_defaults`: `def chunked(q, k, BTL=16, BTS=2 * BASE)`, and a caller's `chunked(q, k, BTS=64)`) and the
values a constexpr a loop end is computed from can take (`derived_ends`: `def hist(keys, bits=4)`, a caller's
`hist(keys, 3 if wide else 4)`).

An int is a literal (never a bool), a module number (only where the expression is evaluated at module
scope: a default), arithmetic of those, or each side of `a if c else b`."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping

from tritonlint.witness.int_literals import int_literal

NO_NUMBERS: Mapping[str, int | float] = {}
_FOLDED: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow, ast.LShift: operator.lshift,
}


def int_values(expr: ast.expr, numbers: Mapping[str, int | float] = NO_NUMBERS) -> list[int] | None:
    """The ints the expression can be (one, or one per side of a conditional), None where any part of it
    is no int: `numbers` are the module's top-level numbers, for an expression read at module scope."""
    if isinstance(expr, ast.IfExp):
        body, orelse = int_values(expr.body, numbers), int_values(expr.orelse, numbers)
        return body + orelse if body is not None and orelse is not None else None
    value = _folded(expr, numbers)
    return None if value is None else [value]


def default_values(function: ast.FunctionDef, numbers: Mapping[str, int | float]) -> dict[str, tuple[list[int], int]]:
    """Parameter -> (the ints its default can be, the parameter's line), for the defaults that read as ints
    (positional and keyword-only; folded with the module's numbers, as Python evaluates a default)."""
    positional = [*function.args.posonlyargs, *function.args.args]
    pairs = list(zip(positional[len(positional) - len(function.args.defaults):], function.args.defaults))
    pairs += [(arg, d) for arg, d in zip(function.args.kwonlyargs, function.args.kw_defaults) if d is not None]
    out: dict[str, tuple[list[int], int]] = {}
    for arg, default in pairs:
        values = int_values(default, numbers)
        if values is not None:
            out[arg.arg] = (values, arg.lineno)
    return out


def passed_argument(call: ast.Call, function: ast.FunctionDef, name: str) -> ast.expr | None:
    """What `call` (a call of `function`) passes for the parameter `name`: its positional argument where no
    `*args` comes before it, else its keyword; None where it passes none (the default then)."""
    positions = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    if name in positions:
        index = positions.index(name)
        if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _folded(node: ast.expr, numbers: Mapping[str, int | float]) -> int | None:
    """An int the expression always is: a literal (never a bool), a module number, or arithmetic of them."""
    if isinstance(node, ast.Constant):
        return int_literal(node)
    if isinstance(node, ast.Name):
        number = numbers.get(node.id)
        return number if isinstance(number, int) and not isinstance(number, bool) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDED:
        left, right = _folded(node.left, numbers), _folded(node.right, numbers)
        if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0) \
                or (isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= right <= 16):
            return None
        return _FOLDED[type(node.op)](left, right)
    return None
