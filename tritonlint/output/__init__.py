"""Output formats: each renders a list of diagnostics to one string, with no side effects."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from tritonlint.diagnostics import Applicability, Diagnostic
from tritonlint.output import github, json, sarif, text
from tritonlint.rule import Rule, all_rules

FORMATS = ("text", "concise", "full", "json", "sarif", "github")


def render(
    fmt: str,
    diagnostics: Iterable[Diagnostic],
    sources: Mapping[str, str],
    *,
    color: bool = False,
    summary: bool = True,
    rules: Sequence[type[Rule]] | None = None,
    unsafe_fixes: bool = False,
) -> str:
    """Render `diagnostics` (sorted by path, line, column, code) in format `fmt`.

    `sources` maps each path to the text its Edit offsets index, needed for paths whose
    diagnostics carry a fix (json, sarif). `color` and `summary` (the closing count line) apply to
    the text formats only (`full` also shows each finding's source line from `sources`); `rules` lists SARIF's rule descriptors, every shipped rule when None; `unsafe_fixes` (the configuration lets
    `--fix` apply unsafe fixes) makes the count line count them as fixable with `--fix`.
    """
    if fmt in ("text", "concise", "full"):
        return text.render(diagnostics, color=color, summary=summary, style=fmt, sources=sources,
                           unsafe_fixes=unsafe_fixes)
    if fmt == "json":
        return json.render(diagnostics, sources)
    if fmt == "sarif":
        return sarif.render(diagnostics, sources, all_rules() if rules is None else rules)
    if fmt == "github":
        return github.render(diagnostics)
    raise ValueError(f"unknown output format {fmt!r}; choose from {', '.join(FORMATS)}")


def rule_names() -> dict[str, str]:
    """Code -> name for every code tritonlint reports."""
    from tritonlint.suppressions import UnusedSuppression
    from tritonlint.unchecked import FileNotChecked

    rules: tuple[type[Rule], ...] = (FileNotChecked, UnusedSuppression, *all_rules())
    return {rule.code: rule.name for rule in rules}


def statistics(diagnostics: Iterable[Diagnostic]) -> str:
    """One line per rule, most frequent first, like `ruff --statistics`: count, code, fix mark, name.

    The mark is `[*]` when some finding of the rule has a safe fix, `[-]` when its fixes need
    --unsafe-fixes, `[ ]` otherwise.
    """
    found = list(diagnostics)
    counts = Counter(d.code for d in found)
    names = {d.code: d.name for d in found}
    fixes: dict[str, set[Applicability]] = {}
    for d in found:
        if d.fix is not None:
            fixes.setdefault(d.code, set()).add(d.fix.applicability)
    width = max((len(str(n)) for n in counts.values()), default=1)
    code_width = max((len(code) for code in counts), default=1)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        mark = _fix_mark(fixes.get(code, set()))
        lines.append(f"{count:>{width}}\t{code:<{code_width}}\t{mark} {names[code]}\n")
    return "".join(lines)


def statistics_json(diagnostics: Iterable[Diagnostic], *, unsafe_fixes: bool = False) -> str:
    """`--statistics --output-format json`, as ruff writes it: a list of `{"code", "name", "count",
    "fixable", "fixable_count"}`, most frequent first; a fix counts when this run could apply it."""
    import json as json_

    found = list(diagnostics)
    counts = Counter(d.code for d in found)
    names = {d.code: d.name for d in found}
    applicable = {Applicability.SAFE, Applicability.UNSAFE} if unsafe_fixes else {Applicability.SAFE}
    fixable = Counter(d.code for d in found if d.fix is not None and d.fix.applicability in applicable)
    rows = [{"code": code, "name": names[code], "count": count, "fixable": fixable[code] > 0,
             "fixable_count": fixable[code]}
            for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return json_.dumps(rows, indent=2) + "\n"


def _fix_mark(applicable: set[Applicability]) -> str:
    if Applicability.SAFE in applicable:
        return "[*]"
    if Applicability.UNSAFE in applicable:
        return "[-]"
    return "[ ]"
