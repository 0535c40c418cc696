"""Kernels calling math functions Triton 3.6's interpreter lacks (`tl.math.tanh`, Triton 2.x's spelling;
`libdevice.tanh`, a stub returning None there; `tl.math.tanh` in a helper imported from a sibling module)
run under the witness: the generated module carries a NumPy shim for them, and a tail load is confirmed."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from tritonlint.config import check_selectors, load_config
from tritonlint.verify.interpreter_numpy_math import MATH_NAMES, compat_numpy_math
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

HELPERS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def gelu_tanh(x):
        return 0.5 * x * (1.0 + tl.math.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
""")

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice

    from gelu_helpers import gelu_tanh


    @triton.jit
    def tanh_math(X, Y, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, tl.math.tanh(x), mask=offs < N)


    @triton.jit
    def tanh_libdevice(X, Y, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, 2.0 * libdevice.tanh(x), mask=offs < N)


    @triton.jit
    def gelu_imported(X, Y, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, gelu_tanh(x), mask=offs < N)
""")


@pytest.mark.parametrize("line", [11, 18, 25])
def test_a_kernel_calling_tanh_runs_and_its_tail_load_is_confirmed(tmp_path: Path, line: int) -> None:
    (tmp_path / "gelu_helpers.py").write_text(HELPERS)
    path = tmp_path / "tanh_kernels.py"
    path.write_text(KERNELS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line and d.code == "TL101")
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason  # `error` before: no `tanh` in tl.math, or None from libdevice
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
    # The repro script runs the generated module without tritonlint: it carries the shim itself.
    assert "compat_numpy_math()" in (w.module_source or "")


def test_the_shim_names_what_it_supplies() -> None:
    import inspect

    source = inspect.getsource(compat_numpy_math)
    assert all(f'"{name}":' in source for name in MATH_NAMES)
    assert source.count('": np.') == len(MATH_NAMES)


def test_the_shim_computes_tanh_and_pow_like_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # read when the kernel is decorated
    from tritonlint.verify import interpreter_compat

    interpreter_compat.install()

    @triton.jit
    def apply(X, Y, Z, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, tl.math.tanh(x))
        tl.store(Z + offs, libdevice.pow(x, 2.0))

    x = torch.linspace(-3, 3, 16)
    y, z = torch.empty(16), torch.empty(16)
    apply[(1,)](x, y, z, BLOCK=16)
    assert np.allclose(y.numpy(), np.tanh(x.numpy()), atol=1e-6)
    assert np.allclose(z.numpy(), x.numpy() ** 2, atol=1e-5)


CUDA_KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from triton.language.extra.cuda import libdevice


    @triton.jit
    def sigmoid_by_tanh(X, Y, N, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, 0.5 * libdevice.tanh(0.5 * x) + 0.5, mask=offs < N)
""")


def test_the_cuda_device_library_runs_too(tmp_path: Path) -> None:
    # `extra.cuda.libdevice.tanh` is an extern call: "Did you forget to add @triton.jit ?" before.
    path = tmp_path / "cuda_tanh.py"
    path.write_text(CUDA_KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 9 and d.code == "TL101")
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
