"""The size a loop walks, for an unmasked access whose offsets nothing bounds.

An access with no mask at all (`tl.load(ScalePtrs)`, its pointer tile advanced a tile a step by the
loop around it) gives the synthesizer no comparison to read the walked size from, and the sizes it
then tries in the kernel's parameter order (M before K) launch partial tiles the access never walks.
The loop that advances it says which size it walks: `for k in range(K, 0, -BLOCK_K)` or
`for k in range(0, tl.cdiv(K, BLOCK_K))` walks K. The innermost loop around the flagged line that
reads a size in its range is taken.
"""

from __future__ import annotations

import ast


def loop_sizes(fn: ast.FunctionDef, line: int, sizes: set[str]) -> list[str]:
    """The sizes the range of the innermost `for` loop around `line` reads, in the order it reads them."""
    found: list[str] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.For) and node.body and node.body[0].lineno <= line <= (node.end_lineno or 0):
            names = [n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name) and n.id in sizes]
            if names:  # ast.walk is breadth-first: a loop nested inside comes later and wins
                found = list(dict.fromkeys(names))
    return found
