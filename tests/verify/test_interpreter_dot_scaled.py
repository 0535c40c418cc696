"""`tl.dot_scaled` under Triton 3.6's interpreter (tritonlint/verify/interpreter_compat.py), checked
against products computed by hand: fp8 bits decoded, e2m1 nibbles in order, e8m0 scales per group of
32 along K (255 is NaN), no scale, bf16 bits, the accumulator added."""

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
    def fp8_by_fp8(A, SA, B, SB, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        m, n, k, g = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, K // 32)
        a = tl.load(A + m[:, None] * K + k[None, :])
        b = tl.load(B + k[:, None] * N + n[None, :])
        sa = tl.load(SA + m[:, None] * (K // 32) + g[None, :])
        sb = tl.load(SB + n[:, None] * (K // 32) + g[None, :])
        tl.store(C + m[:, None] * N + n[None, :], tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3"))


    @triton.jit
    def fp4_by_fp8(A, SA, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        m, n, g = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K // 32)
        a = tl.load(A + m[:, None] * (K // 2) + tl.arange(0, K // 2)[None, :])  # two e2m1 a byte
        b = tl.load(B + tl.arange(0, K)[:, None] * N + n[None, :])
        sa = tl.load(SA + m[:, None] * (K // 32) + g[None, :])
        tl.store(C + m[:, None] * N + n[None, :], tl.dot_scaled(a, sa, "e2m1", b, None, "e4m3"))


    @triton.jit
    def bf16_by_e5m2_acc(A, B, SB, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        m, n, k, g = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K), tl.arange(0, K // 32)
        a = tl.load(A + m[:, None] * K + k[None, :])
        b = tl.load(B + k[:, None] * N + n[None, :])
        sb = tl.load(SB + n[:, None] * (K // 32) + g[None, :])
        acc = tl.full((M, N), 0.25, tl.float32)
        tl.store(C + m[:, None] * N + n[None, :], tl.dot_scaled(a, None, "bf16", b, sb, "e5m2", acc))
""")

# Hand values: e4m3 0x38 = 1.0, 0x40 = 2.0, 0x44 = 3.0, 0xB0 = -0.5; e2m1 nibbles 2 = 1.0, 7 = 6.0;
# e5m2 0x3C = 1.0, 0x40 = 2.0; e8m0 126 = 0.5, 127 = 1, 128 = 2, 255 = NaN.
DRIVER = """\
import sys
sys.path.insert(0, {folder!r})
import math
import torch
if {compat}:
    from tritonlint.verify import interpreter_compat
    interpreter_compat.install()
import kernels as m
M = N = 16
# Two groups of 32 along K: row i of A holds 1.0, 2.0, 3.0, -0.5 cycling, then 1.0 (0x38) only;
# B is all 1.0 but column 1 (2.0).
a = torch.tensor([0x38, 0x40, 0x44, 0xB0] * 8 + [0x38] * 32, dtype=torch.uint8).repeat(M, 1)
b = torch.full((64, N), 0x38, dtype=torch.uint8)
b[:, 1] = 0x40
sa = torch.full((M, 2), 127, dtype=torch.uint8)
sa[0] = torch.tensor([128, 126])        # row 0: first group doubled, second halved
sa[2, 1] = 255                          # row 2: NaN in its second group
sb = torch.full((N, 2), 127, dtype=torch.uint8)
sb[3] = torch.tensor([126, 126])        # column 3 halved
c = torch.zeros(M, N)
m.fp8_by_fp8[(1,)](a, sa, b, sb, c, M, N, 64)
first, second = 8 * (1.0 + 2.0 + 3.0 - 0.5), 32.0  # the two groups' sums: 44 and 32
assert c[1, 0] == first + second and c[1, 1] == 2 * (first + second) and c[1, 3] == 0.5 * (first + second), c[1]
assert c[0, 0] == 2 * first + 0.5 * second and c[0, 3] == 0.5 * (2 * first + 0.5 * second), c[0]
assert math.isnan(c[2, 0]) and not math.isnan(c[4, 0]), c[2]
# e2m1: byte 0x72 holds 1.0 (low nibble, first) then 6.0; B picks column n = row n (0x00 is 0.0).
a4 = torch.full((M, 16), 0x72, dtype=torch.uint8)
b8 = torch.zeros(32, N, dtype=torch.uint8)
b8[torch.arange(N), torch.arange(N)] = 0x38
sa4 = torch.full((M, 1), 128, dtype=torch.uint8)
c = torch.zeros(M, N)
m.fp4_by_fp8[(1,)](a4, sa4, b8, c, M, N, 32)
assert c[0].tolist() == [2.0, 12.0] * 8, c[0]
# bf16 without a scale by e5m2 scaled per column, plus an accumulator of 0.25.
abf = torch.tensor([1.0, -2.0, 0.5, 4.0] * 8, dtype=torch.bfloat16).repeat(M, 1)
b5 = torch.full((32, N), 0x3C, dtype=torch.uint8)
b5[:, 2] = 0x40
sb5 = torch.full((N, 1), 127, dtype=torch.uint8)
sb5[5] = 128
c = torch.zeros(M, N)
m.bf16_by_e5m2_acc[(1,)](abf, b5, sb5, c, M, N, 32)
row = 8 * (1.0 - 2.0 + 0.5 + 4.0)  # 28
assert c[0, 0] == row + 0.25 and c[0, 2] == 2 * row + 0.25 and c[0, 5] == 2 * row + 0.25, c[0]
print("ran")
"""


@pytest.mark.parametrize("compat", [True, False])
def test_dot_scaled_under_the_interpreter_equals_the_hand_product(tmp_path: Path, compat: bool) -> None:
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", DRIVER.format(folder=str(tmp_path), compat=compat)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    # Without the emulation the interpreter has no `create_dot_scaled`.
    assert ("ran" in proc.stdout) == compat, proc.stderr[-2000:]
