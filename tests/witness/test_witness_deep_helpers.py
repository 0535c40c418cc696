"""A helper's helpers are followed eight names deep into sibling modules (an epilogue that reaches
`triton.language.target_info` through five steps in vendored numerics helpers). Before: four, and the
fifth (`cuda_capability_geq` in vLLM's `_matmul_ogs`) was left unresolved, a NameError at run time."""

from __future__ import annotations

from pathlib import Path

from tritonlint.witness.extract import extract

HELPERS = "import triton\nimport triton.language as tl\n\n" + "\n".join(
    f"@triton.jit\ndef step{i}(x):\n    return step{i + 1}(x) + 1\n" for i in range(1, 7)) + \
    "\n@triton.jit\ndef step7(x):\n    return x\n"

KERNEL = """\
import triton
import triton.language as tl
from helpers import step1


@triton.jit
def kernel(X, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, step1(tl.load(X + offs)))
"""


def test_helpers_seven_deep_are_cut_out(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL)
    source = extract(path, KERNEL, "kernel").source
    assert "def step7(" in source
    assert "unresolved" not in source
