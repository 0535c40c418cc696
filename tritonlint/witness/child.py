"""Subprocess entry of `tritonlint witness`: runs synthesized launches of a generated module under the guard.

Reads a JSON job (the generated module's path, the launches, the fill, an optional line whose
masked-off lanes get a reduction's identity), runs each launch under TRITON_INTERPRET=1 with
verify's InterpreterGuard, and writes one JSON result per launch, plus every tensor argument
after the run, to the output folder. The parent never parses stdout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import Any

from tritonlint.witness.hits import shown
from tritonlint.witness.padding_patch import (
    conflicts,
    record_reach,
    record_writers,
    switch_off_padding,
)
from tritonlint.witness.reduction_lanes import reduction_identity_patch
from tritonlint.witness.undefined_lanes import undefined_lanes_patch


def _load(path: str) -> Any:
    name = "_tritonlint_witness_" + Path(path).stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def argument_value(arg: dict[str, Any], generator: Any) -> Any:
    """A launch argument's value as the witness runs it (CPU, drawn from `generator`). Self-contained:
    the generated harness and the repro scripts carry its source, so every run fills alike."""
    import torch
    import triton.language as tl

    kind = arg["kind"]
    if kind == "tensor":
        dtype = getattr(torch, arg["dtype"])
        value = fill_tensor(arg, generator, dtype)
        pad = arg.get("pad")
        if pad:  # rows of pad[0] elements, those past pad[1] zero bits (0 in every element type)
            row, valid = int(pad[0]), int(pad[1])
            bits = value.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[value.element_size()])
            # or poisoned: all bits set (NaN in every float type)
            bits[(torch.arange(bits.numel()) % row) >= valid] = (255 if bits.dtype == torch.uint8 else -1) \
                if arg.get("pad_poison") else 0
        return value
    if kind == "none":
        return None
    value = arg["value"]
    if isinstance(value, dict) and "dtype" in value:
        return getattr(tl, value["dtype"])
    return value


def fill_tensor(arg: dict[str, Any], generator: Any, dtype: Any) -> Any:
    """A tensor argument's elements by its fill. Self-contained, as `argument_value`."""
    import torch

    n, fill = arg["numel"], arg["fill"]
    if fill == "negative":
        return (-torch.rand(n, generator=generator) - 0.5).to(dtype)
    if fill == "segments":  # segment boundaries: 0, L, 2L, ... (every segment of length L)
        return (torch.arange(n, dtype=torch.int64) * int(arg["value"])).to(dtype)
    if fill == "count":  # a row count read from memory: the rows the launch covers
        return torch.full((n,), int(arg["value"]), dtype=torch.int64).to(dtype)
    if fill == "index":  # gathered ids and segment starts: 0, 1, 2, ... (from 1 past a null slot)
        return (torch.arange(n, dtype=torch.int64) + int(arg.get("value") or 0)).to(dtype)
    if fill == "e8m0":  # power-of-two scales near 1 (2**-3 to 2**3): products stay finite
        return torch.randint(124, 131, (n,), generator=generator, dtype=torch.int32).to(dtype)
    if fill == "randint":
        return torch.randint(0, 256, (n,), generator=generator, dtype=torch.int32).to(dtype)
    if fill == "zeros" or not dtype.is_floating_point:
        return torch.zeros(n, dtype=dtype)
    return torch.randn(n, generator=generator, dtype=torch.float32).to(dtype)


def _identity_patch(path: str, line: int, value: float) -> Any:
    """Set the masked-off lanes of the loads at `path:line` to `value` (a reduction's identity)."""
    import numpy as np
    from triton.runtime import interpreter as interp

    cls = interp.InterpreterBuilder
    inner = cls.create_masked_load

    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *rest: Any) -> Any:
        ret = inner(self, ptrs, mask, other, *rest)
        frame: FrameType | None = sys._getframe(1)
        hit = False
        while frame is not None:
            if frame.f_code.co_filename == path and frame.f_lineno == line:
                hit = True
                break
            frame = frame.f_back
        if not hit or mask is None:
            return ret
        data = np.array(ret.data, copy=True)
        off = ~np.broadcast_to(np.asarray(getattr(mask, "data", mask), dtype=bool), data.shape)
        if data.dtype.kind == "f":
            data[off] = value
        return interp.TensorHandle(data, ret.dtype)

    cls.create_masked_load = create_masked_load
    return lambda: setattr(cls, "create_masked_load", inner)


