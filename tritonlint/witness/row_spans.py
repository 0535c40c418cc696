"""Blocks of rows a pointer lays out itself: `Out + blk * (V + K) * K + rows * K + cols`.

The term `blk * (V + K) * K` steps `blk` by `V + K` rows of the row length `K` that another term of the same
pointer multiplies its row index by: the tensor holds blocks of `V + K` rows, whatever bounds `rows`
elsewhere (`is_bias = rows < V` picks lanes inside a block, it is no extent of this tensor). Read from the
pointer's syntax alone: the block term's stride is the whole product (`(V+K)*K`, not `K`), the row term's
extent is the span (`V + K`), and the program axis whose tile walks the rows covers that span.

Only a span that reads a size the launch varies: `pid * BLOCK * N` beside `offs * N` (a page of BLOCK rows
per program) is left as the dimensions read it without this.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Protocol

SPAN = "span"  # the bound kind of a row term: ("span", [part bounds], program axis or None)


class _Reader(Protocol):
    constexprs: set[str]
    defs: dict[str, list[ast.expr]]

    def tile_walk(self, expr: ast.expr) -> Any: ...


@dataclass(frozen=True)
class RowSpan:
    """One block term and the row term it spans."""

    block: int  # id() of the block term (`blk * (V + K) * K`)
    index: ast.expr  # what it steps by blocks (`blk`)
    stride: str  # its stride, the whole product (`(V+K)*K`)
    row_stride: str  # the row length both terms share (`K`)
    bound: tuple[str, list[tuple[str, Any]], int | None]  # the row term's bound: (SPAN, parts, axis)


def _factors(term: ast.expr) -> list[ast.expr]:
    if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult):
        return _factors(term.left) + _factors(term.right)
    return [term]


def _summands(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _summands(node.left) + _summands(node.right)
    return [node]


def _part(node: ast.expr, scalars: set[str], sizes: set[str]) -> tuple[str, Any] | None:
    """The bound one summand of a span stands for: a size, a constexpr's value, a literal; None otherwise."""
    if isinstance(node, ast.Name) and node.id in sizes:
        return ("size", node.id)
    if isinstance(node, ast.Name) and node.id in scalars:
        return ("tile", node.id)
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool) \
            and node.value > 0:
        return ("const", node.value)
    return None


def _scalar(node: ast.expr, scalars: set[str], sizes: set[str]) -> bool:
    return all(_part(s, scalars, sizes) is not None for s in _summands(node))


def _row_index(factor: ast.expr) -> ast.expr:
    while isinstance(factor, ast.Subscript):  # `rows[:, None]`
        factor = factor.value
    return factor


def _walk_axis(uses: _Reader, index: ast.expr) -> int | None:
    """The program axis whose tile the row index walks (`rows = pid * BM + arange(0, BM)`), if one does."""
    index = _row_index(index)
    values = uses.defs.get(index.id, []) if isinstance(index, ast.Name) else [index]
    walk = uses.tile_walk(values[0]) if len(values) == 1 else None
    return walk[1] if walk is not None and isinstance(walk[1], int) else None


def row_spans(uses: _Reader, terms: list[ast.expr], sizes: set[str]) -> list[RowSpan]:
    """The block terms among a pointer's additive terms, each with the row term it spans.

    A block term is one index times exactly two scalars: the span (a name or a sum of names and literals,
    reading a size) and a row length `R`; a row term is another term that is one index times that same `R`."""
    scalars = uses.constexprs | sizes
    out: list[RowSpan] = []
    for term in terms:
        factors = _factors(term)
        indices = [f for f in factors if not _scalar(f, scalars, sizes)]
        held = [f for f in factors if _scalar(f, scalars, sizes)]
        if len(indices) != 1 or len(held) != 2:
            continue
        for span, row in ((held[0], held[1]), (held[1], held[0])):
            if not isinstance(row, ast.Name):
                continue
            parts = [_part(s, scalars, sizes) for s in _summands(span)]
            if not any(p is not None and p[0] == "size" for p in parts):
                continue
            rows = [t for t in terms if t is not term and _is_row_term(t, row.id, scalars, sizes)]
            if len(rows) != 1:
                continue
            text = ast.unparse(span).replace(" ", "")
            stride = f"({text})*{row.id}" if len(parts) > 1 else f"{text}*{row.id}"
            axis = _walk_axis(uses, next(f for f in _factors(rows[0]) if not _scalar(f, scalars, sizes)))
            out.append(RowSpan(id(term), indices[0], stride, row.id, (SPAN, [p for p in parts if p is not None], axis)))
            break
    return out


def _is_row_term(term: ast.expr, row: str, scalars: set[str], sizes: set[str]) -> bool:
    """One index times the row length alone (`rows[:, None] * K`)."""
    factors = _factors(term)
    named = [f for f in factors if isinstance(f, ast.Name) and f.id == row]
    indices = [f for f in factors if not _scalar(f, scalars, sizes)]
    return len(factors) == 2 and len(named) == 1 and len(indices) == 1


def spanned_axes(dims: list[tuple[str | None, Any]], launched: set[int]) -> dict[int, list[tuple[str, Any]]]:
    """Program axis -> the parts of the span its tile walks, from the flagged tensor's dimensions: the
    programs on that axis cover the tensor's rows (a block's span), not the size some mask compares the
    rows with. Not an axis a launch site's grid sizes (`launched`): the host's grid is the host's."""
    out: dict[int, list[tuple[str, Any]]] = {}
    for _stride, bound in dims:
        if isinstance(bound, tuple) and bound[0] == SPAN and bound[2] is not None and bound[2] not in launched:
            out.setdefault(bound[2], list(bound[1]))
    return out


def span_rest(parts: list[tuple[str, Any]], size: str, values: dict[str, Any]) -> int | None:
    """What a span adds to `size`, one of its summands (`K` in `V + K`), from the launch's values; None
    where `size` is no summand of it or a value is unknown. A partial tile of the span needs `size` off
    a whole number of tiles by as much as that."""
    if ("size", size) not in parts:
        return None
    rest = 0
    for kind, what in parts:
        if (kind, what) == ("size", size):
            continue
        value = what if kind == "const" else values.get(what)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        rest += value
    return rest
