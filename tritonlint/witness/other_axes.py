"""TL104's candidates: the finding's axis first, then one candidate for each other size.

A mask on the wrong axis (`offs_m[:, None] < M` on a store whose rows walk `offs_n`), or in other units
than its pointer, lets lanes through past the end of a size the mask does not bound: which one is the
pointer's business, not the mask's, and the finding's own axis (the one its mask names) is often the
one that stays in bounds. The three candidates on that axis come first as for every finding; then the
first candidate (two tiles and a half) of each other size the synthesizer made partial, so that the
size the pointer really walks is partial in one of them. A finding confirmed early stops the job there:
the extra launches cost only where the first ones showed nothing.
"""

from __future__ import annotations

from typing import TypeVar

Pair = TypeVar("Pair")


def with_other_axes(pairs: list[Pair], axis_of: dict[int, str | None], limit: int, extra: int = 3) -> list[Pair]:
    """`pairs[:limit]`, then the first pair of each axis not among them (at most `extra`); `axis_of` maps
    each pair's index to the size it makes partial."""
    kept = list(pairs[:limit])
    seen = {axis_of.get(i) for i in range(min(limit, len(pairs)))}
    for i, pair in enumerate(pairs[limit:], start=limit):
        axis = axis_of.get(i)
        if axis is not None and axis not in seen and extra > 0:
            kept.append(pair)
            seen.add(axis)
            extra -= 1
    return kept
