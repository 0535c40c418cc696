"""A module that launches nothing but calls a jit helper it imports from its neighbour is read
when the helper's file is checked: the helper's access is judged at that call
(tritonlint/runner.py:_folder_modules keeps modules holding a launch or a jit function)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonlint.cli import main

HELPERS = '''import triton
import triton.language as tl


@triton.jit
def load_plain(ptrs):
    return tl.load(ptrs)
'''

# No launch, so no `[` anywhere: only its jit function names the helper.
KERNELS = '''import triton
import triton.language as tl
from helpers import load_plain


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = load_plain(X + offs)
    tl.store(Y + offs, x * 2.0, mask=offs < n)
'''


def test_a_helper_called_from_a_module_without_launches_is_judged_at_its_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "kernels.py").write_text(KERNELS)
    assert "[" not in KERNELS
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--no-cache", "--output-format", "concise", "."])
    out = capsys.readouterr().out
    assert code == 1
    assert "helpers.py:7:12: TL101" in out
    assert "kernels.py" not in out


def test_the_same_helper_with_the_caller_masking_nothing_else_stays_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # no sibling bounds the tile and nothing launches it: no evidence of a partial tile
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "kernels.py").write_text(KERNELS.replace(", mask=offs < n", ""))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--output-format", "concise", "."]) == 0
