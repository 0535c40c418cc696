"""`--emit-repro`: one standalone script per confirmed finding (torch and triton only) that prints its evidence."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

from tritonlint.witness import child
from tritonlint.witness.padding_patch import lane_axis
from tritonlint.witness.reduction_lanes import reduction_identity_patch

# The script carries the generated module's text, the launch, and a small guard of its own: every
# tensor sits at the start of a larger buffer whose tail (the guard region) is filled with NaN or
# 0x7f..., and the interpreter's load/store entry points check each active lane's address against
# the exact bounds of its tensor. It needs nothing from tritonlint.
HEAD = r'''"""Reproduces {code} at {where}: {reason}

Found by `tritonlint witness`. Needs only torch and triton (CPU): python {name}
"""
import os
import sys
import tempfile

os.environ["TRITON_INTERPRET"] = "1"

import importlib.util
from typing import Any  # the carried fill functions' annotations

import numpy as np
import torch
from triton.runtime import interpreter as interp

KERNEL_SOURCE = {source!r}
LAUNCH = {launch}
LINE = {line}  # the flagged access, as a line of KERNEL_SOURCE
WHERE = {where!r}  # the same line in the analysed file
GUARD = {guard}  # elements of poisoned guard region before and after each tensor: past the farthest overrun seen

path = os.path.join(tempfile.mkdtemp(), "kernel_under_test.py")
with open(path, "w") as f:
    f.write(KERNEL_SOURCE)
spec = importlib.util.spec_from_file_location("kernel_under_test", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

{fill_source}


def make_args():
    """The launch's arguments, drawn as the witness drew them (the same values on every call)."""
    generator = torch.Generator().manual_seed(0)  # the witness's own draw
    args, bounds = {{}}, {{}}
    for a in LAUNCH["args"]:
        if a["kind"] == "tensor":
            dtype = getattr(torch, a["dtype"])
            # A poisoned guard region before the tensor and after it: a lane may run off either end.
            buf = torch.full((GUARD + a["numel"] + GUARD,), float("nan") if dtype.is_floating_point else 0x7F,
                             dtype=dtype)
            buf[GUARD: GUARD + a["numel"]] = argument_value(a, generator)
            # The kernel gets the buffer from the tensor's start on; its tensor is the first numel elements.
            args[a["name"]] = buf[GUARD:]
            bounds[a["name"]] = (a["numel"], buf.element_size())
        else:
            args[a["name"]] = argument_value(a, generator)
    return args, bounds


def at_line():
    """Whether the interpreter is running the flagged line of the kernel (a caller's frame)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == path and frame.f_lineno == LINE:
            return True
        frame = frame.f_back
    return False


def confined(ptrs, mask, regions):
    """The mask with every lane that points outside all `regions` (each tensor with its guard) switched
    off: an access of another line that runs wild would corrupt this process's memory, not report."""
    p = np.asarray(ptrs.data).astype(np.int64)
    inside = np.zeros(p.shape, bool)
    for start, stop in regions:
        inside |= (p >= start) & (p < stop)
    active = np.ones(p.shape, bool) if mask is None else np.broadcast_to(np.asarray(getattr(mask, "data", mask), bool), p.shape)
    if (active & ~inside).any():
        return interp.TensorHandle(np.array(active & inside), interp.tl.int1)
    return mask
'''

# The bounds oracle's body: one run, every active lane at the flagged line checked against the end of
# each tensor.
BOUNDS = r'''

args, bounds = make_args()
found = []
starts = {{}}


