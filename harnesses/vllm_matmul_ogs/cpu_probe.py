"""`matmul_ogs`'s real host path and `_matmul_ogs` under TRITON_INTERPRET=1 on a CPU-only machine.

Runs the package's own `matmul_ogs` (opt flags, routing, layouts, the launch) with the kernel in
Triton's interpreter under tritonlint's guard (every lane checked against its tensor's storage,
the bytes past each storage set to TRITONLINT_FILL), and prints the out-of-bounds accesses, the
NaN count and the distance to a float32 reference (an independent MXFP4 dequantization).

What it takes to get there (docs/verification/fixes.md, "The 3 `_matmul_ogs.py` fixes on the CPU"):
- the Hopper *scale* layout with strided (not Hopper-swizzled) values: the kernel takes its
  `HOPPER_SCALE` branch (the load at `_matmul_ogs.py:327`) and `tl.dot_scaled` (emulated by
  tritonlint's interpreter shims) instead of `mxfp4_to_bf16_triton`'s inline PTX;
  TRITONLINT_SCALE_LAYOUT=cdna4 takes `CDNA4_SCALE` (`:329`), =blackwell `BLACKWELL_SCALE` (`:323`);
- `tl.extra.cuda.num_warps()` answered with the launch's num_warps (tritonlint's interpreter shim);
- the host decisions of an sm_90 GPU: a stand-in driver target and torch.cuda's capability and
  properties (no GPU here);
- `get_kernels` without `specialize` (which rebuilds the kernel as a compiled `JITFunction`): the
  original kernels launched with the specialized constants passed as their constexpr arguments.

    VLLM_TK_ROOT=<folder holding triton_kernels/> [TRITONLINT_FILL=0xff] [TRITONLINT_K=2880]
        [TRITONLINT_BLOCK_K=128] [TRITONLINT_SCALE_LAYOUT=cdna4] python harnesses/vllm_matmul_ogs/cpu_probe.py
"""

from __future__ import annotations

import os
import sys
import time
import types
from pathlib import Path
from typing import Any

os.environ["TRITON_INTERPRET"] = "1"
sys.dont_write_bytecode = True  # the package folder may be read-only
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch
import triton
from triton.backends.compiler import GPUTarget


class HopperHost:
    """The host side of an sm_90 GPU for triton_kernels' choices; kernels run in the interpreter."""

    def get_current_target(self) -> Any:
        return GPUTarget("cuda", 90, 32)

    def get_active_torch_device(self) -> Any:
        return torch.device("cpu")

    def get_current_device(self) -> int:
        return 0


def unspecialized_kernels(mo: Any) -> Any:
    """`get_kernels` without `specialize` (which needs a compiled JITFunction): the original kernels,
    launched with the specialized constants passed as their constexpr arguments, as the specialized
    source binds them (`ACTIVATION_FN: tl.constexpr = ...`, `activation_fn_args = (...)`)."""
    import inspect

    def get_kernels(epilogue: Any = None, fused_activation: Any = None) -> Any:
        from triton_kernels.matmul_ogs import FnSpecs

        epilogue = epilogue or FnSpecs.default()
        fused_activation = fused_activation or FnSpecs.default()
        constants = {"ACTIVATION_FN": fused_activation.fn, "EPILOGUE_FN": epilogue.fn}
        tuples = {"activation_fn_args": tuple(fused_activation.fn_arg_names),
                  "epilogue_fn_args": tuple(epilogue.fn_arg_names)}

        class Launcher:
            def __init__(self, kernel: Any) -> None:
                self.kernel = kernel
                names = list(inspect.signature(kernel.fn).parameters)
                self.names = [x for name in names if name not in constants for x in tuples.get(name, (name,))]

            def __getitem__(self, grid: Any) -> Any:
                def launch(*args: Any, **kwargs: Any) -> Any:
                    named = dict(zip(self.names, args, strict=False))
                    for name, fields in tuples.items():
                        named[name] = tuple(named.pop(f) for f in fields)
                    # triton_kernels' Tensor wraps its torch storage: the interpreter takes the storage.
                    named = {k: v.storage.data if hasattr(getattr(v, "storage", None), "data") else v
                             for k, v in named.items()}
                    return self.kernel[grid](**named, **constants, **kwargs)
                return launch

        return types.SimpleNamespace(_matmul_ogs=Launcher(mo._matmul_ogs), _p_matmul_ogs=Launcher(mo._p_matmul_ogs),
                                     _reduce_grouped=Launcher(mo._reduce_grouped))

    return get_kernels