def _record_stores(guard: Any, launch: dict[str, Any], written: dict[str, dict[int, int]]) -> Any:
    """Count, per tensor and element, the in-bounds writes of the stores at the launch's `watch` lines."""
    import numpy as np
    from triton.runtime import interpreter as interp

    watch = launch.get("watch")
    if not watch:
        return lambda: None
    path, lines = launch["module"], set(watch)
    cls = interp.InterpreterBuilder
    inner = cls.create_masked_store

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and not (frame.f_code.co_filename == path and frame.f_lineno in lines):
            frame = frame.f_back
        current = getattr(guard._local, "launch", None)
        if frame is not None and current is not None:
            p = np.asarray(ptrs.data).astype(np.int64)
            active = np.ones(p.shape, bool) if mask is None else np.broadcast_to(
                np.asarray(getattr(mask, "data", mask), dtype=bool), p.shape)
            for region in current.regions:
                inside = active & (p >= region.start) & (p < region.end)
                if inside.any():
                    items = (p[inside] - region.start) // max(1, region.itemsize)
                    counts = written.setdefault(region.name, {})
                    for x in items.tolist():
                        counts[int(x)] = counts.get(int(x), 0) + 1
        return inner(self, ptrs, value, mask, *rest)

    cls.create_masked_store = create_masked_store
    return lambda: setattr(cls, "create_masked_store", inner)


def run_job(job: dict[str, Any], out: Path) -> None:
    import torch

    from tritonlint.verify.interpreter_guard import InterpreterGuard

    results = []
    modules: dict[str, Any] = {}
    load_error = None
    try:
        modules = {path: _load(path) for path in dict.fromkeys(launch["module"] for launch in job["launches"])}
    except BaseException as error:  # noqa: BLE001 - the generated module's failure is a result
        load_error = "".join(traceback.format_exception_only(type(error), error)).strip()[-2000:]
    for i, launch in enumerate(job["launches"]):
        result: dict[str, Any] = {"label": launch.get("label", ""), "status": "crashed", "violations": [],
                                  "error": None}
        t0 = time.monotonic()
        restore = None
        if load_error is not None:
            result["error"] = load_error
            results.append(result)
            continue
        guard = InterpreterGuard(fill=job.get("fill", 0), red_zone=1 << 20)
        try:
            generator = torch.Generator().manual_seed(0)
            values = {a["name"]: argument_value(a, generator) for a in launch["args"]}
            kernel = getattr(modules[launch["module"]], launch["kernel"])
            identity = launch.get("identity")
            if identity is not None:
                restore = _identity_patch(launch["module"], identity["line"], identity["value"])
            undefined = launch.get("undefined")
            if undefined is not None:  # where the identity patch sits: before the guard
                restore = undefined_lanes_patch(launch["module"], undefined["line"], undefined["extreme"])
            written: dict[str, dict[int, int]] = {}
            # Installed before the guard, so that the guard's frame walk still starts at its own frame.
            undo = _record_stores(guard, launch, written)
            # The group oracle's patches (TL104, a tile wider than its group): padding lanes switched
            # off at the access, or every program's writes at the flagged store recorded.
            padding: dict[str, Any] = {}
            writes: dict[str, dict[int, dict[tuple[int, ...], float]]] = {}
            reach: dict[str, int] = {}
            # Inside the guard: the sizing run's reach (it sees the lanes the padding patch leaves on).
            undo_reach = record_reach(guard, reach) if launch.get("reach") else (lambda: None)
            try:
                with guard:
                    # Outside the guard (installed after it): the lanes switched off are never checked,
                    # so an original run's padding lanes past every tensor drop out as a mask would.
                    # Their frames are transparent to the guard's walk (GUARD_TRANSPARENT).
                    undo_padding = switch_off_padding(dict(launch["padding"], module=launch["module"]), padding,
                                                      guard) if launch.get("padding") else (lambda: None)
                    undo_writers = record_writers(guard, launch["module"], set(launch["writers"]), writes) \
                        if launch.get("writers") else (lambda: None)
                    # TL105's identity at the reduction the finding names, outside the guard too: it
                    # reads the kernel's own mask, not the one the guard narrows to in-bounds lanes.
                    undo_reduction = reduction_identity_patch(launch["module"], identity["line"],
                                                              identity["reduce_line"]) \
                        if identity is not None and identity.get("reduce_line") is not None else (lambda: None)
                    try:
                        kernel[tuple(launch["grid"])](**values)
                    finally:
                        undo_reduction()
                        undo_writers()
                        undo_padding()
            finally:
                undo_reach()
                undo()
            result["status"] = "ok"
            result["written"] = written
            if launch.get("padding"):
                result["padding"] = padding
            if launch.get("writers"):
                result["conflicts"] = conflicts(writes)
            if launch.get("reach"):
                result["reach"] = reach
            tensors = {n: v.clone() for n, v in values.items() if isinstance(v, torch.Tensor)}
            torch.save(tensors, out / f"outputs{i}.pt")
        except BaseException as error:  # noqa: BLE001 - the kernel's failure is a result
            result["error"] = error_summary(error)
        finally:
            if restore is not None:
                restore()
            result["violations"] = [v.to_dict() for v in guard.violations]
            result["elapsed"] = time.monotonic() - t0
        results.append(result)
        # A step that settles the finding ends the job: the parent takes the first such step, and a
        # recurrent kernel's run can take seconds a launch under the interpreter (the time limit is the job's).
        if any(stop["after"] == i and shown(results, stop) for stop in job.get("stops", ())):
            break
    for a, b in job.get("compare", ()):
        if a < len(results) and b < len(results):
            results[a].setdefault("differs", {})[str(b)] = _compare(out, a, b)
    (out / "results.json").write_text(json.dumps(results, default=str))