def check(kind, ptrs, mask):
    if not at_line():
        return
    p = np.asarray(ptrs.data).astype(np.int64)
    active = np.ones(p.shape, bool) if mask is None else np.broadcast_to(np.asarray(getattr(mask, "data", mask), bool), p.shape)
    for name, (start, end, size) in starts.items():
        past = active & (p >= end) & (p < end + GUARD * size)
        if past.any():
            found.append((kind, name, int(((p[past] - end) // size).max()) + 1, int(past.sum())))
        before = active & (p < start) & (p >= start - GUARD * size)
        if before.any():  # counted negative: elements before the start
            found.append((kind, name, -int(((start - p[before]) // size).max()), int(before.sum())))


load, store = interp.InterpreterBuilder.create_masked_load, interp.InterpreterBuilder.create_masked_store


def guarded():
    return [(start - GUARD * size, end + GUARD * size) for start, end, size in starts.values()]


def create_masked_load(self, ptrs, mask, *rest):
    check("load", ptrs, mask)
    return load(self, ptrs, confined(ptrs, mask, guarded()), *rest)


def create_masked_store(self, ptrs, value, mask, *rest):
    check("store", ptrs, mask)
    return store(self, ptrs, value, confined(ptrs, mask, guarded()), *rest)


interp.InterpreterBuilder.create_masked_load = create_masked_load
interp.InterpreterBuilder.create_masked_store = create_masked_store
init = interp.GridExecutor._init_args_hst


def init_args_hst(self, args_dev, kwargs):
    args_hst, kwargs_hst = init(self, args_dev, kwargs)
    for name, value in kwargs_hst.items():
        if name in bounds and hasattr(value, "data_ptr"):
            numel, size = bounds[name]
            starts[name] = (value.data_ptr(), value.data_ptr() + numel * size, size)
    return args_hst, kwargs_hst


interp.GridExecutor._init_args_hst = init_args_hst
kernel = getattr(module, LAUNCH["kernel"])
kernel[tuple(LAUNCH["grid"])](**args)
if not found:
    print("no out-of-bounds access at the flagged line")
    sys.exit(0)
for kind, name, past, lanes in found[:5]:
    side = f"{{past}} element(s) past the end" if past > 0 else f"{{-past}} element(s) before the start"
    print(f"{{kind}} at {{WHERE}} ran up to {{side}} of `{{name}}` "
          f"({{bounds[name][0]}} elements, {{lanes}} lane(s)); grid {{tuple(LAUNCH['grid'])}}, {{LAUNCH['sizes']}}")
outputs = [n for n, v in args.items() if hasattr(v, "isnan") and v[: bounds[n][0]].isnan().any()]
if outputs:
    print("NaN from the guard region reached:", ", ".join(outputs))
sys.exit(1)
'''

# The two-run oracles' body (TL104's tile wider than its group, TL105's masked-off lanes): the
# launch runs as it is and once more with the flagged access changed as SECOND says; the outputs
# differ where the finding matters. Programs run one after another here, so a store race (two
# programs writing one element with different values) is counted as the writes happen.
DIFFERENCE = r'''
import json

{lane_axis_source}

SECOND = json.loads({second})  # JSON: an identity may be infinite

load, store = interp.InterpreterBuilder.create_masked_load, interp.InterpreterBuilder.create_masked_store
state = {{"second": False, "ends": [], "guarded": [], "writes": {{}}, "races": set()}}


def lanes_kept(ptrs, mask):
    # Lanes pointing into no tensor are dropped in both runs (past the last group: another finding's claim).
    p = np.asarray(ptrs.data).astype(np.int64)
    keep = np.zeros(p.shape, bool)
    for start, end in state["ends"]:
        keep |= (p >= start) & (p < end)
    if mask is not None:
        keep &= np.broadcast_to(np.asarray(getattr(mask, "data", mask), bool), p.shape)
    if state["second"] and SECOND["kind"] == "padding":
        shape = p.shape
        axis = lane_axis(shape, SECOND["axis"], SECOND["ndim"], SECOND["block"])
        if axis is not None:
            index = np.arange(shape[axis]).reshape([-1 if i == axis else 1 for i in range(len(shape))])
            keep &= np.broadcast_to(index < SECOND["group"], shape)
    return interp.TensorHandle(np.array(keep), interp.tl.int1)


def create_masked_load(self, ptrs, mask, other, *rest):
    if not at_line():
        return load(self, ptrs, confined(ptrs, mask, state["guarded"]), other, *rest)
    if SECOND["kind"] == "padding":
        return load(self, ptrs, lanes_kept(ptrs, mask), other, *rest)
    ret = load(self, ptrs, mask, other, *rest)
    if state["second"] and mask is not None:  # TL105: the masked-off lanes hold the reduction's identity
        data = np.array(ret.data, copy=True)
        data[~np.broadcast_to(np.asarray(getattr(mask, "data", mask), bool), data.shape)] = SECOND["value"]
        ret = interp.TensorHandle(data, ret.dtype)
    return ret


def create_masked_store(self, ptrs, value, mask, *rest):
    if not at_line():
        mask = confined(ptrs, mask, state["guarded"])
    elif SECOND["kind"] == "padding":
        mask = lanes_kept(ptrs, mask)
        if not state["second"]:
            active = np.asarray(mask.data, bool)
            p = np.broadcast_to(np.asarray(ptrs.data).astype(np.int64), active.shape)[active]
            v = np.broadcast_to(np.asarray(value.data), active.shape)[active]
            program = tuple(self.grid_idx or ())
            for address, x in zip(p.tolist(), v.tolist()):
                before = state["writes"].setdefault(address, (program, x))
                if before[0] != program and before[1] != x:
                    state["races"].add(address)
    return store(self, ptrs, value, mask, *rest)


interp.InterpreterBuilder.create_masked_load = create_masked_load
interp.InterpreterBuilder.create_masked_store = create_masked_store
kernel = getattr(module, LAUNCH["kernel"])

{reduction_source}


if SECOND.get("reduce_line") is not None:  # TL105: the identity also where the named reduction reads the lanes
    reduction_identity_patch(path, LINE, SECOND["reduce_line"], lambda: state["second"])


def run(second):
    args, bounds = make_args()
    state["second"] = second
    state["ends"] = [(v.data_ptr(), v.data_ptr() + bounds[n][0] * bounds[n][1]) for n, v in args.items() if n in bounds]
    state["guarded"] = [(v.data_ptr(), v.data_ptr() + v.numel() * v.element_size()) for n, v in args.items() if n in bounds]
    kernel[tuple(LAUNCH["grid"])](**args)
    return {{n: v[: bounds[n][0]].double() for n, v in args.items() if n in bounds}}


first, second = run(False), run(True)
changed = []
for name in first:
    a, b = first[name], second[name]
    differ = ~((a == b) | (a.isnan() & b.isnan()))
    if differ.any():
        changed.append((name, int(differ.sum()), float((a - b)[differ].abs().nan_to_num(float("inf")).max())))
what = ("the lanes past the group switched off" if SECOND["kind"] == "padding"
        else f"the masked-off lanes set to {{SECOND['value']}}")
for name, elements, max_abs in changed:
    print(f"`{{name}}` differs from the run with {{what}} at {{WHERE}} in {{elements}} element(s) "
          f"(max |diff| {{max_abs:.4g}}); grid {{tuple(LAUNCH['grid'])}}, {{LAUNCH['sizes']}}")
if state["races"]:
    print(f"the store at {{WHERE}} writes {{len(state['races'])}} element(s) that another program writes with "
          "another value (a race on a GPU)")
if not changed and not state["races"]:
    print(f"the outputs do not depend on {{what}}")
    sys.exit(0)
sys.exit(1)
'''


# The witness child's fills, carried as source: the script draws the witness's own values.
_FILL_SOURCE = "\n\n".join(inspect.getsource(function) for function in (child.fill_tensor, child.argument_value))
# The group oracle's choice of the tile's axis, carried as source: the script switches off the lanes the
# witness did.
_LANE_AXIS_SOURCE = inspect.getsource(lane_axis)
# TL105's identity at the reduction, carried as source: the script's second run is the witness's.
_REDUCTION_SOURCE = inspect.getsource(reduction_identity_patch)


def emit(folder: Path, display: str, diagnostic: Any, witness: Any) -> Path | None:
    """Write the script for one confirmed finding; return its path (None for a two-run confirmation
    whose second run the witness did not describe: nothing to run again)."""
    two_runs = diagnostic.code == "TL105" or (witness.evidence or {}).get("kind") in ("padding", "race")
    if two_runs and witness.second_run is None:
        return None
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", f"{display}_{diagnostic.line}_{diagnostic.code}").strip("_")
    target = folder / f"repro_{stem[-120:]}.py"
    launch = witness.launch
    if witness.second_run is not None and witness.second_run["kind"] == "identity":
        # The witness ran a reduction's check on negative data (a max over it shows a masked-off 0 at
        # once): the script draws the same.
        launch = {**launch, "args": [{**a, "fill": "negative"} if a["kind"] == "tensor" and a["fill"] == "randn"
                                     else a for a in launch["args"]]}
    body = BOUNDS if witness.second_run is None else DIFFERENCE
    target.write_text((HEAD + body).format(
        code=diagnostic.code, where=f"{display}:{diagnostic.line}", reason=witness.reason.replace('"""', "'''"),
        name=target.name, source=witness.module_source, launch=repr(launch),
        line=(witness.judged_line or diagnostic.line) + witness.module_offset, fill_source=_FILL_SOURCE,
        second=repr(json.dumps(witness.second_run)), guard=_guard(witness), lane_axis_source=_LANE_AXIS_SOURCE,
        reduction_source=_REDUCTION_SOURCE))
    return target


def _guard(witness: Any) -> int:
    """The guard region's length: 4096 elements, or past the farthest the witness saw the access run (a
    swizzled scale tile overran `WMxScale` by 16132: a shorter guard left the read in unowned memory,
    where the script crashed instead of showing it)."""
    past = (witness.evidence or {}).get("elements_past")
    return max(4096, 2 * past) if isinstance(past, int) and not isinstance(past, bool) else 4096
