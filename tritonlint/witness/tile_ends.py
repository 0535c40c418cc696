"""The end of a program's own tile as a loop bound: `(start_m + 1) * BLOCK_M`, where `start_m` is a
program id. A loop up to it walks the same size as that program axis (a causal attention loop walks
the keys up to the last query of its tile), so the tensor it walks holds that size, not one tile."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tritonlint.witness.uses import Uses


def tile_end_walk(uses: Uses, end: ast.expr) -> Any:
    """("axis", a, TILE) when `end` is `(pid + 1) * TILE` (either order), pid the id of program axis a."""
    if not (isinstance(end, ast.BinOp) and isinstance(end.op, ast.Mult)):
        return None
    for start, tile in ((end.left, end.right), (end.right, end.left)):
        if not isinstance(tile, ast.Name):
            continue
        if isinstance(start, ast.BinOp) and isinstance(start.op, ast.Add) \
                and isinstance(start.right, ast.Constant) and start.right.value == 1:
            axis = uses.pid_axis(start.left)
            if axis is not None:
                return ("axis", axis, tile.id)
    return None
