"""Sizes that scale where the flagged access's row starts (`z + i_bh * T * K + o_k`): an unmasked last tile
of `o_k` over-reads a row by up to a tile less one element, and that stays inside the tensor wherever another
row follows, or the row itself is longer than a tile (`T * K` elements from the last row's start). It leaves
the tensor only where the row is short: `T = 1` (one time step, a single token's decoding), which real
callers pass. The synthesizer's other sizes are two tiles or more, so its last candidate repeats its first
with these sizes at 1 (synth.py), where the kernel's own constraints allow it.

Read from the pointer of the access at the flagged line, its locals followed: a product of a program-derived
index (any name that is no size) and sizes."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from tritonlint.witness.call_names import call_name

DEPTH = 4  # locals followed from the pointer (`p_z0 = z + i_bh * T * K + o_k`)


def row_scale_sizes(fn: ast.FunctionDef, line: int, access: set[str], sizes: set[str],
                    defs: Mapping[str, Sequence[ast.expr]]) -> set[str]:
    """The sizes multiplied with an index that is no size in the pointer of an access (`access`: the
    call names) spanning `line`, read through `defs` (local -> its values)."""
    exprs = [node.args[0] for node in ast.walk(fn) if isinstance(node, ast.Call) and node.args
             and call_name(node) in access and node.lineno <= line <= (node.end_lineno or node.lineno)]
    seen: set[str] = set()
    for _ in range(DEPTH):
        names = {n.id for e in exprs for n in ast.walk(e) if isinstance(n, ast.Name)} - seen - sizes
        seen |= names
        exprs += [value for name in names for value in defs.get(name, ())]
    out: set[str] = set()
    for expr in exprs:
        for node in ast.walk(expr):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                factors = _factors(node)
                scaled = {f.id for f in factors if isinstance(f, ast.Name) and f.id in sizes}
                index = [f for f in factors if not isinstance(f, ast.Constant)
                         and not (isinstance(f, ast.Name) and f.id in sizes)]
                if scaled and index:  # a row (an index, no literal) times the sizes of a row
                    out |= scaled
    return out


def _factors(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]
