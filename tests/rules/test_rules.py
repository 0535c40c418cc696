"""Meta-tests over every rule: unique code and name, Ruff's doc sections in order, and doc examples that work."""

from __future__ import annotations

import inspect
import re

import pytest

from tritonlint.config import Config
from tritonlint.engine import check_source
from tritonlint.rule import DOC_SECTIONS, Rule, all_rules

RULES = all_rules()


def _id(rule: type[Rule]) -> str:
    return f"{rule.code}-{rule.name}"


def _sections(rule: type[Rule]) -> dict[str, str]:
    """The docstring's `## Section` parts, read independently of Rule.doc_sections()."""
    parts = re.split(r"^## (.+)$", inspect.cleandoc(rule.__doc__ or ""), flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1].strip("\n") for i in range(1, len(parts) - 1, 2)}


def _code_block(rule: type[Rule], section: str) -> str:
    match = re.search(r"```python\n(.*?)```", _sections(rule).get(section, ""), flags=re.DOTALL)
    return match.group(1) if match else ""


def test_rules_are_found() -> None:
    assert {rule.code for rule in RULES} >= {"TL101", "TL102"}


def test_codes_and_names_are_unique() -> None:
    codes = [rule.code for rule in RULES]
    names = [rule.name for rule in RULES]
    assert len(set(codes)) == len(codes), codes
    assert len(set(names)) == len(names), names


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_code_name_and_summary_are_well_formed(rule: type[Rule]) -> None:
    assert re.fullmatch(r"TL[0-9]{3}", rule.code)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name), "names are kebab-case, after the flagged pattern"
    assert rule.summary and "\n" not in rule.summary


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_doc_has_every_section_in_order(rule: type[Rule]) -> None:
    headings = re.findall(r"^## (.+?)\s*$", inspect.cleandoc(rule.__doc__ or ""), flags=re.MULTILINE)
    assert headings == list(DOC_SECTIONS)
    sections = _sections(rule)
    for section in DOC_SECTIONS:
        assert sections[section].strip(), f"{rule.code}: section {section!r} is empty"


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_example_is_flagged_by_its_rule(rule: type[Rule]) -> None:
    example = _code_block(rule, "Example")
    assert example, f"{rule.code}: no ```python block under ## Example"
    report = check_source("example.py", example, Config(select=frozenset({rule.code})), strict=True)
    assert not report.errors and not report.crashes
    assert [d.code for d in report.diagnostics] and all(d.code == rule.code for d in report.diagnostics)


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_use_instead_is_not_flagged(rule: type[Rule]) -> None:
    fixed = _code_block(rule, "Use instead")
    assert fixed, f"{rule.code}: no ```python block under ## Use instead"
    report = check_source("use_instead.py", fixed, Config(), strict=True)
    assert not report.errors and not report.crashes
    assert not [d for d in report.diagnostics if d.code == rule.code], report.diagnostics


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_example_and_use_instead_differ_only_in_the_fix(rule: type[Rule]) -> None:
    # The pair is one kernel before and after the fix, so a reader can see what changes.
    example = _code_block(rule, "Example").splitlines()
    fixed = _code_block(rule, "Use instead").splitlines()
    assert len(example) == len(fixed)
    assert sum(a != b for a, b in zip(example, fixed)) <= 2


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_doc_sections_api_matches_the_docstring(rule: type[Rule]) -> None:
    assert list(rule.doc_sections()) == list(DOC_SECTIONS)
    assert rule.code_block("Example") == _code_block(rule, "Example")


@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_rule_prints_its_doc(rule: type[Rule], capsys: pytest.CaptureFixture[str]) -> None:
    from tritonlint.cli import main

    assert main(["rule", rule.code]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {rule.code} {rule.name}\n")
    assert all(f"## {section}" in out for section in DOC_SECTIONS)
