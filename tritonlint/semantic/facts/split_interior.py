"""A split loop: `for s in range(lo, hi - border, B)` beside `for t in range(0, border, B)` whose
accesses mask the dimension. The masked loop takes the border tiles (the partial one among them),
this one the interior: full tiles only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.ir import LOOP_PREFIX, Access, Fact, Walk
from tritonlint.source.names import code_of
from tritonlint.source.syntax import range_args

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    loop, dim = walk.loop, walk.dim
    if loop is None or dim is None:
        return None
    iterable = loop.iterable
    args = range_args(iterable) if isinstance(iterable, cst.Call) else []
    stop = args[1] if len(args) >= 2 else None
    if not (isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.Subtract)):
        return None
    ev = kernel.ev
    cuts = {code_of(stop.right), code_of(stop)}
    same = frozenset({dim} | {key for key in ev.tile_parts.get(dim, ()) if not key.startswith(LOOP_PREFIX)})
    for other in kernel.ir.loops:
        other_iter = other.iterable  # the range it walks (a loop counted in tiles or down, a `while`, read as one)
        if other is loop or not isinstance(other_iter, cst.Call):
            continue
        bounds = range_args(other_iter)[:2]
        if not cuts & {code_of(bound) for bound in bounds}:
            continue
        if any(other in a.loops and ev.bounds_offsets(ev.mask_dims(a) or frozenset(), same)
               for a in kernel.flags.accesses):
            return Fact("split-interior", f"the loop at line {kernel.line_of(other.node)} takes the border "
                        f"tiles with a mask; `{loop.header}` visits the interior, full tiles only",
                        other.node)
    return None
