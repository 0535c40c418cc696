"""A sibling's bound that every launch keeps a multiple of the tile: the unmasked access's tiles are whole.

A masked sibling (`tl.load(p + offs, mask=offs < N)`) is the evidence that a tile of `offs` can be
partial. When every launch keeps `N` a multiple of the tile's width `BLOCK` (a host test, fixed
literals, an autotune pruner: `Launch.multiples`) and the tile is aligned to that width, it is
partial nowhere, and the unmasked twin is kept from the tail by the host (TL111/TL112).

Aligned: the offset the sibling compares is `tl.arange(0, BLOCK)` (the first tile: whole when `N` is a nonzero multiple
of `BLOCK`), plus `i * BLOCK` where `i` is the index of the walk's loop counting the tiles of `N`
(`for i in range(1, tl.cdiv(N, BLOCK))`), read through local names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.host.flag_setters import loop_division
from tritonlint.semantic.ir import LOOP_PREFIX, Access, Walk
from tritonlint.source.names import code_of
from tritonlint.source.syntax import loop_range, ordered

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def sibling_guard(kernel: Stages, access: Access, walk: Walk, sibling: Access) -> str:
    """The host facts that keep every tile of `walk` whole, named for the note; "" when none does."""
    launches = kernel.launches
    if walk.dim is None or not launches:
        return ""
    size = kernel.ev.dim_size.get(walk.dim)
    if size is None:
        return ""
    bounds: set[str] = set()
    compared: set[str] = set()
    smalls: list[cst.BaseExpression] = []
    for comparison in kernel.flow.mask_comparisons(sibling):
        sides = ordered(comparison)
        if sides is None:
            continue
        dims = kernel.ev.dims(sides[0], sibling.order, sibling.path, sibling.loops)
        if walk.dim not in dims:
            continue
        bound = _param_named(kernel, code_of(sides[1]))
        if not bound:
            return ""
        bounds.add(bound)
        compared |= dims
        smalls.append(sides[0])
    if not bounds:
        return ""
    # The offset the sibling bounds is the tile's (the evidence says the access walks it too).
    if any(key.startswith(LOOP_PREFIX) for key in compared) \
            or not all(_aligned(kernel, small, size, "", 4) for small in smalls):
        # The sibling bounds a tile some loop moves: aligned when that loop counts the tiles of
        # the bound, one by one, and the offset is `i * BLOCK` on from the first tile.
        counter = _tile_counter(kernel, walk, size, bounds)
        if not counter or not all(_aligned(kernel, small, size, counter, 4) for small in smalls):
            return ""
    guards = {launch.multiples.get((bound, size), "") for launch in launches for bound in bounds}
    if "" in guards:
        return ""
    return f"every launch keeps {', '.join(sorted(bounds))} a multiple of the tile's {size}: " \
           f"{', '.join(sorted(guards))}"


def _tile_counter(kernel: Stages, walk: Walk, size: str, bounds: set[str]) -> str:
    """The index of the walk's loop when it counts the tiles of the bound one by one from a literal
    (`for i in range(1, tl.cdiv(N, BLOCK))`); "" otherwise."""
    loop = walk.loop
    if loop is None or loop.iterable is None or len(loop.targets) != 1:
        return ""
    args = loop_range(loop.iterable)
    if len(args) == 3 or (len(args) == 2 and not _nonnegative_literal(args[0])):
        return ""  # steps by more than one tile, or starts anywhere
    divided = loop_division(kernel, loop.iterable)
    if divided is None:
        return ""
    extent, step = (_param_named(kernel, text) for text in divided)
    if step != size or bounds != {extent}:
        return ""
    return next(iter(loop.targets))


def _nonnegative_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and int(node.value, 0) >= 0


def _param_named(kernel: Stages, text: str) -> str:
    """The kernel parameter `text` names, directly or through a local assigned it once; or ""."""
    defs = kernel.ir.defs.get(text, ())
    if len(defs) == 1 and defs[0].kind == "assign" and type(defs[0].value) is cst.Name:
        text = defs[0].value.value
        defs = kernel.ir.defs.get(text, ())
    return text if defs and all(d.kind == "param" for d in defs) else ""


def _aligned(kernel: Stages, node: cst.BaseExpression, size: str, counter: str, depth: int) -> bool:
    """Whether `node` is `tl.arange(0, size)` plus multiples of `size` by the tile counter."""
    if depth < 0:
        return False
    if isinstance(node, cst.Subscript):
        return _aligned(kernel, node.value, size, counter, depth)
    if isinstance(node, cst.Call):
        args = [code_of(arg.value).replace(" ", "") for arg in node.args]
        return kernel.ir.qualify_tl(node.func) == "arange" and args == ["0", size]
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _aligned(kernel, node.left, size, counter, depth) and _aligned(kernel, node.right, size, counter, depth)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        sides = {code_of(node.left).strip(), code_of(node.right).strip()}
        return bool(counter) and sides == {size, counter}
    if isinstance(node, cst.Name):
        defs = kernel.ir.defs.get(node.value, ())
        return len(defs) == 1 and defs[0].kind == "assign" and defs[0].value is not None \
            and _aligned(kernel, defs[0].value, size, counter, depth - 1)
    return False
