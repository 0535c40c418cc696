"""Property-based tests: kernels made by mutating the fixtures (tests/fuzz_kernels.py).

Bounded here (about a minute on two cores); `python scripts/fuzz_long.py -n 20000` is the long run
(docs/testing/fuzz.md has its numbers). Product bugs the fuzzer found are kept under tests/regressions/
and pinned below with strict xfails until they are fixed.
"""

from __future__ import annotations

import ast
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_kernels as fk

from tritonlint.diagnostics import Applicability
from tritonlint.engine import apply_edits, check_source, fix_source
from tritonlint.runner import SourceFile, neighbours_of

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


@settings(FUZZ, max_examples=30)
@given(st.randoms(use_true_random=False))
def test_fix_shapes_under_neutral_mutations(rng: random.Random) -> None:
    """The multi-round and `None if F else m` kernels (fk.SHAPES), reformatted, commented, renamed,
    tabbed or CRLF: still reported, and the fix properties hold (one `--fix` settles it, no
    `(None if ...) & ...`)."""
    case = fk.shape_case(rng)
    assert check_source("f.py", case.text, fk.CONFIG, strict=True).diagnostics, (case.mutations, case.text)
    failures = fk.generic_failures(case)
    assert not failures, (case.source, case.mutations, failures, case.text)


_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")


def _expected(fixture: fk.Fixture) -> list[tuple[int, str]]:
    """The findings a fixture states: its `# expect:` markers; none in a `.fixed.py` (the markers
    stay on the lines its fix masked)."""
    if fixture.name.endswith(".fixed.py"):
        return []
    return sorted((number, code.strip()) for number, line in enumerate(fixture.text.split("\n"), 1)
                  for match in [_EXPECT.search(line)] if match for code in match.group("codes").split(","))


def test_fixture_markers_are_not_all_empty() -> None:
    # The twin test below compares against the markers: most fixtures must state findings.
    assert sum(bool(_expected(f)) for f in fk.fixtures()) >= 30


@pytest.mark.parametrize("fixture", fk.fixtures(), ids=lambda f: f.name)
def test_fixture_crlf_and_tabs_give_the_same_findings(fixture: fk.Fixture) -> None:
    """The CRLF and the tab-indented twin of a fixture give its stated findings, at the same
    lines (and, with CRLF, the same columns) as the LF file."""
    expected = _expected(fixture)
    # Checked where it lies: a helper it imports from a sibling module (`_lane_math`) is found.
    path = fk.FIXTURES / fixture.name
    near = neighbours_of(SourceFile(str(path), path))
    base = check_source(str(path), fixture.text, fk.CONFIG, strict=True, neighbours=near)
    if fixture.name.endswith(".fixed.py"):
        # A fixed file keeps only findings no fix can apply to (display-only: the fixer said why).
        assert all(d.fix is None or d.fix.applicability is Applicability.DISPLAY_ONLY for d in base.diagnostics), \
            [(d.line, d.code) for d in base.diagnostics]
        expected = sorted((d.line, d.code) for d in base.diagnostics)
    assert sorted((d.line, d.code) for d in base.diagnostics) == expected
    crlf = check_source(str(path), fixture.text.replace("\n", "\r\n"), fk.CONFIG, strict=True, neighbours=near)
    assert [(d.line, d.column, d.code) for d in crlf.diagnostics] == \
        [(d.line, d.column, d.code) for d in base.diagnostics]
    tabbed_text = fk.tabs(fixture.text)
    assert "\t" in tabbed_text  # every fixture has an indented kernel body: the twin differs
    tabbed = check_source(str(path), tabbed_text, fk.CONFIG, strict=True, neighbours=near)  # a tab is one column
    assert sorted((d.line, d.code) for d in tabbed.diagnostics) == expected


# --- product bugs found by the fuzzer (tests/regressions/) ------------------------------------


def _findings(text: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in check_source("f.py", text, fk.CONFIG, strict=True).diagnostics]


