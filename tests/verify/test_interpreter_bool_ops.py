"""`and`/`or` in a kernel run under Triton's interpreter as the compiler compiles them
(tritonlint/verify/interpreter_compat.py `_compat_bool_ops`): tensor operands joined lane by lane, a
constexpr operand ending the expression early. Without it the interpreter returns one operand whole
and a 2-D mask `(rows < M) and (cols < N)` loses its row bound."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.verify import interpreter_compat

REPO = Path(__file__).resolve().parents[2]

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def and_mask(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
        rows = tl.arange(0, BM)[:, None]
        cols = tl.arange(0, BN)[None, :]
        inside = (rows < M) and (cols < N)
        tl.store(Y + rows * N + cols, tl.load(X + rows * N + cols, mask=inside, other=0.0) + 1, mask=inside)


    @triton.jit
    def or_chain(Y, N, SKIP: tl.constexpr, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        low = i < 2
        if SKIP or N < 0:  # a true constexpr ends the `or`: `N < 0` decides nothing
            tl.store(Y + i, tl.full([BLOCK], 5.0, tl.float32), mask=i < N)
        else:
            tl.store(Y + i, tl.full([BLOCK], 9.0, tl.float32), mask=low or (i >= N - 1) and (i < N))
""")

DRIVER = """\
import sys
sys.path.insert(0, {folder!r})
import torch
if {compat}:
    from tritonlint.verify import interpreter_compat
    interpreter_compat.install()
import bool_forms as m
x, y = torch.arange(15.0), torch.full((32,), -7.0)
m.and_mask[(1,)](x, y, 3, 5, BM=4, BN=8)
print("and", int((y != -7.0).sum()), bool((y[:15] == x + 1).all()))
y = torch.full((8,), -7.0)
m.or_chain[(1,)](y, 5, SKIP=True, BLOCK=8)
print("or-skip", y.tolist())
y = torch.full((8,), -7.0)
m.or_chain[(1,)](y, 5, SKIP=False, BLOCK=8)
print("or-chain", y.tolist())
"""


def run(tmp_path: Path, compat: bool) -> str:
    (tmp_path / "bool_forms.py").write_text(KERNELS)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", DRIVER.format(folder=str(tmp_path), compat=compat)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_and_or_join_tensor_operands_lane_by_lane_as_compiled(tmp_path: Path) -> None:
    out = run(tmp_path, compat=True).splitlines()
    assert out[0] == "and 15 True"  # the 3 x 5 tensor, nothing past it
    assert out[1] == "or-skip " + str([5.0] * 5 + [-7.0] * 3)
    # lanes 0, 1 (low) and 4 (i >= N - 1 and i < N)
    assert out[2] == "or-chain " + str([9.0, 9.0, -7.0, -7.0, 9.0, -7.0, -7.0, -7.0])


def test_without_the_shim_the_interpreter_drops_the_row_bound(tmp_path: Path) -> None:
    # Why the shim exists: Python's `and` returns `cols < N` whole, so 4 rows of 5 are written.
    assert run(tmp_path, compat=False).splitlines()[0].startswith("and 20 ")


def test_generated_modules_carry_the_shim_only_where_a_kernel_has_and_or() -> None:
    with_op = ast.parse("def k(a, b):\n    return a and b\n").body[0]
    without = ast.parse("def k(a, b):\n    return a & b\n").body[0]
    assert any("_compat_bool_ops()" == line for line in interpreter_compat.repro_lines([with_op]))
    assert not any("_compat_bool_ops" in line for line in interpreter_compat.repro_lines([without]))
