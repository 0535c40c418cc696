"""The name a call is known by in the synthesizer's readings of a kernel: one spelling for every module."""

from __future__ import annotations

import ast


def call_name(node: ast.AST) -> str:
    """The last name of a call's callee (`load` of `tl.load(...)`); "" for anything that is not a call of a
    name or an attribute (`fns[0](x)`, `make()(x)`): no callee the synthesizer knows is spelt that way."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
