"""A grid axis the host spells as arithmetic of what it passes: `(triton.cdiv(T, BTL) * NH,)`, where the
kernel splits the program id itself (`pid // NH, pid % NH`, in a jit helper) and no axis reads as one size's
tiles. Its number of programs is that expression at the launch's values: each name the host passes the
kernel (`T=T`) takes the value the launch gives the parameter."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any


def grid_programs(text: str, launch_args: Mapping[str, str], values: Mapping[str, Any]) -> int | None:
    """The expression's value, or None where it names something the launch does not pass as a kernel
    argument with an int value here, or calls anything but `cdiv`."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    by_text = {host.strip(): param for param, host in launch_args.items()}
    return _value(tree, by_text, values)


def _value(node: ast.expr, by_text: Mapping[str, str], values: Mapping[str, Any]) -> int | None:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        value = values.get(by_text.get(ast.unparse(node), ""))
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.Call) and ast.unparse(node.func).rpartition(".")[2] == "cdiv" \
            and len(node.args) == 2 and not node.keywords:
        a, b = (_value(arg, by_text, values) for arg in node.args)
        return -(-a // b) if a is not None and b is not None and b > 0 else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.FloorDiv)):
        left, right = _value(node.left, by_text, values), _value(node.right, by_text, values)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Mult):
            return left * right
        return left // right if right > 0 else None
    return None
