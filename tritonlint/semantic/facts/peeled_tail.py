"""A peeled tail: nothing in the loop masks the dimension, but an access before or after it does
(a peeled last tile, or a reverse sweep that loads the partial top tile first). The loop then
visits full tiles only."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.ir import LOOP_PREFIX, Access, Fact, Loop, Walk
from tritonlint.source.names import code_of
from tritonlint.source.syntax import range_args

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    loop, dim = walk.loop, walk.dim
    if loop is None or dim is None:
        return None
    ev, walks = kernel.ev, kernel.walker.walks
    inside = [a for a in kernel.flags.accesses if loop in a.loops]
    if any(ev.covers(ev.mask_dims(a) or frozenset(), frozenset({dim, loop.key})) for a in inside):
        return None
    # Outside the loop the tile has no loop part: `rk = start_k + offs_k` in the loop is
    # `rk = last_k + offs_k` after it, the same block offsets, placed where the loop stops
    # (a masked first tile before `range(1, n_tiles)` leaves the loop's last tile partial).
    parts = frozenset(key for key in ev.tile_parts.get(dim, ()) if not key.startswith(LOOP_PREFIX))
    stop = _loop_stop(loop)
    for other in kernel.flags.accesses:
        if loop in other.loops or not any(w.dim == dim or w.dim in parts for w in walks(other)):
            continue
        bounded = ev.mask_dims(other) or frozenset()
        if (ev.covers(bounded, frozenset({dim})) and any(w.dim == dim for w in walks(other))) or (
                parts and ev.covers(bounded, parts) and stop is not None and
                any(re.search(rf"(?<![\w.]){re.escape(stop)}(?!\w)", code_of(d.value))
                    for defs in kernel.flow.chain(other.pointer, other).values() for d in defs
                    if d.value is not None)):
            return Fact("peeled-tail", f"the masked {other.call_name} at line {kernel.line_of(other.call)}, "
                        "outside the loop, takes the partial tile: the loop visits full tiles only", other.call)
    return None


def _loop_stop(loop: Loop) -> str | None:
    """The stop of `for ... in range(start, stop, step)` as written, when it is a plain name."""
    iterable = loop.iterable
    if not isinstance(iterable, cst.Call):
        return None
    args = range_args(iterable)
    stop = args[1] if len(args) >= 2 else args[0] if args else None
    return stop.value if isinstance(stop, cst.Name) else None
