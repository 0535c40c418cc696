"""Exact output of every format (text, json, sarif, github) and of --statistics, on hand-made diagnostics."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tritonlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from tritonlint.output import FORMATS, render, statistics
from tritonlint.output._common import LineIndex
from tritonlint.output.text import summary_line
from tritonlint.rule import Rule

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"

SOURCE = (
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, K, BLOCK_K: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK_K)\n"
    "    a = tl.load(x_ptr + offs)\n"
    "    tl.store(x_ptr + offs, a)\n"
)
# The fix inserts a mask before the closing parenthesis of the load on line 7 (column 29).
MASK_AT = SOURCE.index("offs)\n    tl.store") + len("offs")

LOAD = Diagnostic(
    code="TL101",
    name="unmasked-tail-load",
    message="`tl.load` walks K in tiles of BLOCK_K with no mask on K",
    path="kernels/gemm.py",
    line=7,
    column=9,
    end_line=7,
    end_column=30,
    notes=("reachable when EVEN_K is False", "dimension walked: K (offs)"),
    fix=Fix(
        title="Mask the K tail: `mask=offs < K`",
        applicability=Applicability.UNSAFE,
        edits=(Edit(MASK_AT, MASK_AT, ", mask=offs < K"),),
    ),
)
STORE = Diagnostic(
    code="TL102",
    name="unmasked-tail-store",
    message="`tl.store` walks K in tiles of BLOCK_K with no mask on K",
    path="kernels/gemm.py",
    line=8,
    column=5,
    end_line=8,
    end_column=30,
)
# A path and message full of characters that GitHub commands and URIs must escape.
ODD = Diagnostic(
    code="TL101",
    name="unmasked-tail-load",
    message="100% sure: a, b",
    path="a dir/x,y.py",
    line=3,
    column=1,
    end_line=4,
    end_column=2,
    notes=("line one",),
)
# Out of order on purpose: every format sorts by path, line, column and code.
DIAGNOSTICS = [STORE, LOAD, ODD]
SOURCES = {"kernels/gemm.py": SOURCE}


class UnmaskedTailLoad(Rule):
    """## What it does
    Flags loads that can read past the end of a tensor on the last, partial tile.

    ## Why is this bad?
    Out-of-bounds reads return garbage or fault.

    ## Example
    ```python
    x = tl.load(ptr + offs)
    ```

    ## Use instead
    ```python
    x = tl.load(ptr + offs, mask=offs < n)
    ```

    ## Fix safety
    Unsafe when the mask is inferred.

    ## Known problems
    None known.
    """

    code: ClassVar[str] = "TL101"
    name: ClassVar[str] = "unmasked-tail-load"
    summary: ClassVar[str] = "Load that can read past a tensor's end on a partial tile"
    fixable: ClassVar[bool] = True


RULES = [UnmaskedTailLoad]  # TL102 left out: its results must still get a descriptor


def strip_ansi(text: str) -> str:
    return re.sub(r"\033\[[0-9;]*m", "", text)


# --- text -----------------------------------------------------------------------------------


TEXT = """\
a dir/x,y.py:3:1: TL101 100% sure: a, b
    note: line one
kernels/gemm.py:7:9: TL101 `tl.load` walks K in tiles of BLOCK_K with no mask on K
    note: reachable when EVEN_K is False
    note: dimension walked: K (offs)
    help: Mask the K tail: `mask=offs < K` (unsafe fix)
