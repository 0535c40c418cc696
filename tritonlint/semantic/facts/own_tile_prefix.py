"""The tiles before the program's own, in steps that divide its block: `for s in range(0, i_c * BTL,
BTS)` in a kernel whose own tile is `o_t = i_c * BTL + tl.arange(0, BTL)`, where `BTS` divides
`BTL` (the same block, a `tl.static_assert(BTL % BTS == 0)`, or `assert BTL % BTS == 0` before every
launch). The loop stops where the program's own tile starts, which is inside the tensor (a program
whose tile starts past the end has every lane of its own masked off), so every tile it visits is
full. The binder already reads the plainest form (`range(0, pid * BLOCK, BLOCK)`); this one also
takes a tile index that a helper derives from the program id, and a smaller step.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.ir import Access, Fact, Walk
from tritonlint.source.names import code_of
from tritonlint.source.syntax import loop_range

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    loop = walk.loop
    args = loop_range(loop.iterable) if loop is not None else []
    if loop is None or len(args) != 3 or code_of(args[0]) != "0":
        return None
    stop, step = args[1], code_of(args[2])
    if type(stop) is not cst.BinaryOperation or type(stop.operator) is not cst.Multiply:
        return None
    for factor, block in ((code_of(stop.left), code_of(stop.right)), (code_of(stop.right), code_of(stop.left))):
        tile = _own_tile(kernel, factor, block)
        if tile is None:
            continue
        why = _divides(kernel, block, step)
        if why is not None:
            return Fact("own-tile-prefix", f"the loop `{loop.header}` visits the tiles before the "
                        f"program's own (`{tile}`), in steps that divide it ({why}): every one is full", loop.node)
    return None


def _own_tile(kernel: Stages, factor: str, block: str) -> str | None:
    """The definition of the program's own tile, `factor * block + tl.arange(0, block)`, if the kernel
    has one."""
    product = rf"(?:{re.escape(factor)}\*{re.escape(block)}|{re.escape(block)}\*{re.escape(factor)})"
    arange = rf"(?:\w+\.)*arange\(0,{re.escape(block)}\)"
    shape = re.compile(rf"{product}\+{arange}|{arange}\+{product}")
    for name, defs in kernel.ir.defs.items():
        for d in defs:
            if d.value is not None and shape.fullmatch(code_of(d.value).replace(" ", "")):
                return f"{name} = {code_of(d.value)}"
    return None


def _divides(kernel: Stages, block: str, step: str) -> str | None:
    """Why `step` divides `block`, if something says so."""
    if step == block:
        return "the same block"
    if (block, step) in kernel.ir.divisible:
        return f"the kernel asserts {block} % {step} == 0"
    if block.isdigit() and step.isdigit() and int(step) > 0 and int(block) % int(step) == 0:
        return f"{block} % {step} == 0"
    if kernel.launches and all((block, step) in launch.multiples for launch in kernel.launches):
        where = ", ".join(launch.where for launch in kernel.launches[:2])
        return f"the host asserts {block} % {step} == 0 before every launch ({where})"
    return None