def _fixed(text: str) -> str:
    result = fix_source("f.py", text, fk.CONFIG, unsafe=True, strict=True)
    assert not result.errors and not result.crashes, result.errors + result.crashes
    assert result.fixed_text is not None, "nothing was fixed"
    return result.fixed_text


def test_regression_fix_leaves_second_dimension() -> None:
    """The x load walks K and M unbounded: the fix bounds both, so the fixed call is clean."""
    text = (REGRESSIONS / "fix_leaves_second_dimension.py").read_text()
    assert _findings(text) == [(18, "TL101")]
    fixed = _fixed(text)
    load = fixed.splitlines()[17]
    assert "ks[None, :] < K" in load and "offs_m[:, None] < M" in load, load
    assert _findings(fixed) == []
    assert fk.generic_failures(fk.Case("regressions/fix_leaves_second_dimension.py", text)) == []


def test_regression_fix_needs_second_round() -> None:
    """The first round's fix creates the evidence for a second (docs/testing/fuzz.md's multi-round class):
    `--fix` runs rounds until none applies, so the result is clean and a second `--fix` changes
    nothing."""
    text = (REGRESSIONS / "fix_needs_second_round.py").read_text()
    first = check_source("f.py", text, fk.CONFIG, strict=True)
    assert [(d.line, d.code) for d in first.diagnostics] == [(27, "TL101")]
    # The premise: one round of the first report's fixes leaves a fixable finding on that call.
    once = apply_edits(text, [d.fix.edits[0] for d in first.diagnostics if d.fix is not None and d.fix.edits])
    again = check_source("f.py", once, fk.CONFIG, strict=True).diagnostics
    assert [(d.line, d.code) for d in again if d.fix is not None and d.fix.edits] == [(27, "TL101")]
    fixed = _fixed(text)
    # The load of line 27, read from the syntax tree: a fix too long for the line wraps the call.
    load = ast.unparse(next(c for c in fk.access_calls(fixed) if c.lineno == 27))
    assert "offs_k[None, :] < K" in load and "offs_m[:, None] < M" in load, load
    assert _findings(fixed) == []
    second = fix_source("f.py", fixed, fk.CONFIG, unsafe=True, strict=True)
    assert second.fixed_text is None and not second.errors, "a second --fix changed the file again"
    assert fk.generic_failures(fk.Case("regressions/fix_needs_second_round.py", text)) == []


def _load_mask(fixed: str, kernel: str) -> ast.expr:
    """The `mask=` of the first load of `kernel` in `fixed`, whatever its layout (inline, wrapped
    over lines, or named by the assignment above the call)."""
    tree = ast.parse(fixed)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel)
    load = next(n for n in ast.walk(function) if isinstance(n, ast.Call) and fk.is_access(n)
                and fk._kind(n) == "load")
    mask = next(k.value for k in load.keywords if k.arg == "mask")
    if isinstance(mask, ast.Name):  # a long fix names its mask on the line above (`offs_k_mask = ...`)
        mask = next(n.value for n in ast.walk(function) if isinstance(n, ast.Assign)
                    and [t.id for t in n.targets if isinstance(t, ast.Name)] == [mask.id])
    return mask


def _mask_lanes(fixed: str, kernel: str, flag: str, **values: object) -> dict[bool, np.ndarray]:
    """`_load_mask` evaluated with numpy for both values of `flag` (the two specializations Triton
    compiles); `None & tensor` raises there as it fails to compile in Triton."""
    code = compile(ast.Expression(_load_mask(fixed, kernel)), "<mask>", "eval")
    return {even: eval(code, {**values, flag: even})  # the fixer's own output, not user input
            for even in (True, False)}


