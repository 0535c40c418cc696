"""An int literal in the host's or the kernel's text: `16`, never `True` (a bool is an int to Python, never a
size to a launch). The one test the witness's readers of literals share."""

from __future__ import annotations

import ast


def int_literal(node: ast.AST | None) -> int | None:
    """The value of `node` where it is an int constant (not a bool), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None
