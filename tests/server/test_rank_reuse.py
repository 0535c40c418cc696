"""The editor places findings through ranks kept per statement node (tritonlint/source/locations.py,
`reusing_ranks`): after an edit only the statements the edit made are walked again, and every
finding is where a cold check puts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonlint.config import Config
from tritonlint.engine import check_source
from tritonlint.incremental import IncrementalChecker
from tritonlint.source import locations
from tritonlint.source.outline import outline

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "fixtures" / "unmasked-tail-load" / "launch_vector_add.py"


def _inserted(text: str, which: int, line: str) -> str:
    kernel = outline(text).kernels[which]
    assert kernel.function is not None
    lines = text.splitlines(keepends=True)
    at = kernel.function.body[0].lineno - 1
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    return "".join([*lines[:at], f"{indent}{line}\n", *lines[at:]])


def test_edits_place_findings_as_a_cold_check_and_walk_only_new_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[object] = []
    real = locations._ranked_nodes

    def counting(root, ranks):  # type: ignore[no-untyped-def]
        walked.append(root)
        return real(root, ranks)

    monkeypatch.setattr(locations, "_ranked_nodes", counting)
    text = CASE.read_text(encoding="utf-8")
    checker = IncrementalChecker(str(CASE), Config(), fixes=False)
    checker.check(text)
    first = len(walked)
    assert first > 4  # a cold check walks every statement
    # Calls and comparisons inserted before the findings: every later rank moves.
    for n, line in enumerate(["pre_ = tl.program_id(0) < 1", "pre2_ = tl.arange(0, 4) + tl.program_id(1)"]):
        text = _inserted(text, 0, line)
        walked.clear()
        again = checker.check(text)
        cold = check_source(str(CASE), text, Config())
        assert [(d.code, d.line, d.column, d.end_line, d.end_column) for d in again.diagnostics] == \
            [(d.code, d.line, d.column, d.end_line, d.end_column) for d in cold.diagnostics], f"edit {n}"
        assert again.diagnostics, "the file has findings to place"
        # Besides each kernel's function, only the statements the splice made (the inserted one and
        # the one it re-parsed with it): the rest came from the kept ranks.
        statements = [root for root in walked if type(root).__name__ != "FunctionDef"]
        assert len(statements) <= 2, [type(s).__name__ for s in statements]
