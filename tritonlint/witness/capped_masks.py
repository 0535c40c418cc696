"""A mask that caps an inclusive bound with an exclusive one on the same offsets
(`(slots <= pos) & (slots < CAP)`): the exclusive term is the kernel's word on where the tensor the
access reaches ends. The inclusive term alone lets lane `pos` through; the cap stops it at `CAP`, so
the tensor holds `CAP` entries, whatever bound another access puts on the same offsets
(`slots < pos` on the history beside it)."""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name
from tritonlint.witness.uses import Uses


def capped_ends(uses: Uses, pointer: str) -> dict[str, str]:
    """Inclusive bound -> the exclusive cap beside it, over the accesses through `pointer` whose mask
    joins `v <= a` and `v < C` with `&` on the same offsets `v` (names, or C a literal)."""
    out: dict[str, str] = {}
    for node in ast.walk(uses.fn):
        if not (isinstance(node, ast.Call) and call_name(node) in ("load", "store") and node.args):
            continue
        if uses.root(node.args[0]) != pointer:
            continue
        at = 1 if call_name(node) == "load" else 2
        mask = next((k.value for k in node.keywords if k.arg == "mask"),
                    node.args[at] if len(node.args) > at else None)
        if mask is None:
            continue
        inclusive: dict[str, str] = {}
        exclusive: dict[str, str] = {}
        for term in _conjuncts(mask):
            bound = _upper(term)
            if bound is not None:
                offset, end, strict = bound
                (exclusive if strict else inclusive)[offset] = end
        for offset, end in inclusive.items():
            if offset in exclusive:
                out[end] = exclusive[offset]
    return out


def _conjuncts(mask: ast.expr) -> list[ast.expr]:
    if isinstance(mask, ast.BinOp) and isinstance(mask.op, ast.BitAnd):
        return _conjuncts(mask.left) + _conjuncts(mask.right)
    return [mask]


def _upper(term: ast.expr) -> tuple[str, str, bool] | None:
    """(offsets, end, exclusive) of `v < end` / `v <= end` with a bare name on each side (or a literal end)."""
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1 and isinstance(term.ops[0], (ast.Lt, ast.LtE))):
        return None
    left, right = term.left, term.comparators[0]
    while isinstance(left, ast.Subscript):
        left = left.value
    if not isinstance(left, ast.Name):
        return None
    if isinstance(right, ast.Name):
        end = right.id
    elif isinstance(right, ast.Constant) and isinstance(right.value, int) and not isinstance(right.value, bool):
        end = str(right.value)
    else:
        return None
    return left.id, end, isinstance(term.ops[0], ast.Lt)
