"""Long fixes are laid out like the code around them (issue 15): a fix that would pass the project's
line length wraps the call's arguments the way the kernel already wraps calls (black's layout when it
wraps none, or under the opening parenthesis), through `check --fix` on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonlint.cli import main

# The scale load of an MXFP4 matmul (the seed bug's shape): its fix is 151 characters on one line.
KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def mx(XPtr, WMxScalePtr, Y, K, stride_w, BLOCK_K: tl.constexpr, MX_PACK_DIVISOR: tl.constexpr, EVEN_K: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    offs_k_scale = tl.arange(0, BLOCK_K // MX_PACK_DIVISOR)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    XPtrs = XPtr + offs_k
    WMxScalePtrs = WMxScalePtr + offs_k_scale * stride_w
    for k in range(K, 0, -BLOCK_K):
        x = tl.load(XPtrs, mask=None if EVEN_K else offs_k < k, other=0.0)
        w_scale = tl.load(WMxScalePtrs)
        acc += x * w_scale
        XPtrs += BLOCK_K
        WMxScalePtrs += BLOCK_K // MX_PACK_DIVISOR * stride_w
    tl.store(Y + tl.program_id(0), tl.sum(acc, axis=0))
"""
MASK = "None if EVEN_K else offs_k_scale * BLOCK_K // (BLOCK_K//MX_PACK_DIVISOR) < k"
ONE_LINE = f"        w_scale = tl.load(WMxScalePtrs, mask={MASK}, other=None if EVEN_K else 0)\n"

BLACK = f"""\
        w_scale = tl.load(
            WMxScalePtrs,
            mask={MASK},
            other=None if EVEN_K else 0,
        )
"""

# The same kernel where the one wrapped call continues under its opening parenthesis.
ALIGNED_KERNEL = KERNEL.replace("    acc = tl.zeros([BLOCK_K], dtype=tl.float32)\n",
                                "    acc = tl.zeros([BLOCK_K],\n                   dtype=tl.float32)\n")
ALIGNED = f"""\
        w_scale = tl.load(WMxScalePtrs,
                          mask={MASK},
                          other=None if EVEN_K else 0)
"""

# A short load whose fix fits on one indented line but not on the statement's line.
SHORT = """\
import triton
import triton.language as tl


@triton.jit
def rows(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for start in range(0, n, BLOCK):
        total_of_the_row_so_far = tl.load(X + start + offs)  # the row's running total
        tl.store(Y + start + offs, total_of_the_row_so_far, mask=offs < n - start)
"""
HUGGED = """\
        total_of_the_row_so_far = tl.load(
            X + start + offs, mask=offs < n - start, other=0
        )  # the row's running total
"""


def fix(tmp_path: Path, source: str, pyproject: str | None = None) -> str:
    """`check --fix --unsafe-fixes` on a file holding `source`; the result, after checking that a
    second run finds nothing and changes nothing."""
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    path = tmp_path / "k.py"
    path.write_text(source)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", str(path)]) == 0
    fixed = path.read_text()
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--quiet", str(path)]) == 0
    assert path.read_text() == fixed, "a second --fix changed the file"
    return fixed


def test_black_layout_when_the_kernel_wraps_no_call(tmp_path: Path) -> None:
    # No pyproject: the default line length, 88; the one-line fix would be 151 characters.
    assert len(ONE_LINE.rstrip("\n")) > 88
    assert fix(tmp_path, KERNEL) == KERNEL.replace("        w_scale = tl.load(WMxScalePtrs)\n", BLACK)


def test_under_the_parenthesis_when_the_kernel_wraps_so(tmp_path: Path) -> None:
    # At 108 the mask fits under the parenthesis (its line is 108 characters); at 107 it does not,
    # and black's layout is used instead.
    assert max(len(line) for line in ALIGNED.splitlines()) == 108
    assert fix(tmp_path, ALIGNED_KERNEL, "[tool.ruff]\nline-length = 107\n") == ALIGNED_KERNEL.replace(
        "        w_scale = tl.load(WMxScalePtrs)\n", BLACK)
    assert fix(tmp_path, ALIGNED_KERNEL, "[tool.ruff]\nline-length = 108\n") == ALIGNED_KERNEL.replace("        w_scale = tl.load(WMxScalePtrs)\n",
                                                                   ALIGNED)


def test_arguments_on_one_indented_line_when_they_fit_there(tmp_path: Path) -> None:
    # The trailing comment counts toward the line length, as for ruff format and black.
    assert fix(tmp_path, SHORT) == SHORT.replace(
        "        total_of_the_row_so_far = tl.load(X + start + offs)  # the row's running total\n", HUGGED)


@pytest.mark.parametrize("pyproject", ["[tool.ruff]\nline-length = 160\n", "[tool.black]\nline-length = 160\n",
                                       "[tool.tritonlint]\nline-length = 160\n"])
def test_one_line_when_the_project_allows_it(tmp_path: Path, pyproject: str) -> None:
    assert fix(tmp_path, KERNEL, pyproject) == KERNEL.replace("        w_scale = tl.load(WMxScalePtrs)\n", ONE_LINE)


def test_the_configured_length_is_the_limit(tmp_path: Path) -> None:
    # 151 characters: one over a limit of 150 wraps, a limit of 151 does not.
    assert len(ONE_LINE.rstrip("\n")) == 151
    hugged = f"        w_scale = tl.load(\n            WMxScalePtrs, mask={MASK}, other=None if EVEN_K else 0\n        )\n"
    assert fix(tmp_path, KERNEL, "[tool.ruff]\nline-length = 150\n") == KERNEL.replace(
        "        w_scale = tl.load(WMxScalePtrs)\n", hugged)
    assert fix(tmp_path, KERNEL, "[tool.ruff]\nline-length = 151\n") == KERNEL.replace(
        "        w_scale = tl.load(WMxScalePtrs)\n", ONE_LINE)


def test_the_diff_shows_the_laid_out_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    assert main(["check", "--no-cache", "--diff", "--unsafe-fixes", str(path)]) == 1
    added = [line[1:] for line in capsys.readouterr().out.splitlines() if line.startswith("+") and
             not line.startswith("+++")]
    assert "\n".join(added) + "\n" == BLACK
    assert path.read_text() == KERNEL


def test_black_layout_where_arguments_would_not_fit_under_the_parenthesis(tmp_path: Path) -> None:
    # The kernel wraps under the parenthesis, but this one opens at column 63: the mask (86
    # characters) would end past 88 there, so the arguments go on lines of their own.
    long_name = "w_scale_of_this_tile_for_the_swizzled_layout"
    source = ALIGNED_KERNEL.replace("w_scale", long_name)
    expected = BLACK.replace("w_scale", long_name)
    assert fix(tmp_path, source) == source.replace(f"        {long_name} = tl.load(WMxScalePtrs)\n", expected)
