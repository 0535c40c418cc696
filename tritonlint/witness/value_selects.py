"""Comparisons that only choose between values inside a tile (`tl.where(d < ROT, -v, v)`): the rotated
part of a row, the causal half of a tile. They say where a part of the tile is, not where the tensor
ends, so they never size the buffer that the compared offsets index.

The comparison must be a `where` condition whose chosen values do not read the compared offsets:
`tl.where(offs < n, offs, 0)` clamps the offsets themselves, and there `offs < n` is their bound."""

from __future__ import annotations

import ast


def value_selectors(fn: ast.FunctionDef) -> dict[int, frozenset[str]]:
    """id() of each comparison in a `where` condition -> the names the `where`'s two values read."""
    out: dict[int, frozenset[str]] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and len(node.args) == 3 and _name(node.func) == "where"):
            continue
        chosen = frozenset(n.id for arm in node.args[1:] for n in ast.walk(arm) if isinstance(n, ast.Name))
        for c in ast.walk(node.args[0]):
            if isinstance(c, ast.Compare):
                out[id(c)] = chosen
    return out


def selects_only(selectors: dict[int, frozenset[str]], compare: ast.Compare, offset: str) -> bool:
    """Whether `compare` only picks values for the lanes of `offset` (a `where` condition whose values
    do not read `offset`): no bound of the tensor `offset` indexes."""
    chosen = selectors.get(id(compare))
    return chosen is not None and offset not in chosen


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
