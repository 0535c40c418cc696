"""Every fixture kernel against its `# expect:` markers, its exact `.expected` output and its `.fixed.py`.

Layout (pylint's functional tests): `fixtures/<rule>/<case>.py` is real kernel code whose flagged
lines end in `# expect: TL101`; `<case>.expected` is the exact text `tritonlint check` prints for it
from the repository root (notes included, the closing summary line left out); `<case>.fixed.py`,
where present, is the exact file `check --fix --unsafe-fixes` leaves (through `engine.fix_source`). `<case>_harness.py` files
drive the dynamic verifier and `_*.py` files are helpers: neither is a fixture.

The tests only compare: `python scripts/regen_fixtures.py` rewrites the `.expected` (and existing
`.fixed.py`) files and prints each one it rewrote; review them with `git diff fixtures/`.
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

import pytest

from tritonlint.cli import main
from tritonlint.config import Config, find_pyproject, load_config
from tritonlint.engine import FileReport, check_source, fix_source
from tritonlint.output import text as text_output
from tritonlint.runner import SourceFile, read_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")
_SUMMARY = re.compile(r"^(All checks passed!|Found \d+ errors?\b.*)$")


def _is_fixture(path: Path) -> bool:
    name = path.name
    return not (name.startswith("_") or name.endswith(("_harness.py", ".fixed.py")))


def _fixture_cases() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*/*.py") if _is_fixture(p))


def _fixed_cases() -> list[Path]:
    """Cases with a `<case>.fixed.py` beside them (the fixer's expected output)."""
    return sorted(p.with_name(p.name[: -len(".fixed.py")] + ".py") for p in FIXTURES.glob("*/*.fixed.py"))


CASES = _fixture_cases()
FIXED_CASES = _fixed_cases()


def _id(path: Path) -> str:
    return path.relative_to(FIXTURES).with_suffix("").as_posix()


def _rel(path: Path) -> str:
    """The path as a user types it from the repository root."""
    return path.relative_to(ROOT).as_posix()


def _config_for(path: Path) -> Config:
    # The config `tritonlint check <path>` would use: the nearest pyproject.toml.
    return load_config(find_pyproject(path))


def _read(path: Path, display: str) -> str:
    text, error = read_source(SourceFile(display, path))
    assert error is None, error
    assert text is not None
    return text


def _check(path: Path, display: str | None = None) -> FileReport:
    display = display or _rel(path)
    report = check_source(display, _read(path, display), _config_for(path), strict=True)
    assert not report.errors, report.errors
    assert not report.crashes, report.crashes
    return report


def _markers(text: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            found.update((number, code.strip()) for code in match.group("codes").split(","))
    return found


def test_there_are_fixtures() -> None:
    # The suite promises at least 20 fixture kernels; a glob that silently matched nothing would
    # make every test below vacuous.
    assert len(CASES) >= 20, [c.name for c in CASES]
    assert FIXTURES.joinpath("unmasked-tail-store").is_dir()


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_findings_match_expect_markers(case: Path) -> None:
    """The set of (line, code) findings is exactly the set of `# expect:` markers."""
    report = _check(case)
    found = {(d.line, d.code) for d in report.diagnostics}
    expected = _markers(_read(case, _rel(case)))
    missing = sorted(expected - found)
    unexpected = sorted(found - expected)
    assert not missing and not unexpected, (
        f"{_rel(case)}: missed (line, code) {missing}; unexpected {unexpected}\n"
        + text_output.render(report.diagnostics, summary=False)
    )


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_text_output_matches_expected_file(case: Path) -> None:
    """The exact text output (notes included, no summary line) equals `<case>.expected`, byte for byte."""
    report = _check(case)
    actual = text_output.render(report.diagnostics, summary=False).encode("utf-8")
    expected_file = case.with_suffix(".expected")
    assert expected_file.exists(), f"{_rel(expected_file)} is missing: run `python scripts/regen_fixtures.py`"
    assert actual == expected_file.read_bytes(), _diff(expected_file.read_bytes(), actual, expected_file)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_cli_prints_the_expected_file(case: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`tritonlint check <relative path>` from the repository root prints `<case>.expected`, then a summary."""
    monkeypatch.chdir(ROOT)
    code = main(["check", _rel(case)])
    out = capsys.readouterr().out
    lines = out.splitlines(keepends=True)
    assert lines and _SUMMARY.match(lines[-1].rstrip("\n")), out
    expected_file = case.with_suffix(".expected")
    if not expected_file.exists():
        pytest.skip(f"{_rel(expected_file)} not generated yet")
    expected = expected_file.read_text(encoding="utf-8")
    assert "".join(lines[:-1]) == expected
    assert code == (1 if expected else 0)


def test_no_stale_expected_files() -> None:
    """Every `.expected` file belongs to a fixture (a renamed case must not leave one behind)."""
    stale = [p for p in FIXTURES.glob("*/*.expected") if not p.with_suffix(".py").exists()]
    assert not stale


# --- fixed files --------------------------------------------------------------------------


def _fix(path: Path, text: str) -> str:
    """The text `check --fix --unsafe-fixes` leaves, through the engine in strict mode."""
    result = fix_source(_rel(path), text, _config_for(path), unsafe=True, strict=True)
    assert not result.errors and not result.crashes, result.errors + result.crashes
    return text if result.fixed_text is None else result.fixed_text


def _changed_lines(before: str, after: str) -> set[int]:
    """1-based line numbers of `after` that a diff from `before` marks as inserted or replaced."""
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed.update(range(j1 + 1, j2 + 1))
    return changed


@pytest.mark.parametrize("case", FIXED_CASES, ids=_id)
def test_fix_produces_fixed_file(case: Path) -> None:
    """`--fix --unsafe-fixes` gives `<case>.fixed.py` byte for byte; it parses, re-checks clean
    on the lines it changed, and a second fix changes nothing."""
    fixed_file = case.with_name(case.stem + ".fixed.py")
    original = _read(case, _rel(case))
    fixed = _fix(case, original)
    assert fixed.encode("utf-8") == fixed_file.read_bytes(), _diff(fixed_file.read_bytes(),
                                                                    fixed.encode("utf-8"), fixed_file)
    assert fixed != original, "a .fixed.py identical to its case documents no fix"
    ast.parse(fixed)
    report = check_source(_rel(case), fixed, _config_for(case), strict=True)
    assert not report.errors and not report.crashes
    touched = _changed_lines(original, fixed)
    still = [d for d in report.diagnostics if set(range(d.line, d.end_line + 1)) & touched]
    assert not still, text_output.render(still, summary=False)
    assert _fix(case, fixed) == fixed, "a second --fix changed the file again"


def _diff(expected: bytes, actual: bytes, path: Path) -> str:
    lines = difflib.unified_diff(
        expected.decode("utf-8", "replace").splitlines(keepends=True),
        actual.decode("utf-8", "replace").splitlines(keepends=True),
        f"{_rel(path)} (expected)", "actual",
    )
    hint = "\n(if the change is intended: python scripts/regen_fixtures.py, then review git diff fixtures/)"
    return "".join(lines) + hint


def test_fixed_files_have_a_case() -> None:
    orphans = [p for p in FIXTURES.glob("*/*.fixed.py")
               if not p.with_name(p.name[: -len(".fixed.py")] + ".py").exists()]
    assert not orphans