kernels/gemm.py:8:5: TL102 `tl.store` walks K in tiles of BLOCK_K with no mask on K
Found 3 errors (1 with --unsafe-fixes).
"""


def test_text_exact() -> None:
    assert render("text", DIAGNOSTICS, SOURCES) == TEXT


def test_text_first_lines_parse_as_path_line_col_code() -> None:
    headlines = [line for line in TEXT.splitlines() if not line.startswith(" ")][:-1]
    pattern = re.compile(r"^(.+):(\d+):(\d+): (TL\d{3}) (.+)$")
    assert [pattern.match(line) is not None for line in headlines] == [True] * 3


def test_text_color_only_adds_ansi_codes() -> None:
    colored = render("text", DIAGNOSTICS, SOURCES, color=True)
    assert "\033[1;31mTL101\033[0m" in colored
    assert strip_ansi(colored) == TEXT
    assert "\033[" not in render("text", DIAGNOSTICS, SOURCES, color=False)


def test_text_without_summary_and_when_clean() -> None:
    assert render("text", DIAGNOSTICS, SOURCES, summary=False) == TEXT.rsplit("Found", 1)[0]
    assert render("text", [], {}) == "All checks passed!\n"
    assert render("text", [], {}, summary=False) == ""


def test_summary_counts_fixes_by_applicability() -> None:
    safe = Fix("t", Applicability.SAFE, ())
    shown = Fix("t", Applicability.DISPLAY_ONLY, ())
    found = [
        STORE,
        LOAD,
        replace(STORE, fix=safe),
        replace(STORE, fix=shown),
    ]
    assert (
        summary_line(found) == "Found 4 errors (1 fixable with --fix, 1 more with --unsafe-fixes)."
    )
    assert summary_line([STORE]) == "Found 1 error."


# --- json -----------------------------------------------------------------------------------

JSON = [
    {
        "code": "TL101",
        "name": "unmasked-tail-load",
        "message": "100% sure: a, b",
        "path": "a dir/x,y.py",
        "line": 3,
        "column": 1,
        "end_line": 4,
        "end_column": 2,
        "notes": ["line one"],
        "fix": None,
    },
    {
        "code": "TL101",
        "name": "unmasked-tail-load",
        "message": "`tl.load` walks K in tiles of BLOCK_K with no mask on K",
        "path": "kernels/gemm.py",
        "line": 7,
        "column": 9,
        "end_line": 7,
        "end_column": 30,
        "notes": ["reachable when EVEN_K is False", "dimension walked: K (offs)"],
        "fix": {
            "title": "Mask the K tail: `mask=offs < K`",
            "applicability": "unsafe",
            "edits": [
                {
                    "content": ", mask=offs < K",
                    "location": {"row": 7, "column": 29},
                    "end_location": {"row": 7, "column": 29},
                }
            ],
        },
    },
    {
        "code": "TL102",
        "name": "unmasked-tail-store",
        "message": "`tl.store` walks K in tiles of BLOCK_K with no mask on K",
        "path": "kernels/gemm.py",
        "line": 8,
        "column": 5,
        "end_line": 8,
        "end_column": 30,
        "notes": [],
        "fix": None,
    },
]


def test_json_exact() -> None:
    out = render("json", DIAGNOSTICS, SOURCES)
    assert out.endswith("]\n")
    assert json.loads(out) == JSON
    assert out == json.dumps(JSON, indent=2) + "\n"  # key order too


def test_json_edit_positions_round_trip_to_the_offsets() -> None:
    edit = json.loads(render("json", [LOAD], SOURCES))[0]["fix"]["edits"][0]
    row, column = edit["location"]["row"], edit["location"]["column"]
    assert SOURCE.splitlines(keepends=True)[row - 1][column - 1 :].startswith(")\n")
    patched = SOURCE[:MASK_AT] + edit["content"] + SOURCE[MASK_AT:]
    assert "a = tl.load(x_ptr + offs, mask=offs < K)\n" in patched


def test_json_needs_the_source_of_a_fixed_path() -> None:
    with pytest.raises(KeyError, match="kernels/gemm.py"):
        render("json", [LOAD], {})
    assert json.loads(render("json", [STORE], {}))[0]["fix"] is None  # no fix, no text needed
    assert render("json", [], {}) == "[]\n"


def test_line_index() -> None:
    index = LineIndex("ab\r\ncd\n\nx")
    assert [index.position(i) for i in (0, 2, 4, 6, 7, 8, 9)] == [
        (1, 1),
        (1, 3),  # the "\r" is the last character of line 1
        (2, 1),
        (2, 3),
        (3, 1),
        (4, 1),
        (4, 2),  # end of file, no newline: an insertion point after "x"
    ]
    with pytest.raises(ValueError):
        index.position(10)
    assert LineIndex("").position(0) == (1, 1)


# --- sarif ----------------------------------------------------------------------------------


def sarif_validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def test_sarif_validates_against_the_2_1_0_schema() -> None:
    log = json.loads(render("sarif", DIAGNOSTICS, SOURCES, rules=RULES))
    errors = [error.message for error in sarif_validator().iter_errors(log)]
    assert errors == []


def test_sarif_rules_carry_the_rule_docs() -> None:
    log = json.loads(render("sarif", DIAGNOSTICS, SOURCES, rules=RULES))
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "tritonlint"
    assert driver["informationUri"].startswith("https://")
    assert isinstance(driver["version"], str) and driver["version"]
    tl101, tl102 = driver["rules"]
    assert tl101["id"] == "TL101"
    assert tl101["name"] == "unmasked-tail-load"
    assert tl101["shortDescription"] == {"text": UnmaskedTailLoad.summary}
    assert tl101["fullDescription"] == {
        "text": "Flags loads that can read past the end of a tensor on the last, partial tile."
    }
    help_markdown = tl101["help"]["markdown"]
    assert help_markdown.startswith("## What it does\n\nFlags loads")
    assert "## Known problems\n\nNone known." in help_markdown
    assert "```python\nx = tl.load(ptr + offs, mask=offs < n)\n```" in help_markdown
    assert tl102 == {"id": "TL102", "name": "unmasked-tail-store"}


def test_sarif_results_and_fixes_exact() -> None:
    run = json.loads(render("sarif", DIAGNOSTICS, SOURCES, rules=RULES))["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    odd, load, store = run["results"]
    assert odd["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "a%20dir/x%2Cy.py"
    }
    assert odd["message"] == {"text": "100% sure: a, b\nline one"}
    assert load == {
        "ruleId": "TL101",
        "ruleIndex": 0,
        "level": "error",
        "message": {
            "text": "`tl.load` walks K in tiles of BLOCK_K with no mask on K\n"
            "reachable when EVEN_K is False\n"
            "dimension walked: K (offs)"
        },
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "kernels/gemm.py"},
                    "region": {"startLine": 7, "startColumn": 9, "endLine": 7, "endColumn": 30},
                }
            }
        ],
        "fixes": [
            {
                "description": {"text": "Mask the K tail: `mask=offs < K`"},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": "kernels/gemm.py"},
                        "replacements": [
                            {
                                "deletedRegion": {
                                    "startLine": 7,
                                    "startColumn": 29,
                                    "endLine": 7,
                                    "endColumn": 29,
                                    "charOffset": MASK_AT,
                                    "charLength": 0,
                                },
                                "insertedContent": {"text": ", mask=offs < K"},
                            }
                        ],
                    }
                ],
                "properties": {"applicability": "unsafe"},
            }
        ],
    }
    assert store["ruleIndex"] == 1 and "fixes" not in store


def test_sarif_with_no_findings_and_absolute_paths() -> None:
    empty = json.loads(render("sarif", [], {}, rules=RULES))
    assert empty["runs"][0]["results"] == []
    absolute = replace(STORE, path="/src/k.py")
    log = json.loads(render("sarif", [absolute], {}, rules=RULES))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "file:///src/k.py"}
    validator = sarif_validator()
    assert [e.message for e in validator.iter_errors(empty)] == []
    assert [e.message for e in validator.iter_errors(log)] == []


def test_sarif_of_the_fixtures_validates_and_carries_their_fixes() -> None:
    """End to end through the CLI, once it and the fixtures exist."""
    pytest.importorskip("tritonlint.cli")
    if not list((ROOT / "fixtures").rglob("*.py")):
        pytest.skip("no fixtures yet")
    usage = [sys.executable, "-m", "tritonlint", "check", "--help"]
    help_text = subprocess.run(usage, cwd=ROOT, capture_output=True, text=True, check=False).stdout
    if "sarif" not in help_text:
        pytest.skip("the CLI does not offer --output-format sarif yet")

    def check(fmt: str) -> Any:
        argv = [sys.executable, "-m", "tritonlint", "check", "fixtures", "--output-format", fmt]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        assert done.returncode in (0, 1), done.stderr
        return json.loads(done.stdout)

    log, findings = check("sarif"), check("json")
    assert [e.message for e in sarif_validator().iter_errors(log)] == []
    results = log["runs"][0]["results"]
    assert len(results) == len(findings)
    # A display-only fix has no replacement to offer, so SARIF carries only fixes with edits.
    assert sum("fixes" in r for r in results) == sum(
        bool(f["fix"] and f["fix"]["edits"]) for f in findings
    )


def _apply_sarif(text: str, replacements: list[dict[str, Any]], by: str) -> str:
    """`text` with SARIF replacements applied the way a consumer does: each deleted region found
    by its line/column fields (`by="lines"`, code points, 1-based, end exclusive) or by
    charOffset/charLength (`by="offsets"`), removed and replaced by the inserted text."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    spans = []
    for r in replacements:
        region = r["deletedRegion"]
        if by == "lines":
            start = starts[region["startLine"] - 1] + region["startColumn"] - 1
            end = starts[region["endLine"] - 1] + region["endColumn"] - 1
        else:
            start, end = region["charOffset"], region["charOffset"] + region["charLength"]
        spans.append((start, end, r["insertedContent"]["text"]))
    for start, end, inserted in sorted(spans, reverse=True):
        text = text[:start] + inserted + text[end:]
    return text


