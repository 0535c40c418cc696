"""TL103 weak-evenness-predicate: flags set by launch arguments or heuristics that do not imply full tiles."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tritonlint.cli import main
from tritonlint.config import Config
from tritonlint.engine import check_source

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures" / "weak-evenness-predicate"

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def row_sum(X, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        acc += tl.load(X + offs) if EVEN_K else tl.load(X + offs, mask=offs < K, other=0.0)
    tl.store(Y, tl.sum(acc))
'''
LOAD = (10, "TL101")


def _report(text: str, path: str = "k.py") -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in check_source(path, text, Config(), strict=True).diagnostics]


def _launched(call: str, before: str = "") -> str:
    body = "".join(f"    {line}\n" for line in (before.splitlines() + [call]))
    return KERNEL + "\n\ndef launch(x, y, K, M, BLOCK=64):\n" + body


@pytest.mark.parametrize(("call", "weak"), [
    ("row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0, BLOCK_K=32)", True),
    ("row_sum[(1,)](x, y, K, K % 16 == 0, 64)", True),  # positional
    ("row_sum[(1,)](x, y, K, EVEN_K=(M % 8 == 0 and K % 32 == 0), BLOCK_K=BLOCK)", True),
    ("row_sum[(1,)](x, y, K, EVEN_K=K % BLOCK == 0, BLOCK_K=BLOCK)", False),
    ("row_sum[(1,)](x, y, K, EVEN_K=K % 128 == 0, BLOCK_K=32)", False),
    ("row_sum[(1,)](x, y, K, EVEN_K=not K % (4 * BLOCK), BLOCK_K=2 * BLOCK)", False),
    ("row_sum[(1,)](x, y, K, EVEN_K=M % 2 == 0, BLOCK_K=32)", False),  # another extent: not judged
    ("row_sum[(1,)](x, y, K, EVEN_K=K > 64, BLOCK_K=32)", False),  # no divisibility test: not judged
])
def test_launch_predicate(call: str, weak: bool) -> None:
    text = _launched(call)
    line = len(text.splitlines())
    assert _report(text) == ([LOAD, (line, "TL103")] if weak else [])


def test_weak_flag_note_and_fix_names_the_launch_tile() -> None:
    text = _launched("row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0, BLOCK_K=BLOCK)")
    load, weak = check_source("k.py", text, Config(), strict=True).diagnostics
    assert "EVEN_K is set by `K % 2 == 0` at k.py:15, which does not imply K % BLOCK_K == 0" in load.notes
    assert load.fix is not None and load.fix.applicability.value == "display-only"
    assert weak.fix is not None and weak.fix.title == "Test `K % BLOCK == 0`"
    assert text[weak.start_offset:weak.end_offset] == "K % 2 == 0"


def test_autotuned_tile_is_display_only() -> None:
    text = KERNEL.replace("@triton.jit", "@triton.autotune(configs=[triton.Config({'BLOCK_K': 32})], key=['K'])\n"
                          "@triton.jit")
    text += "\n\ndef launch(x, y, K):\n    row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0)\n"
    found = check_source("k.py", text, Config(), strict=True).diagnostics
    assert [(d.line, d.code) for d in found] == [(11, "TL101"), (16, "TL103")]
    assert found[1].fix is not None and found[1].fix.applicability.value == "display-only"


def test_predicate_in_a_sibling_module_is_reported_at_the_flag(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(KERNEL)
    (package / "ops.py").write_text("from .kernels import row_sum\n\n\ndef launch(x, y, K):\n"
                                    "    row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0, BLOCK_K=32)\n")
    main(["check", "--no-cache", "--output-format", "json", str(package / "kernels.py")])
    found = json.loads(capsys.readouterr().out)
    assert [(f["line"], f["code"]) for f in found] == [(6, "TL103"), LOAD]
    assert "set at ops.py:5 by `K % 2 == 0`" in found[0]["notes"]
    assert found[0]["fix"]["applicability"] == "display-only"


def test_fix_rewrites_the_predicate_and_the_hazards_go(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "case.py"
    shutil.copy(FIXTURES / "launch_literal_predicate.py", case)
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(case)]) == 0
    capsys.readouterr()
    assert "EVEN_K=(K % 32 == 0)" in case.read_text() and "even_k = K % 64 == 0" in case.read_text()


def test_ignoring_tl103_keeps_the_accesses() -> None:
    text = _launched("row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0, BLOCK_K=32)")
    found = check_source("k.py", text, Config(ignore=frozenset({"TL103"})), strict=True).diagnostics
    assert [(d.line, d.code) for d in found] == [LOAD]


def test_a_flag_name_reassigned_before_the_launch_is_read_at_its_last_value() -> None:
    before = "even = K % 2 == 0\neven = K % BLOCK == 0"
    assert _report(_launched("row_sum[(1,)](x, y, K, EVEN_K=even, BLOCK_K=BLOCK)", before)) == []
    before = "even = K % BLOCK == 0\neven = K % 2 == 0"
    text = _launched("row_sum[(1,)](x, y, K, EVEN_K=even, BLOCK_K=BLOCK)", before)
    assert _report(text) == [LOAD, (len(text.splitlines()) - 1, "TL103")]


def test_select_and_ignore_name_tl103_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    case = str(FIXTURES / "launch_literal_predicate.py")
    main(["check", "--no-cache", "--output-format", "json", "--select", "TL103", case])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == ["TL103", "TL103"]
    main(["check", "--no-cache", "--output-format", "json", "--ignore", "TL103", case])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)] == ["TL101", "TL101"]


@pytest.mark.parametrize(("loop", "read"), [
    ("range(0, (K + BLOCK_K - 1) // BLOCK_K)", True),
    ("range((K + (BLOCK_K - 1)) // BLOCK_K)", True),  # the grid's other rounded-up spelling
    ("tl.range(0, K, step=BLOCK_K)", True),  # the step as a keyword
    ("range(0, torch.addcdiv(K, BLOCK_K))", False),  # a name ending in cdiv is not a division
])
def test_loop_count_is_read_as_a_grid_axis_is(loop: str, read: bool) -> None:
    text = _launched("row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0, BLOCK_K=32)")
    text = text.replace("range(0, tl.cdiv(K, BLOCK_K))", loop)
    assert ((len(text.splitlines()), "TL103") in _report(text)) == read