def _compare(out: Path, a: int, b: int) -> dict[str, Any] | None:
    """Per tensor argument: the largest difference between two runs' final values (None: a run failed)."""
    import torch

    pa, pb = out / f"outputs{a}.pt", out / f"outputs{b}.pt"
    if not pa.exists() or not pb.exists():
        return None
    ta, tb = torch.load(pa), torch.load(pb)
    diffs: dict[str, Any] = {}
    for name in ta:
        x, y = ta[name], tb.get(name)
        if y is None or x.shape != y.shape:
            diffs[name] = {"max_abs": None, "elements": -1}
            continue
        x, y = x.double(), y.double()
        nan_x, nan_y = torch.isnan(x), torch.isnan(y)
        both = ~(nan_x | nan_y)
        delta = (x - y).abs().where(both, torch.zeros_like(x))
        delta = delta.where(~torch.isinf(delta), torch.zeros_like(x))
        inf_diff = (torch.isinf(x) | torch.isinf(y)) & both & (x != y)
        bad = (nan_x != nan_y) | inf_diff | (delta > 1e-4 * (1 + y.abs().where(both, torch.zeros_like(y))))
        if bad.any():
            diffs[name] = {"max_abs": float(delta.max()), "elements": int(bad.sum()),
                           "nan": int((nan_x != nan_y).sum()), "nan_first": int((nan_x & ~nan_y).sum()),
                           "nan_second": int((nan_y & ~nan_x).sum()), "first": int(bad.nonzero()[0][0]),
                           "where": [int(i) for i in bad.nonzero().flatten()[:100000]]}
    return diffs


def error_summary(error: BaseException) -> str:
    """The error's message, with the innermost frame of the kernel's source when there is one."""
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    # The interpreter re-raises a kernel's error from its launcher (`raise InterpreterError(...) from e`):
    # the kernel's own frames are on the cause, so the innermost exception of the chain is read first.
    chain: list[BaseException] = []
    at: BaseException | None = error
    while at is not None and at not in chain:
        chain.append(at)
        at = at.__cause__ or at.__context__
    frames = []
    for e in reversed(chain):
        frames = [f for f in traceback.extract_tb(e.__traceback__) if "_tritonlint_witness_" in f.filename
                  or "witness_module" in f.filename]
        if frames:
            break
    where = f" (at line {frames[-1].lineno} of the generated module)" if frames else ""
    return (text[-1500:] + where)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    job = json.loads(Path(args[0]).read_text())
    out = Path(args[1])
    os.environ["TRITON_INTERPRET"] = "1"
    run_job(job, out)
    return 0


def forked_main(job: str, out: str, log: str) -> None:
    """Entry of a run forked from the preloaded forkserver: its own session, output file, exit."""
    os.setsid()  # its own process group, so the parent can kill it whole
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    code = 0
    try:
        main([job, out])
    except BaseException:  # noqa: BLE001 - written to the log, read by the parent
        traceback.print_exc()
        code = 3
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
