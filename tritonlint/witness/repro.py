"""`--emit-repro`: one standalone script per confirmed finding (torch and triton only) that prints its evidence."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

from tritonlint.witness import child

# The script carries the generated module's text, the launch, and a small guard of its own: every
# tensor sits at the start of a larger buffer whose tail (the guard region) is filled with NaN or
# 0x7f..., and the interpreter's load/store entry points check each active lane's address against
# the exact bounds of its tensor. It needs nothing from tritonlint.
TEMPLATE = r'''"""Reproduces {code} at {where}: {reason}

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
GUARD = {guard}  # elements of poisoned guard region after each tensor: past the farthest overrun seen

path = os.path.join(tempfile.mkdtemp(), "kernel_under_test.py")
with open(path, "w") as f:
    f.write(KERNEL_SOURCE)
spec = importlib.util.spec_from_file_location("kernel_under_test", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

{fill_source}


generator = torch.Generator().manual_seed(0)  # the witness's own draw
args, bounds = {{}}, {{}}
for a in LAUNCH["args"]:
    if a["kind"] == "tensor":
        dtype = getattr(torch, a["dtype"])
        buf = torch.full((a["numel"] + GUARD,), float("nan") if dtype.is_floating_point else 0x7F, dtype=dtype)
        buf[: a["numel"]] = argument_value(a, generator)
        args[a["name"]] = buf  # the kernel gets the whole buffer; its tensor is the first numel elements
        bounds[a["name"]] = (a["numel"], buf.element_size())
    else:
        args[a["name"]] = argument_value(a, generator)

found = []
starts = {{}}


def check(kind, ptrs, mask):
    frame, hit = sys._getframe(2), False
    while frame is not None:
        if frame.f_code.co_filename == path and frame.f_lineno == LINE:
            hit = True
            break
        frame = frame.f_back
    if not hit:
        return
    p = np.asarray(ptrs.data).astype(np.int64)
    active = np.ones(p.shape, bool) if mask is None else np.broadcast_to(np.asarray(getattr(mask, "data", mask), bool), p.shape)
    for name, (start, end, size) in starts.items():
        past = active & (p >= end) & (p < end + GUARD * size)
        if past.any():
            found.append((kind, name, int(((p[past] - end) // size).max()) + 1, int(past.sum())))


load, store = interp.InterpreterBuilder.create_masked_load, interp.InterpreterBuilder.create_masked_store


def create_masked_load(self, ptrs, mask, *rest):
    check("load", ptrs, mask)
    return load(self, ptrs, mask, *rest)


def create_masked_store(self, ptrs, value, mask, *rest):
    check("store", ptrs, mask)
    return store(self, ptrs, value, mask, *rest)


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
    print(f"{{kind}} at {{WHERE}} ran up to {{past}} element(s) past the end of `{{name}}` "
          f"({{bounds[name][0]}} elements, {{lanes}} lane(s)); grid {{tuple(LAUNCH['grid'])}}, {{LAUNCH['sizes']}}")
outputs = [n for n, v in args.items() if hasattr(v, "isnan") and v[: bounds[n][0]].isnan().any()]
if outputs:
    print("NaN from the guard region reached:", ", ".join(outputs))
sys.exit(1)
'''

# The witness child's fills, carried as source: the script draws the witness's own values.
_FILL_SOURCE = "\n\n".join(inspect.getsource(function) for function in (child.fill_tensor, child.argument_value))


def emit(folder: Path, display: str, diagnostic: Any, witness: Any) -> Path:
    """Write the script for one confirmed finding; return its path."""
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", f"{display}_{diagnostic.line}_{diagnostic.code}").strip("_")
    target = folder / f"repro_{stem[-120:]}.py"
    offset = witness.module_offset
    target.write_text(TEMPLATE.format(
        code=diagnostic.code, where=f"{display}:{diagnostic.line}", reason=witness.reason.replace('"""', "'''"),
        name=target.name, source=witness.module_source, launch=repr(witness.launch),
        line=diagnostic.line + offset, fill_source=_FILL_SOURCE, guard=_guard(witness)))
    return target


def _guard(witness: Any) -> int:
    """The guard region's length: 4096 elements, or past the farthest the witness saw the access run (a
    swizzled scale tile overran `WMxScale` by 16132: a shorter guard left the read in unowned memory,
    where the script crashed instead of showing it)."""
    past = (witness.evidence or {}).get("elements_past")
    return max(4096, 2 * past) if isinstance(past, int) and not isinstance(past, bool) else 4096
