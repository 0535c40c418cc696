"""`dtype.value` in a jit helper given a constexpr dtype runs under the interpreter as compiled: the
compiler hands the helper a `tl.constexpr` wrapping the dtype (whose `.value` is the dtype), Triton
3.6's interpreter the bare `tl.dtype` ("'dtype' object has no attribute 'value'"). The shim is
portable: a generated module that carries its source (no tritonlint import) runs the kernel too."""

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

HELPER = textwrap.dedent("""\
    @triton.jit
    def largest_of(kind: tl.constexpr):
        unwrapped = kind.value
        if unwrapped.is_floating():
            big: tl.constexpr = float("inf")
            return big
        width: tl.constexpr = unwrapped.int_bitwidth
        big: tl.constexpr = 2 ** (width - 1) - 1
        return big
""")

KERNEL = textwrap.dedent("""\
    @triton.jit
    def row_min(X, Out, N, kind: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        vals = tl.load(X + offs, mask=offs < N, other=largest_of(kind))
        tl.store(Out, tl.min(vals, 0))
""")

RUN = textwrap.dedent("""\
    x = torch.tensor([7, 3, 9], dtype=torch.int32)
    out = torch.zeros(1, dtype=torch.int32)
    row_min[(1,)](x, out, 3, kind=tl.int32, BLOCK=4)
    print("ran", out.item())
""")


def _run(tmp_path: Path, head: list[str]) -> subprocess.CompletedProcess[str]:
    driver = tmp_path / "driver.py"
    driver.write_text("\n".join(["import torch", "import triton", "import triton.language as tl", *head, "",
                                 HELPER, KERNEL, RUN]))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, env=env, timeout=300,
                          check=False)


def test_dtype_value_runs_with_the_shims(tmp_path: Path) -> None:
    proc = _run(tmp_path, ["from tritonlint.verify import interpreter_compat", "interpreter_compat.install()"])
    assert "ran 3" in proc.stdout, proc.stderr[-2000:]


def test_a_generated_module_carries_the_shim(tmp_path: Path) -> None:
    lines = repro_lines([ast.parse(HELPER).body[0], ast.parse(KERNEL).body[0]])
    assert "_compat_dtype_value()" in lines
    proc = _run(tmp_path, lines)
    assert "ran 3" in proc.stdout, proc.stderr[-2000:]


def test_without_the_shim_the_interpreter_stops(tmp_path: Path) -> None:
    proc = _run(tmp_path, [])
    assert "ran" not in proc.stdout
    assert "has no attribute 'value'" in proc.stderr