def main() -> None:
    triton.runtime.driver.set_active(HopperHost())
    torch.cuda.get_device_capability = lambda *a, **k: (9, 0)  # type: ignore[assignment]
    torch.cuda.get_device_properties = lambda *a, **k: types.SimpleNamespace(  # type: ignore[assignment]
        multi_processor_count=132, shared_memory_per_block_optin=232448, name="sm_90 (host stand-in)")
    from tritonlint.verify import interpreter_compat

    interpreter_compat.install()
    import harness as h

    h._import_triton_kernels()
    import triton_kernels.matmul_ogs as mo
    from triton_kernels.matmul_ogs import FlexCtx, PrecisionConfig
    from triton_kernels.matmul_ogs_details import opt_flags
    from triton_kernels.numerics import InFlexData
    from triton_kernels.tensor import FP4, convert_layout, wrap_torch_tensor
    from triton_kernels.tensor_details import layout

    mo.get_kernels = unspecialized_kernels(mo)
    e, m, n, k = 4, 8, 256, int(os.environ.get("TRITONLINT_K", "2880"))
    p = h.make_problem(e=e, m=m, n=n, k=k)
    w = convert_layout(wrap_torch_tensor(p.w_q.transpose(-2, -1), dtype=FP4), layout.StridedLayout)
    # TRITONLINT_SCALE_LAYOUT=blackwell|cdna4: that target's scale swizzle (the kernel's BLACKWELL_SCALE /
    # CDNA4_SCALE branch, `_matmul_ogs.py:323` / `:329`); default Hopper's (`:327`).
    other = os.environ.get("TRITONLINT_SCALE_LAYOUT", "")
    scales = wrap_torch_tensor(p.w_s.transpose(-2, -1))
    if other == "blackwell":
        s = convert_layout(scales, layout.BlackwellMXScaleLayout)
    elif other == "cdna4":
        s = convert_layout(scales, layout.CDNA4MXScaleLayout)
    else:
        s = convert_layout(scales, layout.HopperMXScaleLayout, mx_axis=1, num_warps=h.NUM_WARPS)
    block_k = int(os.environ.get("TRITONLINT_BLOCK_K", "128"))
    opt_flags.update_opt_flags_constraints({"split_k": 1, "block_k": block_k, "block_m": 16, "is_persistent": False})
    routing, gather, _scatter = h.make_routing(p.logits, h.TOPK)
    pc = PrecisionConfig(weight_scale=s, flex_ctx=FlexCtx(rhs_data=InFlexData()))
    from tritonlint.verify.interpreter_guard import InterpreterGuard

    guard = InterpreterGuard(fill=h.fill_value())  # every lane checked; the bytes past each storage = fill
    guard.install()
    start = time.time()
    try:
        y = mo.matmul_ogs(p.x, w, None, routing, gather_indx=gather, precision_config=pc)
    finally:
        guard.uninstall()
    seconds = round(time.time() - start, 1)
    ref = h.reference_of({"problem": p, "x": p.x, "routing_data": routing, "gather_indx": gather})
    finite = torch.isfinite(y)
    err = (y.float() - ref).abs()[finite].max().item() if finite.any() else float("nan")
    print(f"ran {seconds} s, out {tuple(y.shape)}, {int(torch.isnan(y).sum())} NaN, "
          f"max |out - ref| over finite {err:.4g} (ref max {ref.abs().max().item():.4g})")
    for v in guard.violations:
        print(f"out of bounds: {v.kind} at {Path(v.path).name}:{v.line} ran {v.max_elements} element(s) "
              f"{v.direction} `{v.tensor}`")
    if os.environ.get("TRITONLINT_SAVE"):
        torch.save(y, os.environ["TRITONLINT_SAVE"])


if __name__ == "__main__":
    main()
