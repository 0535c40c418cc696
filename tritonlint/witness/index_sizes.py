"""Sizes a kernel only uses to split a program id into indices (`off_b = off_hb // nheads`,
`off_h = off_hb % nheads`): a count of rows, never an extent an offset is compared with.

The launch's grid already decides how many such rows run (a row axis gets a couple of programs), so a
large value buys no coverage; it only multiplies every buffer that holds all the rows (`nheads` 256
made flash attention's Q 42 million elements per launch, and every run ran past its time limit).
"""

from __future__ import annotations

import ast

ROW_COUNT = 2  # as many rows as a row axis runs programs (synth.ROW_PROGRAMS)


def index_only_sizes(fn: ast.FunctionDef, sizes: set[str]) -> set[str]:
    """The sizes whose every read in `fn` is the right operand of `//` or `%`."""
    divisors: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod)) \
                and isinstance(node.right, ast.Name) and node.right.id in sizes:
            divisors.add(id(node.right))
    out: set[str] = set()
    for name in sizes:
        reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if reads and all(id(n) in divisors for n in reads):
            out.add(name)
    return out
