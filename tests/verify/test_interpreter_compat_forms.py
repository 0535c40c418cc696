"""Kernel forms the compiler accepts and Triton 3.6's interpreter did not: `tl.dot(trans_b=)`, `7 % BLOCK`
with a constexpr, `~x` on an unsigned integer (tritonlint/verify/interpreter_compat.py)."""

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

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def dot_trans_b(A, B, C, N: tl.constexpr):
        i = tl.arange(0, N)
        a = tl.load(A + i[:, None] * N + i[None, :])
        b = tl.load(B + i[:, None] * N + i[None, :])
        tl.store(C + i[:, None] * N + i[None, :], tl.dot(a, b, trans_b=True))


    @triton.jit
    def reflected_mod(Out, BLOCK: tl.constexpr):
        tl.store(Out + tl.arange(0, BLOCK), tl.zeros([BLOCK], dtype=tl.int32) + 37 % BLOCK)


    @triton.jit
    def invert_unsigned(X, Out, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        x = tl.load(X + i).to(tl.uint32)
        tl.store(Out + i, (x & ~(tl.full((), 255, tl.uint32) << 8)).to(tl.int64))
""")

DRIVER = """\
import sys
sys.path.insert(0, {folder!r})
import torch
if {compat}:
    from tritonlint.verify import interpreter_compat
    interpreter_compat.install()
import forms as m
a, b, c = torch.randn(16, 16), torch.randn(16, 16), torch.zeros(16, 16)
m.dot_trans_b[(1,)](a, b, c, N=16)
assert torch.allclose(c, a @ b.T, atol=1e-3), "trans_b"
out = torch.zeros(16, dtype=torch.int32)
m.reflected_mod[(1,)](out, BLOCK=16)
assert (out == 37 % 16).all(), "mod"
x, y = torch.arange(16, dtype=torch.int32) * 4099, torch.zeros(16, dtype=torch.int64)
m.invert_unsigned[(1,)](x, y, BLOCK=16)
assert (y == (x.to(torch.int64) & ~(255 << 8))).all(), "invert"
print("ran")
"""


@pytest.mark.parametrize("compat", [True, False])
def test_old_and_folded_forms_run_under_the_interpreter(tmp_path: Path, compat: bool) -> None:
    (tmp_path / "forms.py").write_text(KERNELS)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", DRIVER.format(folder=str(tmp_path), compat=compat)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    # Without the adaptations the interpreter rejects the first form it meets.
    assert ("ran" in proc.stdout) == compat, proc.stderr[-2000:]
