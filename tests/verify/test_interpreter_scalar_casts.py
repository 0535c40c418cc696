"""`x.to(dtype)` on a value the interpreter holds as a plain Python number (a `range` loop variable,
an int of a tuple assignment) runs as the compiler runs it, where both are tensors; Triton 3.6's
interpreter raises "'int' object has no attribute 'to'". The shim is portable: a generated module
that carries its source (no tritonlint import) runs the kernel too."""

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

from tritonlint.verify.interpreter_compat import repro_lines

REPO = Path(__file__).resolve().parents[2]

KERNEL = textwrap.dedent("""\
    @triton.jit
    def copy_rows(X, Out, N, BLOCK: tl.constexpr):
        pid, start = tl.program_id(0), 0
        start = start.to(tl.int64)
        for i in range(0, N, BLOCK):
            offs = i.to(tl.int64) + start + tl.arange(0, BLOCK)
            tl.store(Out + offs, tl.load(X + offs, mask=offs < N).to(tl.float32), mask=offs < N)
""")

RUN = textwrap.dedent("""\
    x = torch.arange(10, dtype=torch.float32)
    out = torch.zeros(10)
    copy_rows[(1,)](x, out, 10, BLOCK=4)
    print("ran", out.tolist() == x.tolist())
""")


def _run(tmp_path: Path, head: list[str]) -> subprocess.CompletedProcess[str]:
    driver = tmp_path / "driver.py"
    driver.write_text("\n".join(["import torch", "import triton", "import triton.language as tl", *head, "",
                                 KERNEL, RUN]))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, env=env, timeout=300,
                          check=False)


def test_casts_of_plain_numbers_run_with_the_shims(tmp_path: Path) -> None:
    proc = _run(tmp_path, ["from tritonlint.verify import interpreter_compat", "interpreter_compat.install()"])
    assert "ran True" in proc.stdout, proc.stderr[-2000:]


def test_a_generated_module_carries_the_shim(tmp_path: Path) -> None:
    lines = repro_lines([ast.parse(KERNEL).body[0]])
    assert "_compat_scalar_casts()" in lines
    proc = _run(tmp_path, lines)
    assert "ran True" in proc.stdout, proc.stderr[-2000:]


def test_without_the_shim_the_interpreter_stops(tmp_path: Path) -> None:
    proc = _run(tmp_path, [])
    assert "ran" not in proc.stdout
    assert "has no attribute 'to'" in proc.stderr
