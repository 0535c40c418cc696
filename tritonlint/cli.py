"""Command line: argument parsing and exit codes only; the work is in runner and engine."""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import os
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path

from tritonlint import __version__
from tritonlint.config import Config, ConfigError, find_pyproject, load_config
from tritonlint.engine import FileReport
from tritonlint.output import FORMATS
from tritonlint.rule import all_rules
from tritonlint.runner import SourceFile, UsageError, check_file, discover, fix_file

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tritonlint", description="Static checker for Triton GPU kernels.")
    parser.add_argument("--version", action="version", version=f"tritonlint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="check files and folders for unmasked tail-tile accesses")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument("--output-format", choices=list(FORMATS), default="text")
    check.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
    check.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    check.add_argument("--statistics", action="store_true", help="print the number of findings per rule")
    check.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    check.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    check.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    check.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of the nearest one")

    verify = commands.add_parser("verify", help="run original and fixed kernels under a harness and compare")
    from tritonlint.verify.cli import add_arguments as add_verify_arguments

    add_verify_arguments(verify)

    rule = commands.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", metavar="CODE")
    commands.add_parser("rules", help="list every rule")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help
        return int(exit_.code or 0)
    if args.command == "rules":
        for rule in all_rules():
            print(f"{rule.code}  {rule.name:<24} {'fixable' if rule.fixable else '       '}  {rule.summary}")
        return EXIT_CLEAN
    if args.command == "rule":
        return _print_rule(args.code)
    if args.command == "verify":
        from tritonlint.verify.cli import run as run_verify

        return run_verify(args)
    return _check(args)


def _print_rule(code: str) -> int:
    for rule in all_rules():
        if code.upper() in (rule.code, rule.name.upper()):
            print(f"# {rule.code} {rule.name}\n")
            for section, body in rule.doc_sections().items():
                print(f"## {section}\n{body}\n")
            return EXIT_CLEAN
    print(f"tritonlint: unknown rule {code!r} (see `tritonlint rules`)", file=sys.stderr)
    return EXIT_ERROR


def _config(args: argparse.Namespace) -> Config:
    pyproject = Path(args.config) if args.config else find_pyproject(Path(args.paths[0]) if args.paths else Path.cwd())
    if args.config and not pyproject.is_file():
        raise ConfigError(f"{args.config}: no such configuration file")
    config = load_config(pyproject)
    if args.select or args.ignore:
        from dataclasses import replace

        config = replace(
            config,
            select=frozenset(_split(args.select)) if args.select else config.select,
            ignore=config.ignore | frozenset(_split(args.ignore)) if args.ignore else config.ignore,
        )
    return config


def _split(text: str) -> list[str]:
    return [part.strip().upper() for part in text.split(",") if part.strip()]


def _check(args: argparse.Namespace) -> int:
    try:
        config = _config(args)
        files = list(discover(args.paths, config))
    except (ConfigError, UsageError) as error:
        print(f"tritonlint: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.fix or args.diff:
        work = functools.partial(fix_file, config=config, unsafe=args.unsafe_fixes, write=not args.diff)
    else:
        work = functools.partial(check_file, config=config)
    return _report(_map(work, files), args)


def _map(work: Callable[[SourceFile], FileReport], files: list[SourceFile]) -> list[FileReport]:
    """Check files on every core: analysis is CPU-bound Python, one process per core."""
    workers = min(os.cpu_count() or 1, len(files) // 16)
    if workers < 2:
        return [work(file) for file in files]
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        return list(pool.map(work, files, chunksize=8))


def _report(reports: list[FileReport], args: argparse.Namespace) -> int:
    from tritonlint.output import render, statistics

    for report in reports:
        for line in report.notices + report.errors + report.crashes:
            print(f"tritonlint: {line}", file=sys.stderr)
    if args.diff:
        changed = [report for report in reports if report.fixed_text is not None]
        for report in changed:
            sys.stdout.write(_unified_diff(report))
        if any(report.crashes for report in reports):
            return EXIT_ERROR
        return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
    diagnostics = sorted((d for report in reports for d in report.diagnostics), key=lambda d: d.sort_key())
    # After --fix the diagnostics index the fixed text; JSON and SARIF place edits with it.
    sources = {report.path: report.fixed_text or report.text or "" for report in reports if report.diagnostics}
    unchecked = sum(1 for report in reports if report.errors or report.crashes)
    output = render(args.output_format, diagnostics, sources, color=sys.stdout.isatty(),
                    summary=not args.quiet and not unchecked)
    if unchecked and not args.quiet and args.output_format == "text":
        output += f"Found {len(diagnostics)} error(s); {unchecked} file(s) could not be checked.\n"
    if output:
        sys.stdout.write(output if output.endswith("\n") else output + "\n")
    if args.statistics and diagnostics:
        print(statistics(diagnostics))
    fixed = sum(1 for report in reports if report.fixed_text is not None)
    if args.fix and fixed and not args.quiet:
        print(f"tritonlint: fixed {fixed} file(s)", file=sys.stderr)
    if any(report.crashes for report in reports):
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if diagnostics or any(report.errors for report in reports):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _unified_diff(report: FileReport) -> str:
    import difflib

    before = (report.text or "").splitlines(keepends=True)
    after = (report.fixed_text or "").splitlines(keepends=True)
    return "".join(difflib.unified_diff(before, after, fromfile=f"a/{report.path}", tofile=f"b/{report.path}"))
