"""The `masked-lanes` switch: a load without `other=` read as zero (the default, what every backend
fills) or as undefined (the language's contract), through a real pyproject.toml and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonlint.cli import main
from tritonlint.config import ConfigError, load_config

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def row_sum(X, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n)
    tl.store(Y, tl.sum(x, axis=0))


@triton.jit
def row_sum_cleaned(X, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n)
    tl.store(Y, tl.sum(tl.where(cols < n, x, 0.0), axis=0))


@triton.jit
def row_sum_other(X, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n, other=0.0)
    tl.store(Y, tl.sum(x, axis=0))
"""


def _check(tmp_path: Path, table: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    (tmp_path / "pyproject.toml").write_text(f"[tool.tritonlint]\n{table}")
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    status = main(["check", "--no-cache", "--select", "TL105", "--output-format", "json", str(path)])
    captured = capsys.readouterr()
    assert status in (0, 1), captured.err
    found: list[dict[str, object]] = json.loads(captured.out)
    return found


def test_zero_is_the_default_and_a_sum_of_zero_lanes_is_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _check(tmp_path, "", capsys) == []
    assert _check(tmp_path, 'masked-lanes = "zero"\n', capsys) == []


def test_undefined_reports_the_sum_of_a_load_without_other(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = _check(tmp_path, 'masked-lanes = "undefined"\n', capsys)
    assert [(f["code"], f["line"]) for f in found] == [("TL105", 8)]  # only `row_sum`: the others clean
    (finding,) = found
    notes = finding["notes"]
    assert isinstance(notes, list) and any("undefined at the load" in str(note) for note in notes), finding
    fix = finding["fix"]
    assert isinstance(fix, dict) and "other=0.0" in str(fix["title"]) and fix["applicability"] == "safe"


def test_a_wrong_value_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tritonlint]\nmasked-lanes = "nan"\n')
    with pytest.raises(ConfigError, match="masked-lanes"):
        load_config(tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text('[tool.tritonlint]\nmasked-lanes = "undefined"\n')
    assert load_config(tmp_path / "pyproject.toml").masked_lanes == "undefined"