def _overlap(spans: list[dict[str, Any]]) -> bool:
    regions = sorted((r["deletedRegion"]["charOffset"], r["deletedRegion"]["charOffset"] + r["deletedRegion"]["charLength"])
                     for r in spans)
    return any(later[0] < earlier[1] for earlier, later in zip(regions, regions[1:]))


def test_applying_the_sarif_fixes_gives_the_fixed_files() -> None:
    """`check --output-format sarif` over the fixtures (real CLI): applying each file's fix
    replacements, by line/column and by character offset, gives its `.fixed.py` byte for byte.
    Where fixes share a statement that a fix lays out anew (a load nested in a store, the call
    wrapped to the line length), their replacements overlap: a consumer applies one at a time, so
    there each fix alone must give a file that parses, and `--fix` (rounds) gives `.fixed.py`."""
    argv = [sys.executable, "-m", "tritonlint", "check", "--no-cache", "fixtures", "--output-format", "sarif"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    replacements: dict[str, list[dict[str, Any]]] = {}
    per_fix: dict[str, list[list[dict[str, Any]]]] = {}
    for result in json.loads(done.stdout)["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                uri = change["artifactLocation"]["uri"]
                replacements.setdefault(uri, []).extend(change["replacements"])
                per_fix.setdefault(uri, []).append(change["replacements"])
    fixed_files = sorted((ROOT / "fixtures").glob("*/*.fixed.py"))
    assert len(fixed_files) >= 30
    deleting = 0
    overlapping = []
    for fixed in fixed_files:
        case = fixed.with_name(fixed.name[: -len(".fixed.py")] + ".py")
        uri = case.relative_to(ROOT).as_posix()
        original = case.read_bytes().decode("utf-8")
        assert uri in replacements, f"{uri} has a .fixed.py but no SARIF fix"
        deleting += sum(r["deletedRegion"]["charLength"] > 0 for r in replacements[uri])
        if _overlap(replacements[uri]):
            overlapping.append(uri)
            for alone in per_fix[uri]:
                for by in ("lines", "offsets"):
                    ast.parse(_apply_sarif(original, alone, by))
            continue
        for by in ("lines", "offsets"):
            applied = _apply_sarif(original, replacements[uri], by)
            assert applied.encode("utf-8") == fixed.read_bytes(), (uri, by)
            ast.parse(applied)
    assert deleting >= 5  # replacements with a real deleted region, not insertions only
    assert len(overlapping) <= 2, overlapping  # the nested-call cases, not the rule


# --- github ---------------------------------------------------------------------------------

GITHUB = """\
::error file=a dir/x%2Cy.py,line=3,col=1,endLine=4,endColumn=2,title=TL101 unmasked-tail-load::100%25 sure: a, b%0Aline one
::error file=kernels/gemm.py,line=7,col=9,endLine=7,endColumn=30,title=TL101 unmasked-tail-load::`tl.load` walks K in tiles of BLOCK_K with no mask on K%0Areachable when EVEN_K is False%0Adimension walked: K (offs)
::error file=kernels/gemm.py,line=8,col=5,endLine=8,endColumn=30,title=TL102 unmasked-tail-store::`tl.store` walks K in tiles of BLOCK_K with no mask on K
"""


def test_github_exact() -> None:
    assert render("github", DIAGNOSTICS, SOURCES) == GITHUB
    assert render("github", [], {}) == ""


# --- statistics and dispatch ----------------------------------------------------------------


def test_statistics_like_ruff() -> None:
    many = [replace(STORE, line=n) for n in range(10, 21)]
    assert statistics(DIAGNOSTICS + many) == (
        "12\tTL102\t[ ] unmasked-tail-store\n 2\tTL101\t[-] unmasked-tail-load\n"
    )
    assert statistics([]) == ""


def test_formats_and_unknown_format() -> None:
    assert FORMATS == ("text", "concise", "full", "json", "sarif", "github")
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render("xml", DIAGNOSTICS, SOURCES)


# --- exact pieces the mutation run found unpinned (docs/testing/mutation.md) --------------------------


def test_full_snippet_keeps_a_line_ending_in_x_and_drops_only_a_carriage_return() -> None:
    source = SOURCE.replace("a = tl.load(x_ptr + offs)\n", "a = tl.load(x_ptr + offs)  # X\r\n")
    lines = render("full", [LOAD], {LOAD.path: source}).splitlines()
    assert lines[1:5] == ["  |", "7 |     a = tl.load(x_ptr + offs)  # X", "  |         ^^^^^^^^^^^^^^^^^^^^^", "  |"]


def test_colored_headline_colors_each_separator() -> None:
    first = render("text", [LOAD], SOURCES, color=True).splitlines()[0]
    colon = "\033[36m:\033[0m"
    assert first == (f"\033[1mkernels/gemm.py\033[0m{colon}7{colon}9{colon} \033[1;31mTL101\033[0m "
                     "`tl.load` walks K in tiles of BLOCK_K with no mask on K")


def test_github_property_escapes_are_upper_case() -> None:
    from tritonlint.output.github import _escape_property

    assert _escape_property("a:b,c%\r\n") == "a%3Ab%2Cc%25%0D%0A"


def test_sarif_rule_help_sections_version_and_properties() -> None:
    from importlib import metadata

    driver = json.loads(render("sarif", DIAGNOSTICS, SOURCES, rules=RULES))["runs"][0]["tool"]["driver"]
    assert driver["version"] == metadata.version("tritonlint")
    tl101 = driver["rules"][0]
    assert tl101["properties"] == {"fixable": True}
    markdown = tl101["help"]["markdown"]
    assert tl101["help"]["text"] == markdown
    assert re.findall(r"(?:^|\n\n)## ([^\n]+)\n\n", markdown) == list(UnmaskedTailLoad.doc_sections())
