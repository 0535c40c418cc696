"""Block pointer dimensions read as the program tiles they are.

`tl.make_block_ptr(P, shape=(M, N), ..., offsets=(pid_m * BM, pid_n * BN), block_shape=(BM, BN))`
places a tile of BM rows at `pid_m * BM` along an extent M: the same tile as the raw pointer's
`offs_m = pid_m * BM + tl.arange(0, BM)` masked with `offs_m < M`. Read that way, the evidence a
raw tile has (a sibling access that bounds the same tile by the same extent, a launch whose grid
rounds M up by BM) speaks of the block pointer's dimension too, and an access with no
`boundary_check` on it is reported like the raw pointer without a mask.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tritonlint.semantic.host.launches import squash
from tritonlint.semantic.ir import LOOP_PREFIX, PROGRAM, Access, Loop
from tritonlint.semantic.paths import Path, compatible
from tritonlint.semantic.stages import Stages
from tritonlint.source.names import code_of
from tritonlint.source.syntax import keyword, ordered


@dataclass(frozen=True)
class BlockTile:
    """One dimension of a block pointer: its extent, where its tile starts and the tile's size."""

    extent: str  # `M`, as written in `shape=`
    start: cst.BaseExpression  # `pid_m * BM`
    size: str  # `BM`
    order: int
    path: Path
    loops: tuple[Loop, ...]


def block_tile(kernel: Stages, access: Access, dim: str) -> BlockTile | None:
    """The `make_block_ptr` dimension `dim` (`bp[0]`) of the access's pointer, when its start moves
    with the program id alone (no loop, no other offset): a program's tile of a grid."""
    if not dim.endswith("]"):
        return None
    owner, index = dim[:-1].rsplit("[", 1)
    calls: list[tuple[cst.Call, int, Path, tuple[Loop, ...]]] = []
    if isinstance(access.pointer, cst.Call) and kernel.ir.qualify_tl(access.pointer.func) == "make_block_ptr":
        calls.append((access.pointer, access.order, access.path, access.loops))
    elif isinstance(access.pointer, cst.Name) and access.pointer.value == owner:
        for d in kernel.flow.reaching(owner, access.order, access.path, access.loops):
            if d.kind == "assign" and isinstance(d.value, cst.Call) and kernel.ir.qualify_tl(d.value.func) == "make_block_ptr":
                calls.append((d.value, d.order, d.path, d.loops))
    if len(calls) != 1:
        return None
    call, order, path, loops = calls[0]
    shape, offsets, blocks = (keyword(call, name, position) for name, position in
                              (("shape", 1), ("offsets", 3), ("block_shape", 4)))
    i = int(index)
    if not all(isinstance(node, (cst.Tuple, cst.List)) and i < len(node.elements) for node in (shape, offsets, blocks)):
        return None
    assert isinstance(shape, (cst.Tuple, cst.List)) and isinstance(offsets, (cst.Tuple, cst.List)) \
        and isinstance(blocks, (cst.Tuple, cst.List))
    start = offsets.elements[i].value
    keys = kernel.ev.dims(start, order, path, loops)
    if PROGRAM not in keys or any(key != PROGRAM for key in keys):
        return None
    return BlockTile(squash(code_of(shape.elements[i].value)), start, squash(code_of(blocks.elements[i].value)),
                     order, path, loops)


def bounding_sibling(kernel: Stages, access: Access, tile: BlockTile) -> Access | None:
    """Another access that bounds the same program tile by the same extent: a raw pointer's mask
    `pid * B + tl.arange(0, B) < extent` (through its names), or a block pointer of the same tile
    with `boundary_check` on it."""
    for other in kernel.flags.accesses:  # helpers' accesses too, as their calls see them
        if other is access or not compatible(other.path, access.path):
            continue
        for sides in map(ordered, kernel.flow.mask_comparisons(other)):
            if sides is None:
                continue
            small, large = sides
            if squash(code_of(large)) != tile.extent:
                continue
            keys = kernel.ev.dims(small, other.order, other.path, other.loops)
            tiles = [key for key in keys if key != PROGRAM and not key.startswith(LOOP_PREFIX)]
            if PROGRAM in keys and len(tiles) == 1 and squash(kernel.ev.dim_size.get(tiles[0], "")) == tile.size \
                    and not any(key.startswith(LOOP_PREFIX) for key in keys):
                return other
        checked = other.boundary_check
        if isinstance(checked, (cst.Tuple, cst.List)):
            for element in checked.elements:
                if not isinstance(element.value, cst.Integer):
                    continue
                for walk in kernel.walker.walks(other):
                    if walk.dim is None or not walk.dim.endswith(f"[{element.value.value}]"):
                        continue
                    theirs = block_tile(kernel, other, walk.dim)
                    if theirs is not None and (theirs.extent, theirs.size) == (tile.extent, tile.size) \
                            and squash(code_of(theirs.start)) == squash(code_of(tile.start)):
                        return other
    return None


def on_even_side(kernel: Stages, access: Access, tile: BlockTile) -> str | None:
    """The evenness flag whose even side the access runs on, when that flag speaks of a tile of
    the same size (`if EVEN_M and EVEN_N:` around a store of BLOCK_M x BLOCK_N)."""
    for flag in kernel.flags.flags:
        if not kernel.flags.on_side(flag.atom, flag.even, access.path):
            continue
        if any(squash(kernel.ev.dim_size.get(key, "")) == tile.size for key in flag.dims):
            return flag.atom
    return None
