"""Rows of a tensor picked by indices the kernel loads (`src = tl.load(idx + i)`, then `inp + src * stride`).

The witness fills an index tensor 0, 1, 2, ... (from its first valid index), one value per entry, so the
rows it gathers run up to the index tensor's length: the gathered tensor must hold that many rows, or a
full-tile control reads rows the launch never laid out (the row bound the kernel's own indexing gives,
the count of positions the index is read at, is not the count of rows it names)."""

from __future__ import annotations

import ast

from tritonlint.witness.uses import Uses, factors_of


def index_loads(uses: Uses, pointers: list[str]) -> dict[str, str]:
    """Local -> the index pointer it is loaded through (`src = tl.load(idx + i)`), for the pointers whose
    values the kernel uses as indices. Computed once per synthesis: `loaded_as_index` follows locals deep."""
    loaded: dict[str, str] = {}
    looped = _assigned_in_loops(uses.fn)
    for q in pointers:
        if uses.loaded_as_index(q):
            loaded.update({name: q for name in uses._loaded_names(q) if name in looped})
    return loaded


def _assigned_in_loops(fn: ast.AST) -> set[str]:
    """Names assigned inside a loop of the kernel. An index loaded in a loop (`for k in range(topk): src =
    tl.load(idx + tok * topk + k)`) names many rows per program, beyond the rows the kernel's own indexing
    counts; one loaded once per program (`slot = tl.load(slots + seq)`) names the row of the program that
    reads it, which the per-program row count already holds: sizing its tensor for every row the fill names
    would give the last row read room to overrun into, and hide the tail's overrun."""
    names: set[str] = set()
    for loop in ast.walk(fn):
        if isinstance(loop, (ast.For, ast.While)):
            for node in ast.walk(loop):
                if isinstance(node, ast.Assign):
                    names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def gathered_terms(uses: Uses, exprs: list[ast.expr], loaded: dict[str, str]) -> list[tuple[str | None, str]]:
    """(the row stride it is scaled by, or None, the index pointer) for each term of the pointer expressions
    that is a value loaded through an index pointer (`src * inp_stride0`)."""
    out: list[tuple[str | None, str]] = []
    for expr in exprs:
        for term in uses.terms(expr):
            names = [f.id for f in factors_of(term) if isinstance(f, ast.Name)]
            index = next((loaded[n] for n in names if n in loaded), None)
            if index is not None:
                out.append((next((n for n in names if n not in loaded), None), index))
    return out


def gathered_numel(uses: Uses, p: str, exprs: list[ast.expr], numels: dict[str, int],
                   stride_values: dict[str, int], starts: dict[str, int], loaded: dict[str, str]) -> int:
    """The element count tensor `p` needs to hold every row its loaded indices name (0 if none); `starts`:
    each index pointer's first filled value."""
    need = 0
    if not loaded:
        return need
    for stride, index in gathered_terms(uses, exprs, loaded):
        if index == p or index not in numels:
            continue
        rows = numels[index] + starts.get(index, 0)
        row = stride_values.get(stride, 1) if stride is not None else 1
        need = max(need, rows * max(1, row))
    return need
