"""Numbers a module binds at its top level (`BLOCK = 128`, `NEG_INF = float("-inf")`), read from
its text with `ast`: the fixer's lane maps and the masked-lanes reading both ask."""

from __future__ import annotations

import ast
import math
from functools import lru_cache

from tritonlint.source.parsed import parse_text


@lru_cache(maxsize=16)
def module_numbers(text: str) -> dict[str, int | float]:
    """Top-level names bound to a number: `BLOCK = 128`, `NEG_INF = float("-inf")`, `EPS = -1e-6`,
    `INF: tl.constexpr = math.inf`. Read once per file text (every kernel of a file asks)."""
    try:
        tree = parse_text(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, int | float] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else (
            node.target if isinstance(node, ast.AnnAssign) else None)
        value = _number(getattr(node, "value", None))
        if isinstance(target, ast.Name) and value is not None:
            found[target.id] = value
    return found


def _number(node: ast.expr | None) -> int | float | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value  # type: ignore[return-value]  # int or float: checked above
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and \
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        try:
            return float(node.args[0].value)
        except ValueError:
            return None
    if isinstance(node, ast.Attribute) and node.attr == "inf" and isinstance(node.value, ast.Name):
        return math.inf  # `math.inf`, `np.inf`, `torch.inf`
    return None
