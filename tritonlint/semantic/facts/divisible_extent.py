"""The kernel itself promises full tiles: `tl.static_assert(K % BLOCK_K == 0)` at the top level, or
the access sits under `if K % BLOCK_K == 0:`. (A `K` that is itself a block size spanned by an
arange says nothing about the tensor.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritonlint.semantic.binder import DIVISIBLE
from tritonlint.semantic.ir import Access, Fact, Walk
from tritonlint.semantic.paths import Path

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    if walk.dim is None:
        return None
    tokens = kernel.ev.size_tokens(walk.dim)
    asserted = sorted(kernel.ir.divisible)
    held = sorted(_divisible_on(access.path) - kernel.ir.divisible)
    for (total, block), where in [(pair, "a tl.static_assert") for pair in asserted] + \
            [(pair, "the path condition") for pair in held]:
        if block in tokens and total not in kernel.ir.block_sizes:
            return Fact("divisible-extent", f"{where} holds {total} % {block} == 0: every tile is full")
    return None


def _divisible_on(path: Path) -> set[tuple[str, str]]:
    """(K, BLOCK_K) for each `K % BLOCK_K == 0` the path holds true (an `if`, a static_assert)."""
    found = set()
    for literal in path:
        match = DIVISIBLE.fullmatch(literal.atom)
        if match and literal.value:
            found.add((match.group(1), match.group(2)))
    return found
