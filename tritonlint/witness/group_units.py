"""Offsets counted in groups of a tile: one entry per group (a group scale), stepped a tile's groups at a time.

`for k in range(0, tl.cdiv(K, BLOCK_K))` walks K in tiles of BLOCK_K; `k * GROUPS_PER_TILE + offs_g`, with
`GROUPS_PER_TILE = BLOCK_K // GROUP_K`, walks the same K in groups of GROUP_K: the tensor it reads holds
`cdiv(K, GROUP_K)` entries along that dimension, not K, and the last tile's groups run past them where K is
no multiple of BLOCK_K. A group that only divides a tile is smaller than it (a quantization group): its
guessed value must leave the tile more than one group, else a partial tile has no group past the end."""

from __future__ import annotations

import ast
from typing import Any

from tritonlint.witness.call_names import call_name

GROUP_GUESS = 4  # as synth.GROUP: a group nobody sets, smaller than any tile


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return str(node.value)
    return None


def groups_per_tile(uses: Any, name: str) -> tuple[str, str] | None:
    """(tile, group) where the local is defined once as `tile // group`."""
    values = uses.defs.get(name, ())
    if len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.FloorDiv) and isinstance(value.left, ast.Name):
        group = _name(value.right)
        return (value.left.id, group) if group is not None else None
    return None


def _tiles_over(uses: Any, counter: str) -> tuple[str, str] | None:
    """(size, tile) where the loop counter counts tiles: `for k in range(0, tl.cdiv(S, T))`."""
    it = uses.loops.get(counter)
    if call_name(it) != "range" or not it.args:
        return None
    end = it.args[1] if len(it.args) >= 2 else it.args[0]
    if call_name(end) == "cdiv" and len(end.args) == 2 and isinstance(end.args[0], ast.Name) \
            and isinstance(end.args[1], ast.Name):
        return (end.args[0].id, end.args[1].id)
    return None


def group_walk(uses: Any, expr: ast.expr, sizes: set[str]) -> Any:
    """("div", ("size", S), G) where `expr` steps a loop over S in tiles of T by the tile's groups
    (`k * (T // G)`); None otherwise."""
    for node in ast.walk(expr):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
            continue
        for counter, per in ((node.left, node.right), (node.right, node.left)):
            if not (isinstance(counter, ast.Name) and isinstance(per, ast.Name)):
                continue
            tiles = _tiles_over(uses, counter.id)
            groups = groups_per_tile(uses, per.id)
            if tiles is not None and groups is not None and tiles[1] == groups[0] and tiles[0] in sizes:
                return ("div", ("size", tiles[0]), groups[1])
    return None


def _tile_of(uses: Any, term: ast.expr) -> str | None:
    """The tile a bare `tl.arange(0, T)` term (or a local holding one) spans."""
    value = term
    if isinstance(term, ast.Name) and len(uses.defs.get(term.id, ())) == 1:
        value = uses.defs[term.id][0]
    if call_name(value) == "arange" and len(value.args) == 2 and isinstance(value.args[1], ast.Name):  # type: ignore[attr-defined]
        return str(value.args[1].id)  # type: ignore[attr-defined]
    return None


def group_terms(uses: Any, terms: list[ast.expr], sizes: set[str]) -> tuple[dict[int, Any], set[int]]:
    """Of a pointer's additive terms (`k * GROUPS` and `offs_g` written apart): the bound of each term
    that steps a loop by a tile's groups, by id, and the ids of the `arange(0, GROUPS)` terms beside it,
    whose lanes lie inside that walk (one dimension of `cdiv(S, G)` entries, not two added up)."""
    walks: dict[int, Any] = {}
    pers: set[str] = set()
    for term in terms:
        if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult) and isinstance(term.left, ast.Name) \
                and isinstance(term.right, ast.Name):  # `k * GROUPS` alone, no stride beside it
            got = group_walk(uses, term, sizes)
            if got is not None:
                walks[id(term)] = got
                pers |= {n.id for n in (term.left, term.right) if isinstance(n, ast.Name) and n.id not in uses.loops}
    inside = {id(t) for t in terms if pers and _tile_of(uses, t) in pers}
    return walks, inside
