"""Sizes a kernel only adds to offsets (`o_cs = o_t + seq_offset`): a start, never an extent.

Sized like an extent (two tiles and more), such a start moves every lane past the end of a buffer
that the kernel bounds elsewhere by a size of the same order (`o_cs < N`): the full-tile control then
overruns as well, and the launch reads as one that does not match the kernel's indexing. A start of
one tile keeps the moved window inside the full-tile control's buffer and past the partial one's.
"""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name

# Calls whose arguments bound or count offsets: a size read there is an extent, not a start.
_EXTENT_CALLS = {"arange", "range", "static_range", "cdiv", "minimum", "maximum", "min", "max"}


def shift_only_sizes(fn: ast.FunctionDef, sizes: set[str]) -> set[str]:
    """The sizes every read of which in `fn` is an operand of `+` or `-`, outside comparisons, loop
    bounds and the calls that take extents."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    out: set[str] = set()
    for name in sizes:
        reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if reads and all(_added(n, parents) for n in reads):
            out.add(name)
    return out


def _added(read: ast.Name, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(read))
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub))):
        return False
    child: ast.AST = read
    node: ast.AST | None = parent
    while node is not None and not isinstance(node, ast.FunctionDef):
        if isinstance(node, ast.Compare) or (isinstance(node, ast.For) and child is node.iter) \
                or (isinstance(node, ast.While) and child is node.test):
            return False
        if isinstance(node, ast.Call) and call_name(node) in _EXTENT_CALLS:
            return False
        child, node = node, parents.get(id(node))
    return True

