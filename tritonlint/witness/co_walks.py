"""Smaller tiles walking the finding's size beside its own: `o_t = i_c * BTL + tl.arange(0, BTL)` masked by
`o_t < T`, where the finding walks T in tiles of BTS (`for i_s in range(0, i_c * BTL, BTS)`). Each program's
chunk starts at a whole number of BTL, which is no whole number of BTS when BTL < BTS: the finding's walk,
stopped at the chunk's start, straddles a size one element past a whole number of BTL (T = BTL + 1), while
the usual sizes (whole numbers of BTS, plus half of one or one element) may all end on a BTS boundary.

Only with the tiles' values known and different: under guessed tiles (all alike) there is no such size."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from tritonlint.witness.call_names import call_name


def smaller_co_tiles(uses: Any, axis: str, tile: int, consts: Mapping[str, Any], sizes: set[str]) -> list[int]:
    """The values, below `tile`, of the constexpr tiles of the kernel's other offsets bounded by `axis`
    (`tl.arange(0, X)` in a local that a comparison bounds by that size), smallest first."""
    found: set[int] = set()
    for name, values in uses.defs.items():
        if len(values) != 1:
            continue
        tiles = {c.args[1].id for c in ast.walk(values[0]) if isinstance(c, ast.Call) and call_name(c) == "arange"
                 and len(c.args) == 2 and isinstance(c.args[1], ast.Name)}
        for tile_name in tiles:
            value = consts.get(tile_name)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 < value < tile:
                continue
            if uses.bound(ast.Name(id=name, ctx=ast.Load()), sizes) == ("size", axis):
                found.add(value)
    return sorted(found)


def chunk_loop_size(uses: Any, line: int, sizes: set[str]) -> str | None:
    """The size the innermost loop around `line` walks up to a chunk's start: its range reads `i_c * BTL`,
    the start of another offset of the kernel (`o_t = i_c * BTL + tl.arange(0, BTL)`) that a comparison
    bounds by a size (`o_t < T`): the loop's tiles lie below T, and the tensor it walks holds T along it."""
    found: str | None = None
    for node in ast.walk(uses.fn):
        if not (isinstance(node, ast.For) and node.body and node.body[0].lineno <= line <= (node.end_lineno or 0)):
            continue
        starts = {ast.dump(m) for m in ast.walk(node.iter) if isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult)}
        found = None  # ast.walk is breadth-first: a loop nested inside comes later and wins
        for name, values in uses.defs.items():
            if len(values) == 1 and isinstance(values[0], ast.BinOp) and isinstance(values[0].op, ast.Add) \
                    and ast.dump(values[0].left) in starts and _tile_lanes(values[0].right):
                bound = uses.bound(ast.Name(id=name, ctx=ast.Load()), sizes)
                found = bound[1] if bound and bound[0] == "size" else found
    return found


def _tile_lanes(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and call_name(node) == "arange"
