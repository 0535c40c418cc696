"""The generated module runs kernels written for Triton 2.0's `tl.dot(trans_a=, trans_b=)`, with their meaning."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tritonlint.witness.extract import extract

KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def mm(a_ptr, b_ptr, c_ptr, TA: tl.constexpr, TB: tl.constexpr):
        r = tl.arange(0, 16)
        a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
        b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
        c = tl.dot(a, b, trans_a=TA, trans_b=TB)
        tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)
''')

RUN = textwrap.dedent('''
    import sys
    import torch
    ns = {}
    exec(compile(open(sys.argv[1]).read(), "generated", "exec"), ns)
    a, b = torch.randn(16, 16), torch.randn(16, 16)
    for ta, tb in ((False, False), (False, True), (True, False), (True, True)):
        want = (a.T if ta else a) @ (b.T if tb else b)
        c = torch.empty(16, 16)
        ns["mm"][(1,)](a, b, c, TA=ta, TB=tb)
        print(ta, tb, bool(torch.allclose(c, want, atol=1e-4)))
''')


def test_old_dot_keywords_transpose_the_flagged_operands(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text(KERNEL)
    module = tmp_path / "generated.py"
    module.write_text(extract(source, KERNEL, "mm").source)
    script = tmp_path / "run.py"
    script.write_text(RUN)
    done = subprocess.run([sys.executable, str(script), str(module)], capture_output=True, text=True,
                          env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:4] == ["False False True", "False True True", "True False True", "True True True"]


def test_modules_without_the_old_keywords_stay_plain(tmp_path: Path) -> None:
    plain = KERNEL.replace(", trans_a=TA, trans_b=TB", "")
    source = tmp_path / "k.py"
    source.write_text(plain)
    assert "_compat_dot" not in extract(source, plain, "mm").source


REFLECTED = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def k(out_ptr, B: tl.constexpr):
        tl.store(out_ptr + 0, 70 % B)
        tl.store(out_ptr + 1, 3 << B)
        tl.store(out_ptr + 2, 1024 >> B)
        tl.store(out_ptr + 3, 13 & B)
        tl.store(out_ptr + 4, 13 ^ B)
''')

RUN_REFLECTED = textwrap.dedent('''
    import sys
    import torch
    ns = {}
    exec(compile(open(sys.argv[1]).read(), "generated", "exec"), ns)
    out = torch.zeros(5, dtype=torch.int32)
    ns["k"][(1,)](out, B=6)
    print(out.tolist())
''')


def test_an_int_on_the_left_of_a_constexpr_computes_what_the_compiler_does(tmp_path: Path) -> None:
    source = tmp_path / "k.py"
    source.write_text(REFLECTED)
    module = tmp_path / "generated.py"
    module.write_text(extract(source, REFLECTED, "k").source)
    script = tmp_path / "run.py"
    script.write_text(RUN_REFLECTED)
    done = subprocess.run([sys.executable, str(script), str(module)], capture_output=True, text=True,
                          env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str([70 % 6, 3 << 6, 1024 >> 6, 13 & 6, 13 ^ 6])


SCALED = textwrap.dedent('''
    import triton
    import triton.language as tl


    @triton.jit
    def k(a_ptr, s_ptr, b_ptr, c_ptr):
        r, g = tl.arange(0, 32), tl.arange(0, 1)
        a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
        s = tl.load(s_ptr + r[:, None] + g[None, :])
        b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
        tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot_scaled(a, s, "e4m3", b, s, "e4m3"))
''')

RUN_SCALED = textwrap.dedent('''
    import sys
    import torch
    ns = {}
    exec(compile(open(sys.argv[1]).read(), "generated", "exec"), ns)
    a = torch.full((32, 32), 0x38, dtype=torch.uint8)  # e4m3 1.0
    s = torch.full((32, 1), 128, dtype=torch.uint8)    # e8m0 2.0
    c = torch.zeros(32, 32)
    ns["k"][(1,)](a, s, a, c)
    print(c.unique().tolist())
''')


def test_a_module_calling_dot_scaled_carries_its_interpreter_emulation(tmp_path: Path) -> None:
    # The generated module stays torch-and-triton only: the emulation's source travels with it.
    source = tmp_path / "k.py"
    source.write_text(SCALED)
    generated = extract(source, SCALED, "k").source
    assert "tritonlint" not in generated
    assert "_compat_dot_scaled()" not in extract(source, REFLECTED, "k").source
    module = tmp_path / "generated.py"
    module.write_text(generated)
    script = tmp_path / "run.py"
    script.write_text(RUN_SCALED)
    done = subprocess.run([sys.executable, str(script), str(module)], capture_output=True, text=True,
                          env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == str([32 * 2.0 * 2.0])
