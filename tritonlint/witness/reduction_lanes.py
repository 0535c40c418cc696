"""TL105's identity run, at the reduction: the lanes the flagged load switched off hold the identity of
the reduction the finding names, where that reduction reads them.

Setting the lanes to the identity at the load proves nothing when the load already fills them with it
(`other=float("-inf")`) and the arithmetic between turns them into data: a softcap's
`cap * tanh(-inf / cap)` is `-cap`, `x - mean` of a 0 lane is `-mean`, an online max that never saw a
real value makes `exp(-inf - -inf)` NaN. The finding's claim is about the reduction ("the lanes reach
`tl.sum` at line 49 as nonzero data"), so the second run also sets them there: at the reduction on the
named line, the input's lanes that the load switched off become the reduction's own identity (0 for a
sum, -inf for a max and an argmax, +inf for a min and an argmin; the integer type's extremes for
integers); if the outputs differ from the run as written, those lanes changed the result.

Which lanes: the load's switched-off lanes, and where the load runs more than once before the reduction
(a loop walking a row in tiles, reduced after the loop), the lanes it switched off *every* time in this
program: a lane that was real in one pass holds real data. A reduction starts the count again (a load
and its reduction in one loop body: each pass its own lanes). Only an input whose shape the load's
mask broadcasts to, on as many axes, is touched.

`reduction_identity_patch` is self-contained (imports inside, no names of this package): repro
scripts carry its source, as they carry the fills.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tritonlint.diagnostics import Diagnostic

# Its frames are transparent to the interpreter guard's walk: the patch sits outside the guard.
GUARD_TRANSPARENT = True


def reduction_line(diagnostic: Diagnostic) -> int | None:
    """The line of the reduction a TL105 finding names (its `reduction_line` fact), in the analysed file."""
    line = dict(diagnostic.facts).get("reduction_line")
    return int(line) if line is not None else None


def reduction_identity_patch(path: str, load_line: int, reduce_line: int, active: Any = None) -> Any:
    """Patch the interpreter: the lanes the load at `path:load_line` switched off hold the reduction's
    identity where the reduction at `path:reduce_line` reads them (while `active()` is true, when given).
    Returns the function that undoes it."""
    import sys

    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp

    state: dict[str, Any] = {"off": None, "grid": None, "reduced": False}

    def running(line: int) -> bool:
        frame: Any = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == path and frame.f_lineno == line:
                return True
            frame = frame.f_back
        return False

    builder = interp.InterpreterBuilder
    load = builder.create_masked_load
    reduce_ops = interp.ReduceOps
    apply = reduce_ops.apply

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        ret = load(self, ptrs, mask, other, *rest)
        if mask is not None and running(load_line):
            off = ~np.broadcast_to(np.asarray(getattr(mask, "data", mask), dtype=bool), np.asarray(ret.data).shape)
            grid = tuple(self.grid_idx or ())
            before = state["off"]
            fresh = state["grid"] != grid or state["reduced"] or before is None or before.shape != off.shape
            state["off"] = np.array(off) if fresh else before & off
            state["grid"], state["reduced"] = grid, False
        return ret

    def identity(combine: Any, dtype: Any) -> Any:
        std = tl.standard
        floating = np.issubdtype(dtype, np.floating)
        top = np.inf if floating else (np.iinfo(dtype).max if np.issubdtype(dtype, np.integer) else None)
        bottom = -np.inf if floating else (np.iinfo(dtype).min if np.issubdtype(dtype, np.integer) else None)
        if combine == std._sum_combine:
            return 0
        if combine in (std._elementwise_max, std._argmax_combine_tie_break_left):
            return bottom
        if combine in (std._elementwise_min, std._argmin_combine_tie_break_left):
            return top
        return None  # a reduction of the kernel's own: no identity known

    def patched_apply(self: Any, input: Any) -> Any:
        off = state["off"]
        if off is None or (active is not None and not active()) or not running(reduce_line) \
                or state["grid"] != tuple(interp.interpreter_builder.grid_idx or ()):
            return apply(self, input)
        state["reduced"] = True
        values = input if isinstance(input, tuple) else (input,)
        first = values[0]
        data = np.asarray(first.handle.data)
        value = identity(self.combine_fn, data.dtype)
        try:
            fits = off.ndim == data.ndim and np.broadcast_shapes(off.shape, data.shape) == data.shape
        except ValueError:
            fits = False
        if value is None or not fits:
            return apply(self, input)
        data = np.array(data, copy=True)
        data[np.broadcast_to(off, data.shape)] = value
        first = tl.core.tensor(interp.TensorHandle(data, first.handle.dtype), first.type)
        return apply(self, (first, *values[1:]) if isinstance(input, tuple) else first)

    builder.create_masked_load = create_masked_load
    reduce_ops.apply = patched_apply

    def undo() -> None:
        builder.create_masked_load = load
        reduce_ops.apply = apply

    return undo
