"""Module-level integer constants of host code (`_BLOCK_K = 64`, `_QUERY_DIM = _LATENT_DIM + _ROPE_DIM`):
the literal a launch argument stands for when it names one.

Read with `ast`, never run. A name counts only when the module binds it once, at its top level, to
an integer built from literals and earlier constants (`+ - * // % << >> **`), and no function
declares it `global` (which could rebind it). A function's own binding or parameter of that name
shadows it: the caller checks that before asking here.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping

from tritonlint.source.imports import statements_breadth_first

_OPS: Mapping[type[ast.operator], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.Pow: operator.pow,
}


def module_constants(tree: ast.Module) -> dict[str, int]:
    """Name -> value of each integer constant the module binds once at its top level."""
    bound: dict[str, int] = {}  # every name bound anywhere at module level, with its binding count
    for statement in tree.body:
        for node in _module_level(statement):
            for name in _bound_names(node):
                bound[name] = bound.get(name, 0) + 1
    # (`global` is a statement: a walk of statements finds every one, without the expressions)
    rebound = {name for node in statements_breadth_first(tree) if isinstance(node, ast.Global) for name in node.names}
    constants: dict[str, int] = {}
    for statement in tree.body:
        target, value = _single_assignment(statement)
        if target is None or value is None or bound.get(target) != 1 or target in rebound:
            continue
        evaluated = _evaluate(value, constants)
        if evaluated is not None:
            constants[target] = evaluated
    return constants


def _single_assignment(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id, statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
        return statement.target.id, statement.value
    return None, None


def _module_level(statement: ast.stmt) -> list[ast.AST]:
    """The statement and what it holds at module level: not the bodies of functions or classes."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _bound_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return []


def _evaluate(node: ast.expr, constants: Mapping[str, int]) -> int | None:
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _evaluate(node.operand, constants)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _evaluate(node.left, constants), _evaluate(node.right, constants)
        if left is None or right is None:
            return None
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            return None
        if isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= right <= 64:
            return None  # a huge power is no tile size, and costs time
        if isinstance(node.op, ast.RShift) and right < 0:
            return None
        return _OPS[type(node.op)](left, right)
    return None
