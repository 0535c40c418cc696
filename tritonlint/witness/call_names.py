"""How the witness names what a kernel calls: one spelling for every module of the synthesizer."""

from __future__ import annotations

import ast


def dotted(node: ast.AST) -> str:
    """The source text of an expression (`tl.arange`), "" where it cannot be written back."""
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001
        return ""


def call_name(node: ast.AST) -> str:
    """The last name of the function a call calls (`tl.arange(...)` -> "arange"); "" for no call. A name or
    an attribute is read directly (the hot case); anything else is written back and cut at its last dot."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return dotted(func).split(".")[-1]
