"""Deeply nested kernels: analysed with room to recurse, or reported as TL001 in every format, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonlint import deep
from tritonlint.cli import main

HEAD = """\
import triton
import triton.language as tl


@triton.jit
def k(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
"""


def long_sum(terms: int) -> str:
    """A kernel whose store (line 10) is a TL102 behind one expression of `terms` terms (line 9)."""
    return HEAD + "    y = " + " + ".join(f"x * {i}" for i in range(terms)) + "\n    tl.store(Y + offs, y)\n"


def long_chain(steps: int) -> str:
    return HEAD + "    x = x + 1\n" * steps + "    tl.store(Y + offs, x)\n"


def check(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, fmt: str = "json",
          ) -> tuple[int, str, str]:
    (tmp_path / "k.py").write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = main(["check", "--no-cache", "--output-format", fmt, str(tmp_path / "k.py")])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_thousand_term_expression_is_analysed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(tmp_path, capsys, long_sum(1000))
    assert (code, err) == (1, "")
    assert [(d["code"], d["line"]) for d in json.loads(out)] == [("TL102", 10)]


def test_three_thousand_chained_reassignments_are_analysed(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    code, out, err = check(tmp_path, capsys, long_chain(3000))
    assert (code, err) == (1, "")
    assert [(d["code"], d["line"]) for d in json.loads(out)] == [("TL102", 3009)]


@pytest.mark.parametrize("fmt", ["concise", "json", "sarif", "github"])
def test_deeper_than_python_parses_is_tl001_in_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            fmt: str) -> None:
    code, out, err = check(tmp_path, capsys, long_sum(5000), fmt)
    assert (code, err) == (1, "")
    assert "TL001" in out and "nested too deeply to parse" in out, out
    if fmt == "sarif":  # its rule descriptors name every rule: count the results instead
        assert [r["ruleId"] for r in json.loads(out)["runs"][0]["results"]] == ["TL001"]
    else:
        assert "TL102" not in out


def test_deeper_than_the_limit_is_tl001_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Past MAX_DEPTH the analysis is not tried again (libcst's parse grows with the square of the depth).
    monkeypatch.setattr(deep, "MAX_DEPTH", 500)
    code, out, err = check(tmp_path, capsys, long_sum(1000), "concise")
    assert (code, err) == (1, "")
    assert out.splitlines()[0] == (
        f"{tmp_path / 'k.py'}:9:1: TL001 file not checked: nested too deeply to analyse: 1004 levels of nesting; "
        "tritonlint follows at most 500")
