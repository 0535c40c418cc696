"""A loop that visits full tiles only: `range(K // BLOCK_K)`, `range(0, K - K % BLOCK_K, BLOCK_K)`,
`range(0, pid * BLOCK, BLOCK)` (the tiles before the program's own), or any tile loop after
`tl.static_assert(K % BLOCK_K == 0)`. The binder classifies each loop as it reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritonlint.semantic.ir import Access, Fact, Walk

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    loop = walk.loop
    if loop is not None and loop.tiles == "full":
        return Fact("full-tile-loop", f"the loop `{loop.header}` visits full tiles only: {loop.why}", loop.node)
    return None