def test_regression_none_mask_combined_with_and() -> None:
    """A reported load whose mask is already `None if EVEN_M else m`: the fix adds the K bound
    inside each side of the switch, never `(None if ...) & ...` (`None & tensor` in the EVEN_M
    specialization does not compile), and each specialization gets the lanes it needs."""
    text = (REGRESSIONS / "none_mask_combined_with_and.py").read_text()
    # k_loop (the original fuzz finding) is not reported: EVEN_K is recognised there.
    assert _findings(text) == [(32, "TL101")]
    fixed = _fixed(text)
    code = fixed.split("def row_block_sum", 1)[1]  # the comments above quote the bad fix
    wanted = "(k + offs_k)[None, :] < K if EVEN_M else (offs_m[:, None] < M) & ((k + offs_k)[None, :] < K)"
    assert ast.unparse(_load_mask(fixed, "row_block_sum")) == wanted, code  # inline, wrapped or hoisted
    assert not fk._NONE_AND.search(code), code
    assert _findings(fixed) == []
    offs_m, offs_k = 4 + np.arange(4), np.arange(4)  # program 1 of BLOCK_M=4; BLOCK_K=4
    k, K = 8, 10  # the last K tile: lanes 8, 9 in bounds, 10, 11 past the end
    in_k = np.broadcast_to((k + offs_k)[None, :] < K, (4, 4))
    even = _mask_lanes(fixed, "row_block_sum", "EVEN_M", offs_m=offs_m, offs_k=offs_k, k=k, K=K, M=8)
    assert np.array_equal(np.broadcast_to(even[True], (4, 4)), in_k)
    odd = _mask_lanes(fixed, "row_block_sum", "EVEN_M", offs_m=offs_m, offs_k=offs_k, k=k, K=K, M=6)
    assert np.array_equal(np.broadcast_to(odd[False], (4, 4)), (offs_m[:, None] < 6) & in_k)


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
    # Control: with FULL_K used the way its name says (masks on its False side), the B load under
    # HAS_TAIL is reported, on the side the alias chain gives: EVEN_K False, never "FULL_K".
    control = fk.Case(case.source, case.text.replace("if FULL_K:", "if not FULL_K:"))
    report = check_source("f.py", control.text, fk.CONFIG, strict=True)
    assert [(d.line, d.code, d.notes[0]) for d in report.diagnostics] == [
        (35, "TL101", "reachable when EVEN_K is False")]
    assert fk.generic_failures(control) == []


def test_regression_constant_test_in_mask() -> None:
    """`None if False else m` decides nothing: `False` is not a flag, and `m` bounds that load."""
    case = fk.Case("regressions/constant_test_in_mask.py", (REGRESSIONS / "constant_test_in_mask.py").read_text())
    assert fk.generic_failures(case) == []
    report = check_source("f.py", case.text, fk.CONFIG, strict=True)
    assert [(d.line, d.code) for d in report.diagnostics] == [(34, "TL101")]  # the file's `# expect:`
    assert not any("False" in note for d in report.diagnostics for note in d.notes)


def test_regression_second_round_fix_wraps_a_call() -> None:
    """Round 2 fixes (and wraps) a call round 1 did not report: the oracle accepts it, since only the
    reported calls' arguments changed in the syntax tree; a change anywhere else is still caught."""
    text = (REGRESSIONS / "fix_round_two_wraps_call.py").read_text()
    case = fk.Case("regressions/fix_round_two_wraps_call.py", text)
    assert fk.generic_failures(case) == []
    first = {(d.line, d.code) for d in check_source("f.py", text, fk.KERNEL_CONFIG, strict=True).diagnostics}
    assert first == {(32, "TL101")}  # the `w` load (line 33) is reported in round 2 only
    assert fk.reported_in_rounds(text, fk.KERNEL_CONFIG) == {0, 1}
    fixed = fix_source("f.py", text, fk.KERNEL_CONFIG, unsafe=True, strict=True).fixed_text
    assert fixed is not None and not fk.outside_is_identical(text, fixed, fk.access_spans(text)[:1])
    unhoisted = fk._HOISTED.sub(lambda m: "" if m.group(0) not in text else m.group(0), fixed)
    assert fk.same_tree_but_calls(text, unhoisted, {0, 1})
    # Control: the same fixed text with a statement outside the calls changed is not accepted.
    damaged = unhoisted.replace("acc = tl.zeros(", "acc = tl.full(", 1)
    assert damaged != unhoisted and not fk.same_tree_but_calls(text, damaged, {0, 1})
    assert not fk.same_tree_but_calls(text, unhoisted, {0})  # round 2's call is part of the fix
