"""What a run prints: findings in the chosen format, statistics, diffs, fix summaries; stdout that survives a closed pipe."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tritonlint.config import Config
from tritonlint.notebook import in_cells, is_notebook
from tritonlint.report import FileReport
from tritonlint.runner import SourceFile, matches

if TYPE_CHECKING:
    from tritonlint.diagnostics import Diagnostic
    from tritonlint.rule import Rule

# Kept in step with tritonlint.output.FORMATS (a test checks); importing the output package here
# would cost every run its imports.
TEXT_FORMATS = ("text", "concise", "full")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def out(text: str) -> None:
    """Write to stdout; a reader that went away (`| head -1`) ends the output, not the run."""
    if not text:
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()


def out_bytes(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()


def print_problems(report: FileReport) -> None:
    """Notices, internal errors, and errors that are not TL001 findings (a fix that was not written)."""
    errors = report.errors if not report.unchecked else ()
    for line in report.notices + errors + report.crashes:
        print(f"tritonlint: {line}", file=sys.stderr)


def kept_diagnostics(report: FileReport, config: Config, files: Sequence[SourceFile]) -> list[Diagnostic]:
    """The report's findings, TL001 for a file that was not checked, less those per-file-ignores hide."""
    from tritonlint.unchecked import unchecked_diagnostics

    found = [*report.diagnostics, *unchecked_diagnostics(report)]
    if report.text is not None and is_notebook(report.path):
        found = in_cells(found, report.text)
    if not config.per_file_ignores:
        return found
    path = next((file.path for file in files if file.display == report.path), Path(report.path))
    ignored = [codes for pattern, codes in config.per_file_ignores if matches(path, [pattern], config)]
    return [d for d in found if d.code == "TL001"
            or not any(d.code.startswith(prefix) for codes in ignored for prefix in codes)]


def report_results(reports: list[FileReport], args: argparse.Namespace, config: Config,
            files: Sequence[SourceFile]) -> int:
    """Print the findings (to `--output-file` when given) and return the exit code."""
    if not args.output_file:
        return emit(reports, args, config, files)
    target = Path(args.output_file)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # ruff creates the folders too
        handle = open(target, "w", encoding="utf-8", newline="")  # noqa: SIM115  (closed by the `with` below)
    except OSError as error:
        print(f"tritonlint: --output-file {args.output_file}: cannot write: {error.strerror or error}",
              file=sys.stderr)
        return EXIT_ERROR
    with handle, contextlib.redirect_stdout(handle):
        return emit(reports, args, config, files)


