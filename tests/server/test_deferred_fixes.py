"""The editor's checks leave fixes out; `complete` gives exactly what a check with fixes gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonlint.config import Config
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source
from tritonlint.incremental import IncrementalChecker
from tritonlint.source.outline import outline

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in ROOT.glob("fixtures/*/*.py") if not p.name.endswith(("_harness.py", ".fixed.py")))


def exactly(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> list[tuple[Diagnostic, int, int]]:
    return [(d, d.start_offset, d.end_offset) for d in diagnostics]


def placed(d: Diagnostic) -> tuple[object, ...]:
    return d.code, d.line, d.column, d.end_line, d.end_column, d.start_offset, d.end_offset, d.message


def edited(text: str, which: int) -> str:
    kernel = outline(text).kernels[which]
    assert kernel.function is not None
    lines = text.splitlines(keepends=True)
    at = kernel.function.body[0].lineno - 1
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    return "".join([*lines[:at], f"{indent}edited_ = 0\n", *lines[at:]])


def same_but_the_fix(lazy: tuple[Diagnostic, ...], full: tuple[Diagnostic, ...]) -> None:
    """The same findings in the same places; a deferred one lacks only its fix and the notes the fix
    writes (they come last)."""
    assert [placed(d) for d in lazy] == [placed(d) for d in full]
    for without, with_fix in zip(lazy, full):
        assert with_fix.notes[:len(without.notes)] == without.notes
        assert without.fix in (None, with_fix.fix)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_completed_diagnostics_are_a_check_with_fixes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if not outline(text).kernels:
        pytest.skip("no kernel")
    checker = IncrementalChecker(str(path), Config(), fixes=False)
    texts = [text, edited(text, 0), edited(edited(text, 0), -1)]
    for version in texts:  # the second and third reuse the groups they did not edit: completed by analysing again
        lazy = checker.check(version).diagnostics
        full = check_source(str(path), version, Config()).diagnostics
        same_but_the_fix(lazy, full)
        assert exactly([checker.complete(d, version) for d in lazy]) == exactly(full)
    # A text the checker did not check last (the editor asked about an older version): checked whole.
    lazy = checker.check(texts[0]).diagnostics
    checker.check(texts[1])
    assert exactly([checker.complete(d, texts[0]) for d in lazy]) == \
        exactly(check_source(str(path), texts[0], Config()).diagnostics)


def test_an_editor_check_computes_no_fix() -> None:
    path = ROOT / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py"
    text = path.read_text(encoding="utf-8")
    [full] = check_source(str(path), text, Config()).diagnostics
    assert full.fix is not None and full.fix.edits
    checker = IncrementalChecker(str(path), Config(), fixes=False)
    [lazy] = checker.check(text).diagnostics
    assert lazy.fix is None
    assert checker.complete(lazy, text) == full and checker.complete(lazy, text).fix == full.fix
    # A checker with fixes (the default) gives them at once.
    [eager] = IncrementalChecker(str(path), Config()).check(text).diagnostics
    assert eager.fix == full.fix
