"""TL104 through the CLI: its message, --explain's reading, SARIF's fix, and the display-only case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonlint.cli import main
from tritonlint.rules.insufficient_mask import InsufficientMask

EXAMPLE = InsufficientMask.code_block("Example")
USE_INSTEAD = InsufficientMask.code_block("Use instead")

# The base moves to the program's block and nothing in the kernel compares what is left.
BLOCK_LOCAL = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    X += tl.program_id(0) * BLOCK
    Y += tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x, mask=offs < n)
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "k.py"
    path.write_text(text)
    return path


def test_explain_says_which_shift_the_mask_ignores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, EXAMPLE)
    line = next(i for i, text in enumerate(EXAMPLE.splitlines(), 1) if "s = tl.load" in text)
    assert main(["check", "--explain", f"{path}:{line}"]) == 1
    lines = capsys.readouterr().out.replace(str(path), "k.py").splitlines()
    start = lines.index("  mask sufficiency (TL104):")
    assert lines[start:start + 2] + lines[-1:] == [
        "  mask sufficiency (TL104):",
        "    `offs_k`: insufficient (shift): the pointer's `offs_k` is moved by the loop at line 10; the mask "
        "compares the in-tile offsets with the whole extent (`offs_k < K`)",
        f"verdict: reported as TL104 at k.py:{line}:13: the mask of tl.load bounds `offs_k` as in-tile offsets "
        "against the whole extent, but the loop moves the pointer's tile",
    ]
    sibling = line - 1
    assert main(["check", "--explain", f"{path}:{sibling}"]) == 0
    out = capsys.readouterr().out
    assert "`offs_k`: the mask bounds `offs_k` where the pointer puts it (moved by the loop at line 10, " \
           "and so is the bound)" in out


def test_sarif_carries_the_fix_that_check_fix_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, EXAMPLE)
    assert main(["check", "--output-format", "sarif", str(path)]) == 1
    log = json.loads(capsys.readouterr().out)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "TL104"
    (fix,) = result["fixes"]
    (replacement,) = fix["artifactChanges"][0]["replacements"]
    region = replacement["deletedRegion"]
    fixed = EXAMPLE[: region["charOffset"]] + replacement["insertedContent"]["text"] \
        + EXAMPLE[region["charOffset"] + region["charLength"]:]
    assert fixed == USE_INSTEAD
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 0
    assert path.read_text() == USE_INSTEAD


def test_no_bound_that_moves_with_the_tile_is_display_only(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, BLOCK_LOCAL)
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 1
    out = capsys.readouterr().out
    assert "k.py:10:9: TL104 the mask of tl.load bounds `offs` as in-tile offsets against the whole extent, " \
           "but the program id moves the pointer's tile" in out
    assert "k.py:11:5: TL104 the mask of tl.store" in out
    assert "no fix: no bound that moves with the tile can be derived" in out
    assert path.read_text() == BLOCK_LOCAL
