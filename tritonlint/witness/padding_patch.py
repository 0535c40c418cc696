"""Child-side patches of the wrong-data oracle for a tile wider than its group (TL104's group shape).

Two interpreter patches, each installed for one launch and undone after it:

- `switch_off_padding`: at the flagged access's lines, the lanes whose index along the tile's axis
  is at or past the group size are masked off (a load gives `other` there, a store skips them), so
  the run is what the kernel would compute if its tile held exactly the group. Which axis is the
  tile's comes from the parent (read from the kernel's text); for a 1-D access it is axis 0, and
  where the parent could not tell, the one axis as long as the tile (none switched off if several).
  With `group` None it switches off only the lanes that point into no tensor (the original run:
  padding lanes past the last group, which a launch whose extent is the groups' own would mask).
- `record_reach`: the last element of each tensor that any access's active lanes touch (the run with
  the padding lanes off sizes the tensors of the runs that judge: exactly what the groups' own lanes reach).
- `record_writers`: at the watched store lines, every in-bounds active lane's element, program id
  and value; elements written by two programs with different values are a store race on a GPU
  (the interpreter runs programs in order, so the last writer hides it in the outputs).
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

# Read by verify's interpreter guard: these wrappers run outside it, and its walk to the kernel's
# line skips their frames.
GUARD_TRANSPARENT = True


def _at(path: str, lines: set[int]) -> bool:
    """Whether the kernel's frame is at one of `lines` of `path` (the access being run)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == path and frame.f_lineno in lines:
            return True
        frame = frame.f_back
    return False


def lane_axis(shape: tuple[int, ...], axis: int | None, ndim: int | None, block: int) -> int | None:
    """The axis of the access's tile that the group's lanes run along."""
    if len(shape) == 1:
        return 0
    if axis is not None and ndim == len(shape) and shape[axis] == block:
        return axis
    matching = [i for i, n in enumerate(shape) if n == block]
    return matching[0] if len(matching) == 1 else None


def _inside(guard: Any, p: Any) -> Any:
    """Which addresses of `p` fall inside a tensor of the guard's current launch."""
    import numpy as np

    current = getattr(guard._local, "launch", None)
    inside = np.zeros(p.shape, bool)
    for region in (current.regions if current is not None else ()):
        inside |= (p >= region.start) & (p < region.end)
    return inside


def switch_off_padding(spec: dict[str, Any], seen: dict[str, Any], guard: Any) -> Any:
    """Mask off, at `spec["lines"]` of `spec["module"]`, the lanes at or past `spec["group"]` along the
    tile's axis (with `group` None: the lanes pointing into no tensor). `seen` counts the lanes switched
    off while active and the first programs they were in."""
    import numpy as np
    from triton.runtime import interpreter as interp

    path, lines, block = spec["module"], set(spec["lines"]), int(spec["block"])
    group = None if spec.get("group") is None else int(spec["group"])
    cls = interp.InterpreterBuilder
    inner_load, inner_store = cls.create_masked_load, cls.create_masked_store
    seen.setdefault("lanes", 0)
    seen.setdefault("programs", [])
    seen.setdefault("unknown_axis", 0)

    def narrowed(builder: Any, ptrs: Any, mask: Any) -> Any:
        shape = np.asarray(ptrs.data).shape
        axis = lane_axis(shape, spec.get("axis"), spec.get("ndim"), block)
        active = np.ones(shape, bool) if mask is None else np.broadcast_to(
            np.asarray(getattr(mask, "data", mask), dtype=bool), shape)
        if group is None:
            keep = _inside(guard, np.asarray(ptrs.data).astype(np.int64))
        elif axis is None:
            seen["unknown_axis"] += 1
            return mask
        else:
            index = np.arange(shape[axis]).reshape([-1 if i == axis else 1 for i in range(len(shape))])
            keep = np.broadcast_to(index < group, shape)
        dropped = int((active & ~keep).sum())
        if dropped:
            seen["lanes"] += dropped
            program = list(builder.grid_idx or ())
            if program not in seen["programs"] and len(seen["programs"]) < 4:
                seen["programs"].append(program)
        return interp.TensorHandle(np.array(active & keep), interp.tl.int1)

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        if _at(path, lines):
            mask = narrowed(self, ptrs, mask)
        return inner_load(self, ptrs, mask, other, *rest)

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        if _at(path, lines):
            mask = narrowed(self, ptrs, mask)
        return inner_store(self, ptrs, value, mask, *rest)

    cls.create_masked_load, cls.create_masked_store = create_masked_load, create_masked_store

    def restore() -> None:
        cls.create_masked_load, cls.create_masked_store = inner_load, inner_store

    return restore


