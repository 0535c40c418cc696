"""A block pointer whose block is as wide as the tensor along a dimension is never partial there:
`make_block_ptr(..., shape=(N, HEAD_DIM), block_shape=(BLOCK_N, HEAD_DIM))` along the head."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.ir import Access, Fact, Walk
from tritonlint.source.names import code_of
from tritonlint.source.syntax import keyword

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    dim = walk.dim
    if dim is None or not dim.endswith("]"):
        return None
    owner, index = dim[:-1].rsplit("[", 1)
    made = [d for d in kernel.flow.reaching(owner, access.order, access.path, access.loops) if d.kind != "advance"]
    if not made:
        return None
    extent = ""
    for d in made:
        if not (isinstance(d.value, cst.Call) and kernel.ir.qualify_tl(d.value.func) == "make_block_ptr"):
            return None
        shape, block = keyword(d.value, "shape", 1), keyword(d.value, "block_shape", 4)
        if not (isinstance(shape, (cst.Tuple, cst.List)) and isinstance(block, (cst.Tuple, cst.List))):
            return None
        i = int(index)
        if i >= min(len(shape.elements), len(block.elements)) or \
                code_of(shape.elements[i].value) != code_of(block.elements[i].value):
            return None
        extent = code_of(shape.elements[i].value)
    return Fact("whole-extent-block", f"the block spans the tensor's whole extent `{extent}` along dimension {index}",
                made[0].value)