def emit(reports: list[FileReport], args: argparse.Namespace, config: Config,
          files: Sequence[SourceFile]) -> int:
    from tritonlint.output import render

    text_format = args.output_format in TEXT_FORMATS
    for report in reports:
        print_problems(report)
    kept = {report.path: kept_diagnostics(report, config, files) for report in reports}
    diagnostics = sorted((d for found in kept.values() for d in found), key=lambda d: d.sort_key())
    crashed = any(report.crashes for report in reports)
    fixed = [report for report in reports if report.fixed_text is not None]
    fixed_count = sum(len(report.fixed) for report in fixed)
    if args.diff:
        for d in diagnostics:  # the diff must stay a diff: files not checked go to stderr
            if d.code == "TL001":
                print(f"tritonlint: {d.path}:{d.line}: {d.message}", file=sys.stderr)
        for report in fixed:
            out(unified_diff(report))
        if not fixed and not args.unsafe_fixes:
            unsafe = sum(d.fix is not None and d.fix.applicability.value == "unsafe" for d in diagnostics)
            if unsafe:
                print(f"No errors would be fixed ({unsafe} fix{'es' if unsafe != 1 else ''} available with "
                      f"`--unsafe-fixes`).", file=sys.stderr)
        if crashed:
            return EXIT_ERROR
        unchecked = any(d.code == "TL001" for d in diagnostics)
        return EXIT_FINDINGS if (fixed or unchecked) and not args.exit_zero else EXIT_CLEAN
    if args.statistics:
        # Like ruff: the counts replace the findings (a JSON document of them with --output-format json).
        out(statistics(args, diagnostics))
    else:
        # After --fix the diagnostics index the fixed text; JSON and SARIF place edits with it.
        sources = {report.path: report.fixed_text or report.text or "" for report in reports if report.diagnostics}
        output = render(args.output_format, diagnostics, sources, color=use_color(args),
                        summary=not args.quiet and not (args.fix and fixed_count),
                        rules=sarif_rules(args, diagnostics), unsafe_fixes=args.unsafe_fixes)
        if text_format and args.fix and fixed_count and not args.quiet:
            total = fixed_count + len(diagnostics)
            output += (f"Found {total} error{'s' if total != 1 else ''} ({fixed_count} fixed, "
                       f"{len(diagnostics)} remaining).\n")
        if output:
            out(output if output.endswith("\n") else output + "\n")
    if args.show_fixes and args.fix and fixed:
        shown = show_fixes(fixed, fixed_count)
        if text_format:
            out(shown)
        else:
            sys.stderr.write(shown)
    if args.fix and fixed and not args.quiet:
        print(f"tritonlint: fixed {len(fixed)} file(s)", file=sys.stderr)
    if crashed:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if diagnostics or (args.exit_non_zero_on_fix and fixed):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def statistics(args: argparse.Namespace, diagnostics: Sequence[Diagnostic]) -> str:
    from tritonlint.output import statistics, statistics_json
    from tritonlint.output.text import summary_line

    if args.output_format == "json":
        return statistics_json(diagnostics, unsafe_fixes=args.unsafe_fixes)
    table = statistics(diagnostics)
    if args.quiet or args.output_format not in TEXT_FORMATS:
        return table
    return table + summary_line(diagnostics, unsafe_fixes=args.unsafe_fixes) + "\n"


def use_color(args: argparse.Namespace) -> bool:
    """`--color always/never`; else as ruff decides: a non-empty NO_COLOR turns colour off
    (https://no-color.org), then a non-empty FORCE_COLOR turns it on, then a terminal does."""
    if args.color != "auto":
        return bool(args.color == "always")
    if getattr(args, "output_file", None):
        return False  # a file is not a terminal, whatever the environment says (ruff agrees)
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def show_fixes(fixed: Sequence[FileReport], count: int) -> str:
    """ruff's `--show-fixes` list: each file, and per rule how many findings its fixes removed."""
    from collections import Counter

    from tritonlint.output import rule_names

    names = rule_names()
    lines = [f"Fixed {count} error{'s' if count != 1 else ''}:"]
    for report in fixed:
        lines.append(f"- {report.path}:")
        for code, number in sorted(Counter(report.fixed).items()):
            lines.append(f"    {number} \u00d7 {code} ({names.get(code, '')})")
    return "".join(line + "\n" for line in lines)


def sarif_rules(args: argparse.Namespace, diagnostics: Sequence[Diagnostic]) -> list[type[Rule]] | None:
    """SARIF's rule descriptors: every shipped rule, TL100 when it can be reported, TL001 when reported."""
    if args.output_format != "sarif":
        return None
    from tritonlint.rule import all_rules
    from tritonlint.suppressions import UnusedSuppression
    from tritonlint.unchecked import FileNotChecked

    extra: list[type[Rule]] = [FileNotChecked] if any(d.code == "TL001" for d in diagnostics) else []
    if args.report_unused_suppressions:
        extra.append(UnusedSuppression)
    return [*all_rules(), *extra] if extra else None


def unified_diff(report: FileReport) -> str:
    import difflib

    before = (report.text or "").splitlines(keepends=True)
    after = (report.fixed_text or "").splitlines(keepends=True)
    return "".join(difflib.unified_diff(before, after, fromfile=f"a/{report.path}", tofile=f"b/{report.path}"))