def record_writers(guard: Any, path: str, lines: set[int], writes: dict[str, dict[int, dict[tuple[int, ...], float]]]) -> Any:
    """Record, per tensor and element, the value each program's store at `lines` wrote there."""
    import numpy as np
    from triton.runtime import interpreter as interp

    cls = interp.InterpreterBuilder
    inner = cls.create_masked_store

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        current = getattr(guard._local, "launch", None)
        if current is not None and _at(path, lines):
            p = np.asarray(ptrs.data).astype(np.int64)
            values = np.broadcast_to(np.asarray(value.data), p.shape)
            active = np.ones(p.shape, bool) if mask is None else np.broadcast_to(
                np.asarray(getattr(mask, "data", mask), dtype=bool), p.shape)
            program = tuple(int(i) for i in (self.grid_idx or ()))
            for region in current.regions:
                inside = active & (p >= region.start) & (p < region.end)
                if inside.any():
                    items = (p[inside] - region.start) // max(1, region.itemsize)
                    per = writes.setdefault(region.name, {})
                    for item, v in zip(items.tolist(), values[inside].astype(np.float64).tolist()):
                        per.setdefault(int(item), {})[program] = float(v)
        return inner(self, ptrs, value, mask, *rest)

    cls.create_masked_store = create_masked_store
    return lambda: setattr(cls, "create_masked_store", inner)


def conflicts(writes: dict[str, dict[int, dict[tuple[int, ...], float]]]) -> dict[str, Any]:
    """Per tensor: the elements two programs wrote with different values (a race on a GPU)."""
    import math

    out: dict[str, Any] = {}
    for name, per in writes.items():
        count, worst, example = 0, 0.0, None
        for item, by_program in per.items():
            if len(by_program) < 2:
                continue
            values = [v for v in by_program.values() if not math.isnan(v)]
            # Equal up to rounding: the stray lane wrote what the owner writes (no harm either way).
            if len(values) < 2 or max(values) - min(values) <= 1e-5 * (1 + abs(max(values))):
                continue
            count += 1
            spread = max(values) - min(values)
            if spread > worst or example is None:
                worst = max(worst, spread)
                example = {"element": item, "programs": [list(p) for p in sorted(by_program)[:2]]}
        if count:
            out[name] = {"elements": count, "max_abs": worst, **(example or {})}
    return out


def record_reach(guard: Any, reach: dict[str, int]) -> Any:
    """Record, per tensor, the last element any load or store's active lanes touch."""
    import numpy as np
    from triton.runtime import interpreter as interp

    cls = interp.InterpreterBuilder
    inner_load, inner_store = cls.create_masked_load, cls.create_masked_store

    def note(ptrs: Any, mask: Any) -> None:
        current = getattr(guard._local, "launch", None)
        if current is None:
            return
        p = np.asarray(ptrs.data).astype(np.int64)
        active = np.ones(p.shape, bool) if mask is None else np.broadcast_to(
            np.asarray(getattr(mask, "data", mask), dtype=bool), p.shape)
        for region in current.regions:
            inside = active & (p >= region.start) & (p < region.end)
            if inside.any():
                last = int((p[inside].max() - region.start) // max(1, region.itemsize))
                for name in region.names:
                    reach[name] = max(reach.get(name, -1), last)

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        note(ptrs, mask)
        return inner_load(self, ptrs, mask, other, *rest)

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        note(ptrs, mask)
        return inner_store(self, ptrs, value, mask, *rest)

    cls.create_masked_load, cls.create_masked_store = create_masked_load, create_masked_store

    def restore() -> None:
        cls.create_masked_load, cls.create_masked_store = inner_load, inner_store

    return restore
