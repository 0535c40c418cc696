"""`--output-format sarif`: a SARIF 2.1.0 log with rule metadata, results and their concrete fixes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from tritonlint.diagnostics import Diagnostic, Fix
from tritonlint.output._common import SourceIndex, ordered
from tritonlint.rule import DOC_SECTIONS, Rule

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://pypi.org/project/tritonlint/"


def render(
    diagnostics: Iterable[Diagnostic],
    sources: Mapping[str, str],
    rules: Sequence[type[Rule]],
) -> str:
    """The SARIF log as indented JSON; `sources` (path -> text) places the fix replacements."""
    found = ordered(diagnostics)
    descriptors = [_rule(rule) for rule in rules]
    # A finding of a rule the caller did not list still needs a descriptor for its ruleIndex.
    known = {descriptor["id"] for descriptor in descriptors}
    for d in found:
        if d.code not in known:
            known.add(d.code)
            descriptors.append({"id": d.code, "name": d.name})
    positions = {descriptor["id"]: i for i, descriptor in enumerate(descriptors)}
    index = SourceIndex(sources)
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tritonlint",
                        "version": _version(),
                        "informationUri": INFORMATION_URI,
                        "rules": descriptors,
                    }
                },
                # Columns and character offsets count code points, as Python strings index text
                # (SARIF's default would be UTF-16 code units).
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, positions[d.code], index) for d in found],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _version() -> str:
    try:
        return metadata.version("tritonlint")
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        return "0+unknown"


def _rule(rule: type[Rule]) -> dict[str, Any]:
    sections = rule.doc_sections()
    markdown = "\n\n".join(
        f"## {name}\n\n{sections[name]}" for name in DOC_SECTIONS if name in sections
    )
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": sections.get("What it does", rule.summary)},
        "defaultConfiguration": {"level": "error"},
        "properties": {"fixable": rule.fixable},
    }
    if markdown:
        descriptor["help"] = {"text": markdown, "markdown": markdown}
    return descriptor


def _uri(path: str) -> str:
    """A URI reference for a path as the user gave it: relative stays relative, for code scanning."""
    pure = PurePath(path)
    if pure.is_absolute():
        return pure.as_uri()
    return quote(pure.as_posix())


def _region(start: tuple[int, int], end: tuple[int, int]) -> dict[str, int]:
    return {"startLine": start[0], "startColumn": start[1], "endLine": end[0], "endColumn": end[1]}


def _result(d: Diagnostic, rule_index: int, index: SourceIndex) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": "error",
        # Notes (path condition, dimension walked) are part of the explanation, so they go in the
        # text every viewer shows rather than in a property bag few render.
        "message": {"text": "\n".join((d.message, *d.notes))},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(d.path)},
                    "region": _region((d.line, d.column), (d.end_line, d.end_column)),
                }
            }
        ],
    }
    if d.cell is not None:  # a notebook's: lines count within this cell
        result["properties"] = {"cell": d.cell}
    if d.fix is not None and d.fix.edits:  # a display-only fix has nothing to replace
        result["fixes"] = [_fix(d.fix, d.path, index)]
    return result


def _fix(fix: Fix, path: str, index: SourceIndex) -> dict[str, Any]:
    replacements = []
    for edit in fix.edits:
        region = _region(index.position(path, edit.start), index.position(path, edit.end))
        # charOffset/charLength are what the Edit holds, so a consumer applying fixes by offset
        # needs no line table of its own; both spellings name the same text.
        region.update(charOffset=edit.start, charLength=edit.end - edit.start)
        replacements.append({"deletedRegion": region, "insertedContent": {"text": edit.content}})
    return {
        "description": {"text": fix.title},
        "artifactChanges": [
            {"artifactLocation": {"uri": _uri(path)}, "replacements": replacements}
        ],
        "properties": {"applicability": fix.applicability.value},
    }
