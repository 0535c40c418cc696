"""Property-based tests: kernels made by mutating the fixtures (tests/fuzz_kernels.py).

Bounded here (about a minute on two cores); `python scripts/fuzz_long.py -n 20000` is the long run
(docs/fuzz.md has its numbers). Product bugs the fuzzer found are kept under tests/regressions/
and pinned below with strict xfails until they are fixed.
"""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_kernels as fk

from tritonlint.engine import check_source, fix_source

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow],
                print_blob=True)

# Failures of known product bugs (listed in the xfail tests below) are told apart by their text,
# so the random tests keep guarding everything else while those bugs are open.
KNOWN: tuple[str, ...] = ()  # all three bugs the fuzzer found are fixed (tests/regressions/)


def _unknown(failures: list[fk.Failure]) -> list[fk.Failure]:
    return [f for f in failures if not f.detail.startswith(KNOWN)]


# --- the generator itself ---------------------------------------------------------------------


def test_every_fixture_is_in_the_corpus() -> None:
    assert len(fk.fixtures()) >= 40
    assert len(fk.fixed_pairs()) >= 15


@settings(FUZZ, max_examples=60)
@given(st.randoms(use_true_random=False))
def test_generated_kernels_are_valid_python(rng: random.Random) -> None:
    case = fk.generic_case(rng) if rng.random() < 0.5 else fk.detection_case(rng)
    ast.parse(case.text)


def test_mutations_on_a_small_kernel() -> None:
    text = (REGRESSIONS / "negated_flag_else_branch.py").read_text()
    rng = random.Random(0)
    assert "if not (not (EVEN_M)):" in fk.swap_if(text, rng, negate=True)  # type: ignore[operator]
    assert "\t" in fk.tabs(text) and "\r\n" in fk.line_endings(text, rng, "crlf")
    renamed = fk.rename_token(text, "act", "αct")
    assert "αct" in renamed and "act =" not in renamed
    assert fk.outside_is_identical("a(x) b(y) c", "a(xx) b(y) c", [(0, 4)])
    assert not fk.outside_is_identical("a(x) b(y) c", "a(x) b(yy) c", [(0, 4)])


# --- properties -------------------------------------------------------------------------------


@settings(FUZZ, max_examples=90)
@given(st.randoms(use_true_random=False))
def test_check_and_fix_properties(rng: random.Random) -> None:
    """check never raises nor reports a crash; fix output parses, re-checks clean on the calls it
    changed, is stable under a second fix, and changes nothing outside the reported calls."""
    case = fk.generic_case(rng)
    failures = _unknown(fk.generic_failures(case))
    assert not failures, (case.source, case.mutations, failures, case.text)


@settings(FUZZ, max_examples=60)
@given(st.randoms(use_true_random=False))
def test_removing_the_fix_mask_is_detected(rng: random.Random) -> None:
    """A `.fixed.py` with its added mask taken out again is reported at that call, whatever the
    formatting, comments, names of locals, tabs or line endings."""
    case = fk.detection_case(rng)
    failures = fk.detection_failures(case)
    assert not failures, (case.source, case.mutations, failures, case.text)


@pytest.mark.parametrize("fixture", fk.fixtures(), ids=lambda f: f.name)
def test_fixture_crlf_and_tabs_give_the_same_findings(fixture: fk.Fixture) -> None:
    base = check_source("f.py", fixture.text, fk.CONFIG, strict=True)
    crlf = check_source("f.py", fixture.text.replace("\n", "\r\n"), fk.CONFIG, strict=True)
    assert [(d.line, d.column, d.code) for d in crlf.diagnostics] == \
        [(d.line, d.column, d.code) for d in base.diagnostics]
    tabbed = check_source("f.py", fk.tabs(fixture.text), fk.CONFIG, strict=True)  # columns count a tab as one
    assert [(d.line, d.code) for d in tabbed.diagnostics] == [(d.line, d.code) for d in base.diagnostics]


# --- product bugs found by the fuzzer (tests/regressions/) ------------------------------------


def test_regression_fix_leaves_second_dimension() -> None:
    case = fk.Case("regressions/fix_leaves_second_dimension.py",
                   (REGRESSIONS / "fix_leaves_second_dimension.py").read_text())
    assert fk.generic_failures(case) == []


def test_regression_none_mask_combined_with_and() -> None:
    text = (REGRESSIONS / "none_mask_combined_with_and.py").read_text()
    fixed = fix_source("f.py", text, fk.CONFIG, unsafe=True, strict=True).fixed_text or text
    code = fixed.split("import triton", 1)[1]  # the header comment quotes the bad fix
    assert "(None if EVEN_K else offs_k < k_rem) &" not in code
    # Not silenced by doing nothing: the fixed (or untouched) kernel leaves no finding behind.
    assert check_source("f.py", fixed, fk.CONFIG, strict=True).diagnostics == ()


def test_regression_parenthesized_flag() -> None:
    text = (REGRESSIONS / "negated_flag_else_branch.py").read_text()
    assert "if not (EVEN_M):" in text
    report = check_source("f.py", text, fk.CONFIG, strict=True)
    assert [(d.line, d.code) for d in report.diagnostics] == [(19, "TL102")]


def test_regression_parenthesized_flag_control() -> None:
    """Without the parentheses the same kernel is reported: the parentheses alone lose it."""
    text = (REGRESSIONS / "negated_flag_else_branch.py").read_text().replace("if not (EVEN_M):", "if not EVEN_M:")
    report = check_source("f.py", text, fk.CONFIG, strict=True)
    assert [(d.line, d.code) for d in report.diagnostics] == [(19, "TL102")]


def test_regression_flag_alias_contradicts_path() -> None:
    """`FULL_K` aliases `EVEN_K`: its True side cannot be reached under `HAS_TAIL` (EVEN_K False)."""
    case = fk.Case("regressions/flag_alias_contradicts_path.py",
                   (REGRESSIONS / "flag_alias_contradicts_path.py").read_text())
    assert fk.generic_failures(case) == []
    report = check_source("f.py", case.text, fk.CONFIG, strict=True)
    assert not any("FULL_K" in note for d in report.diagnostics for note in d.notes)


def test_regression_constant_test_in_mask() -> None:
    case = fk.Case("regressions/constant_test_in_mask.py", (REGRESSIONS / "constant_test_in_mask.py").read_text())
    assert fk.generic_failures(case) == []
    report = check_source("f.py", case.text, fk.CONFIG, strict=True)
    assert not any("False is" in note for d in report.diagnostics for note in d.notes)
    assert 36 + 3 not in [d.line for d in report.diagnostics]  # `None if False else m`: m bounds it
