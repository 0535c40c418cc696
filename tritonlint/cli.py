"""Command line: argument parsing and exit codes only; the work is in runner and engine."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tritonlint import __version__
from tritonlint.cache import Cache, default_cache_dir
from tritonlint.config import Config, ConfigError, find_pyproject, load_config
from tritonlint.report import FileReport
from tritonlint.runner import (
    SourceFile,
    UsageError,
    add_suppressions_file,
    analyse,
    cached_report,
    discover,
    first_look,
    fix_file,
)

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from tritonlint.diagnostics import Diagnostic
    from tritonlint.rule import Rule

# Kept in step with tritonlint.output.FORMATS (a test checks); importing the output package here
# would cost every run its imports.
FORMATS = ("text", "json", "sarif", "github")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# Fewer files than this per worker, and a process pool costs more than it saves.
FILES_PER_WORKER = 16

Item = TypeVar("Item")


def build_parser(verify_arguments: bool = True) -> argparse.ArgumentParser:
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
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the results cache")
    check.add_argument("--cache-dir", metavar="DIR",
                       help="results cache folder (default: .tritonlint_cache beside the pyproject.toml, "
                            "else in the current folder)")
    check.add_argument("--report-unused-suppressions", action="store_true",
                       help="report suppression comments that suppress nothing (TL100)")
    check.add_argument("--add-suppressions", action="store_true",
                       help="write a `# tritonlint: ignore[CODE] TODO: ...` comment for every finding")

    verify = commands.add_parser("verify", help="run original and fixed kernels under a harness and compare")
    if verify_arguments:  # the verifier's imports are paid only when it runs
        from tritonlint.verify.cli import add_arguments as add_verify_arguments

        add_verify_arguments(verify)

    rule = commands.add_parser("rule", help="print a rule's documentation")
    rule.add_argument("code", metavar="CODE")
    commands.add_parser("rules", help="list every rule")
    server = commands.add_parser("server", help="run the language server on stdin/stdout (needs tritonlint[lsp])")
    server.add_argument("--stdio", action="store_true", help="accepted for editors that pass it: stdio is the default")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; exit 0 clean, 1 findings, 2 usage/config/internal error.

    An unexpected exception is an internal error (exit 2), never exit 1: a crash read as
    "findings remain" would pass for a run in CI scripts and in `verify`'s fixer step.
    """
    try:
        return _main(argv)
    except Exception as error:  # noqa: BLE001  (the last line of defence: report, exit 2)
        import traceback

        where = traceback.extract_tb(error.__traceback__)[-1]
        print(f"tritonlint: internal error: {type(error).__name__}: {str(error)[:300]} "
              f"[{Path(where.filename).name}:{where.lineno}]", file=sys.stderr)
        return EXIT_ERROR


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(verify_arguments="verify" in argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help
        return int(exit_.code or 0)
    if args.command == "rules":
        from tritonlint.rule import all_rules
        from tritonlint.suppressions import UnusedSuppression

        listed: tuple[type[Rule], ...] = (*all_rules(), UnusedSuppression)
        for rule in listed:  # TL100 too: it is reported and documented
            print(f"{rule.code}  {rule.name:<24} {'fixable' if rule.fixable else '       '}  {rule.summary}")
        return EXIT_CLEAN
    if args.command == "rule":
        return _print_rule(args.code)
    if args.command == "server":
        try:  # pygls is the `lsp` extra: `check` never needs it
            from tritonlint.server import serve
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
                raise
            print("tritonlint: `tritonlint server` needs pygls: install tritonlint[lsp]", file=sys.stderr)
            return EXIT_ERROR
        return serve()
    if args.command == "verify":
        from tritonlint.verify.cli import run as run_verify

        return run_verify(args)
    return _check(args)


def _print_rule(code: str) -> int:
    from tritonlint.rule import all_rules
    from tritonlint.suppressions import UnusedSuppression

    rules: tuple[type[Rule], ...] = (*all_rules(), UnusedSuppression)
    for rule in rules:
        if code.upper() in (rule.code, rule.name.upper()):
            print(f"# {rule.code} {rule.name}\n")
            for section, body in rule.doc_sections().items():
                print(f"## {section}\n{body}\n")
            return EXIT_CLEAN
    print(f"tritonlint: unknown rule {code!r} (see `tritonlint rules`)", file=sys.stderr)
    return EXIT_ERROR


def _config(args: argparse.Namespace) -> Config:
    pyproject = Path(args.config) if args.config else find_pyproject(Path(args.paths[0]) if args.paths else Path.cwd())
    if args.config and pyproject is not None and not pyproject.is_file():
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
    except (ConfigError, UsageError) as error:
        print(f"tritonlint: {error}", file=sys.stderr)
        return EXIT_ERROR
    # A cold run over folders: start the workers now, so they import the analysis (libcst) while
    # this process walks the folders and reads the files.
    pool = _early_pool(args, config) if not (args.fix or args.diff or args.add_suppressions) else None
    try:
        return _check_with(args, config, pool)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _check_with(args: argparse.Namespace, config: Config, pool: ProcessPoolExecutor | None) -> int:
    try:
        files = list(discover(args.paths, config))
    except (ConfigError, UsageError) as error:
        print(f"tritonlint: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.add_suppressions and (args.fix or args.diff):
        print("tritonlint: --add-suppressions cannot be combined with --fix or --diff", file=sys.stderr)
        return EXIT_ERROR
    unused = args.report_unused_suppressions
    if args.fix or args.diff:  # never from the cache: fixing needs the syntax tree
        work = functools.partial(fix_file, config=config, unsafe=args.unsafe_fixes, write=not args.diff,
                                 unused=unused)
        return _report(_map(work, files), args)
    cache = None
    if not args.no_cache:
        cache = Cache.for_config(Path(args.cache_dir) if args.cache_dir else default_cache_dir(config), config)
    reports = check_files(files, config, cache, unused=unused, pool=pool)
    if args.add_suppressions:
        return _add_suppressions(files, reports)
    return _report(reports, args)


def check_files(files: Sequence[SourceFile], config: Config, cache: Cache | None, *,
                unused: bool = False, pool: ProcessPoolExecutor | None = None) -> list[FileReport]:
    """Reports for `files`, in their order: read and pre-filter here, cache hits here, the rest on every core.

    When every file is settled by its bytes or the cache, nothing imports libcst.
    """
    reports: list[FileReport | None] = []
    misses: list[tuple[int, tuple[SourceFile, bytes]]] = []
    for file in files:
        data, settled = first_look(file, unused=unused)
        if settled is None and data is not None and cache is not None:
            settled = cached_report(file, data, cache, config, unused=unused)
        if settled is None:
            assert data is not None
            misses.append((len(reports), (file, data)))
        reports.append(settled)
    work = functools.partial(analyse, config=config, cache=cache, unused=unused)
    analysed = _map(work, [item for _, item in misses], weights=[len(item[1]) for _, item in misses], pool=pool)
    for (position, _), report in zip(misses, analysed):
        reports[position] = report
    return [report for report in reports if report is not None]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _workers(count: int) -> int:
    return min(_cores(), count // FILES_PER_WORKER)


def _early_pool(args: argparse.Namespace, config: Config) -> ProcessPoolExecutor | None:
    """Workers started before the files are read, for runs that will analyse many files.

    Only when a folder is checked and no cache can answer (`--no-cache`, or no cache folder yet):
    a warm run must not pay for processes it does not use.
    """
    if _cores() < 2 or not any(Path(path).is_dir() for path in args.paths):
        return None
    if not args.no_cache and (Path(args.cache_dir) if args.cache_dir else default_cache_dir(config)).exists():
        return None
    try:
        import concurrent.futures
        import multiprocessing
        from concurrent.futures.process import BrokenProcessPool
    except ImportError:
        return None
    try:
        if "fork" not in multiprocessing.get_all_start_methods():
            return None  # spawned workers re-import everything: no head start to gain
        pool = concurrent.futures.ProcessPoolExecutor(
            _cores(), mp_context=multiprocessing.get_context("fork"), initializer=_warm_up)
        pool.submit(int)  # workers start on the first task: start them now
        return pool
    except (OSError, NotImplementedError, ValueError, BrokenProcessPool):
        return None  # `_map` tries again, and says so if it fails


def _warm_up() -> None:
    import tritonlint.engine  # noqa: F401  (libcst and the rules: most of a worker's start-up)


def _map(work: Callable[[Item], FileReport], items: Sequence[Item],
         weights: Sequence[int] | None = None, pool: ProcessPoolExecutor | None = None) -> list[FileReport]:
    """`work` over `items` on every core (analysis is CPU-bound Python), results in the items' order.

    The heaviest items go first so no worker is left with a big file at the end. `pool`, when
    given, is a pool started early, used when there are enough items. When a process pool cannot
    start or breaks (no /dev/shm, a sandbox without fork, a worker killed), what is left is done
    here, one item after another.
    """
    workers = _workers(len(items))
    results: list[FileReport | None] = [None] * len(items)
    if workers >= 2:
        order = sorted(range(len(items)), key=lambda i: -weights[i]) if weights else range(len(items))
        try:
            import concurrent.futures
            from concurrent.futures.process import BrokenProcessPool

            with pool if pool is not None else concurrent.futures.ProcessPoolExecutor(workers) as running:
                futures = {running.submit(work, items[i]): i for i in order}
                for future in concurrent.futures.as_completed(futures):
                    results[futures[future]] = future.result()
        except (OSError, NotImplementedError, ImportError, BrokenProcessPool) as error:
            done = sum(result is not None for result in results)
            print(f"tritonlint: checking in parallel failed ({type(error).__name__}: {error}); "
                  f"checking the other {len(items) - done} file(s) one by one", file=sys.stderr)
    return [result if result is not None else work(item) for result, item in zip(results, items)]


def _add_suppressions(files: Sequence[SourceFile], reports: list[FileReport]) -> int:
    by_display = {file.display: file for file in files}
    added = changed = 0
    failed = False
    for report in reports:
        for line in report.notices + report.errors + report.crashes:
            print(f"tritonlint: {line}", file=sys.stderr)
        failed = failed or bool(report.errors)
        count, error = add_suppressions_file(report, by_display[report.path])
        if error is not None:
            print(f"tritonlint: {error}", file=sys.stderr)
            failed = True
        added += count
        changed += bool(count)
    print(f"tritonlint: added {added} suppression(s) to {changed} file(s)", file=sys.stderr)
    if any(report.crashes for report in reports):
        return EXIT_ERROR
    return EXIT_FINDINGS if failed else EXIT_CLEAN


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
                    summary=not args.quiet and not unchecked, rules=_sarif_rules(args, diagnostics))
    if unchecked and not args.quiet and args.output_format == "text":
        output += f"Found {len(diagnostics)} error(s); {unchecked} file(s) could not be checked.\n"
    if output:
        sys.stdout.write(output if output.endswith("\n") else output + "\n")
    if args.statistics and diagnostics:
        sys.stdout.write(statistics(diagnostics))  # its lines end in newlines already
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


def _sarif_rules(args: argparse.Namespace, diagnostics: Sequence[Diagnostic]) -> list[type[Rule]] | None:
    """SARIF's rule descriptors: every shipped rule, and TL100 when it can be reported."""
    if args.output_format != "sarif" or not args.report_unused_suppressions:
        return None
    from tritonlint.rule import all_rules
    from tritonlint.suppressions import UnusedSuppression

    return [*all_rules(), UnusedSuppression]


def _unified_diff(report: FileReport) -> str:
    import difflib

    before = (report.text or "").splitlines(keepends=True)
    after = (report.fixed_text or "").splitlines(keepends=True)
    return "".join(difflib.unified_diff(before, after, fromfile=f"a/{report.path}", tofile=f"b/{report.path}"))
