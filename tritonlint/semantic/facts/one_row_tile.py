"""A one-element tile is never partial: under `if BLOCK_M == 1:` the program exists only for a row
inside the tensor (the grid covers the rows one by one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritonlint.semantic.ir import Access, Fact, Walk

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    if walk.dim is not None and walk.dim in kernel.ev.single_element_dims(access.path):
        size = kernel.ev.dim_size.get(walk.dim, walk.dim)
        return Fact("one-row-tile", f"the path holds {size} == 1: a one-element tile is never partial")
    return None
