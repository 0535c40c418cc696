"""Groups inside a tile: one E8M0 scale per MX_BLOCK elements of a K tile (`arange(0, BLOCK_K // MX_BLOCK)`,
or a local holding that count, `GROUPS_K: tl.constexpr = BLOCK_K // 32`).

A partial K tile runs past the last group there is only when a tile holds more than one group: the
synthesizer keeps the count above one, and walks K in tiles of the dividend (BLOCK_K), not of the count.
"""

from __future__ import annotations

import ast
from typing import Any

from tritonlint.witness.uses import Uses


def one_tile(bound: Any) -> bool:
    """Whether a bound is a single tile's span (`("tile", BLOCK_N)`), not a size's."""
    return isinstance(bound, tuple) and bound[0] == "tile"


def per_tile(fn: ast.FunctionDef, tile: str | None) -> str | None:
    """The constexpr a tile local divides (`PACKED_MX_BLOCK: tl.constexpr = BLOCK_K // 32` -> BLOCK_K)."""
    if tile is None:
        return None
    for node in ast.walk(fn):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id == tile and isinstance(value, ast.BinOp) \
                and isinstance(value.op, ast.FloorDiv) and isinstance(value.left, ast.Name):
            return value.left.id
    return None


def divides_a_tile(uses: Uses, name: str) -> bool:
    """Whether the constexpr divides a tile (`BLOCK_K // MX_BLOCK`: E8M0 scales per K tile; `GROUPS =
    BLOCK_K // name` in a local's definition): a group inside the tile. As large as the tile, the tile
    holds one group and the count of groups is whole whatever the size; smaller, a partial tile's groups
    run past the last one the size has. A divisor of another constexpr counts always; a divisor of any
    other name only where it is never a tile's own length (`tl.arange(0, name)`)."""
    lengths = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "arange"
                  and any(isinstance(a, ast.Name) and a.id == name for a in node.args) for node in ast.walk(uses.fn))
    return any(isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) and isinstance(node.right, ast.Name)
               and node.right.id == name and isinstance(node.left, ast.Name) and node.left.id != name
               and (node.left.id in uses.constexprs or not lengths) for node in ast.walk(uses.fn))