"""A builtin of the language bound to a module-level name (`exp = tl.exp`) and called in a kernel runs
under the interpreter as it compiles; Triton 3.6's interpreter leaves the alias unpatched and raises."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

REPO = Path(__file__).resolve().parents[2]

DRIVER = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl
    if {compat}:
        from tritonlint.verify import interpreter_compat
        interpreter_compat.install()

    square_root = tl.sqrt


    @triton.jit
    def roots(X, Y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, square_root(tl.load(X + offs)))


    x = torch.tensor([1.0, 4.0, 9.0, 16.0])
    y = torch.zeros(4)
    roots[(1,)](x, y, BLOCK=4)
    roots[(1,)](x * 4, y, BLOCK=4)
    print("ran", y.tolist(), square_root is tl.sqrt)
""")


@pytest.mark.parametrize("compat", [True, False])
def test_a_builtin_aliased_at_module_level_runs(tmp_path: Path, compat: bool) -> None:
    (tmp_path / "driver.py").write_text(DRIVER.format(compat=compat))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(tmp_path / "driver.py")], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    if compat:
        # Twice (the patch is undone after each run: the alias is the builtin again afterwards).
        assert "ran [2.0, 4.0, 6.0, 8.0] True" in proc.stdout, proc.stderr[-2000:]
    else:
        assert "ran" not in proc.stdout


LIBDEVICE = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice
    if {compat}:
        from tritonlint.verify import interpreter_compat
        interpreter_compat.install()

    inverse_root = libdevice.rsqrt
    fast_log = libdevice.fast_logf


    @triton.jit
    def inverse_roots(X, Y, Z, L, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, inverse_root(x))
        tl.store(Z + offs, libdevice.rsqrt(x))
        # a `fast_<f>f` approximation computes `<f>` under the interpreter
        tl.store(L + offs, fast_log(x) + libdevice.fast_expf(x * 0.0))


    x = torch.tensor([1.0, 4.0, 16.0, 64.0])
    y = torch.zeros(4)
    z = torch.zeros(4)
    lg = torch.zeros(4)
    inverse_roots[(1,)](x, y, z, lg, BLOCK=4)
    print("ran", y.tolist(), z.tolist())
    print("fast", [round(v, 4) for v in lg.tolist()])
""")


@pytest.mark.parametrize("compat", [True, False])
def test_libdevice_functions_with_a_math_twin_run(tmp_path: Path, compat: bool) -> None:
    (tmp_path / "driver.py").write_text(LIBDEVICE.format(compat=compat))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(tmp_path / "driver.py")], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    if compat:
        assert "ran [1.0, 0.5, 0.25, 0.125] [1.0, 0.5, 0.25, 0.125]" in proc.stdout, proc.stderr[-2000:]
        # log(x) + exp(0): 1 + [0, ln 4, ln 16, ln 64]
        assert "fast [1.0, 2.3863, 3.7726, 5.1589]" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    else:
        assert "ran" not in proc.stdout
