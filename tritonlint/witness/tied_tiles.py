"""The size a tile with no bound of its own stands for, at the flagged access.

An access that walks a bare tile (`tl.load(X + tl.arange(0, BLOCK))`) says nothing in its own indexing about
how many elements its tensor holds, so the layout gives it one tile: in bounds by construction, and the
finding (the tile can be longer than the data) is never tried. Two facts tie such a tile to a size:

- the host rounds the tile up from a size it passes beside it (`BLOCK=triton.next_power_of_2(n)` with `n`
  passed too): the tensor holds that size, and the tile is the power of two at or above it, as the host
  computes it for each launch;
- another access of the kernel compares an offset built from the same lanes with a size (`row < n_rows`,
  `row` a reordering of the flagged `slot`): the kernel itself says those lanes run over that many rows.

Only the flagged tensor is sized so: the finding is the claim that it holds the size, not the tile."""

from __future__ import annotations

import ast
import re
from typing import Any

from tritonlint.witness.uses import Uses

_POW2 = re.compile(r"(?:triton\.)?next_power_of_2\(\s*([A-Za-z_][\w.]*)\s*\)")


def pow2_sources(launch: Any, params: list[str]) -> dict[str, str]:
    """Tile parameter -> the size parameter the launch site rounds it up from to a power of two
    (`block = triton.next_power_of_2(n)` passed as the tile, `n` passed as the size)."""
    out: dict[str, str] = {}
    if launch is None:
        return out
    for param, values in getattr(launch, "allocations", {}).items():
        texts = {text.strip() for text, _line in values}
        m = _POW2.fullmatch(next(iter(texts))) if len(texts) == 1 else None
        if m is None:
            continue
        sources = [p for p, text in launch.args.items() if text.strip() == m.group(1) and p != param and p in params]
        if sources:
            out[param] = sources[0]
    for param, text in launch.args.items():  # `BLOCK=triton.next_power_of_2(n)` written in the call itself
        m = _POW2.fullmatch(text.strip())
        if m is not None and param not in out:
            sources = [p for p, t in launch.args.items() if t.strip() == m.group(1) and p != param and p in params]
            if sources:
                out[param] = sources[0]
    return out


def compared_size(uses: Uses, walk: str | None, sizes: set[str]) -> str | None:
    """The size a comparison of the kernel holds an offset built from `walk` below (`row < n_rows`), where
    that offset reads no size itself (it is the lanes, reordered or not, not a bound already)."""
    if walk is None:
        return None
    for c in uses.compares:
        if len(c.ops) != 1:
            continue
        op = c.ops[0]
        if isinstance(op, (ast.Lt, ast.LtE)):
            low, high = c.left, c.comparators[0]
        elif isinstance(op, (ast.Gt, ast.GtE)):
            low, high = c.comparators[0], c.left
        else:
            continue
        if isinstance(high, ast.Name) and high.id in sizes and not (uses.reached(Uses._names(low)) & sizes) \
                and walk in uses.reached(Uses._names(low)):
            return high.id
    return None


def next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()
