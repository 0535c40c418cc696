"""The end of a program's own tile as a loop bound: `(start_m + 1) * BLOCK_M`, where `start_m` is a
program id. A loop up to it walks the same size as that program axis (a causal attention loop walks
the keys up to the last query of its tile), so the tensor it walks holds that size, not one tile."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any


def tile_end_walk(pid_axis: Callable[[ast.expr], int | None], end: ast.expr) -> Any:
    """("axis", a, TILE) when `end` is `(pid + 1) * TILE` (either order), pid the id of program axis a
    (`pid_axis`: the kernel's reading of which program axis an expression is the id of)."""
    if not (isinstance(end, ast.BinOp) and isinstance(end.op, ast.Mult)):
        return None
    for start, tile in ((end.left, end.right), (end.right, end.left)):
        if not isinstance(tile, ast.Name):
            continue
        if isinstance(start, ast.BinOp) and isinstance(start.op, ast.Add) \
                and isinstance(start.right, ast.Constant) and start.right.value == 1:
            axis = pid_axis(start.left)
            if axis is not None:
                return ("axis", axis, tile.id)
    return None
