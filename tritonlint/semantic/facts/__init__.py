"""Facts: one provider per idiom by which a kernel's own construction keeps a walk's tiles full.

A provider looks at one walk of one access that has evidence of a partial tile and no mask on
it, and answers with a `Fact` (the idiom, its reason, where it is written) or None. A new idiom
is one module here with its fixture; `PROVIDERS` lists them in the order they are asked (cheap
and common first: most walks never get here, a mask bounds them already).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tritonlint.semantic.facts import (
    divisible_extent,
    full_tile_loop,
    one_row_tile,
    own_tile_prefix,
    peeled_tail,
    right_aligned_window,
    scratch_page,
    split_interior,
    whole_extent_block,
)
from tritonlint.semantic.ir import Access, Fact, Walk

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages

Provider = Callable[["Stages", Access, Walk], "Fact | None"]

PROVIDERS: tuple[Provider, ...] = (
    full_tile_loop.fact,
    peeled_tail.fact,
    split_interior.fact,
    scratch_page.fact,
    whole_extent_block.fact,
    one_row_tile.fact,
    right_aligned_window.fact,
    divisible_extent.fact,
    own_tile_prefix.fact,
)


def full_tiles(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    """The first fact that keeps every tile of this walk full (or the access in bounds), if any."""
    for provider in PROVIDERS:
        found = provider(kernel, access, walk)
        if found is not None:
            return found
    return None
