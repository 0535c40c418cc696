"""Command line: argument parsing and exit codes only; the work is in runner and engine."""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tritonlint import __version__
from tritonlint.cache import Cache, default_cache_dir
from tritonlint.config import Config, ConfigError, check_selectors, find_pyproject, load_config
from tritonlint.notebook import NotebookError
from tritonlint.report import FileReport
from tritonlint.reporting import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    out,
    out_bytes,
    print_problems,
    report_results,
    silence_stdout,
)
from tritonlint.runner import (
    SourceFile,
    add_suppressions_file,
    analyse,
    cached_report,
    discover,
    encode_source,
    first_look,
    fix_file,
    force_excluded,
    is_folder,
    write_checked,
)

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from tritonlint.rule import Rule

# Kept in step with tritonlint.output.FORMATS (a test checks); importing the output package here
# would cost every run its imports.
FORMATS = ("text", "concise", "full", "json", "sarif", "github")
# Fewer files than this per worker, and a process pool costs more than it saves.
FILES_PER_WORKER = 16

Item = TypeVar("Item")


def build_parser(verify_arguments: bool = True, witness_arguments: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tritonlint", description="Static checker for Triton GPU kernels.")
    parser.add_argument("--version", action="version", version=f"tritonlint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="check files and folders for unmasked tail-tile accesses")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument("--output-format", choices=list(FORMATS), default="text")
    check.add_argument("--fix", action="store_true", help="apply safe fixes, then report what remains")
    check.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes marked unsafe")
    check.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    check.add_argument("--explain", metavar="PATH:LINE",
                       help="print the analysis's reasons for every access on that line, reported or not")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    check.add_argument("--statistics", action="store_true",
                       help="print only the number of findings per rule (JSON with --output-format json)")
    check.add_argument("--output-file", "-o", metavar="PATH",
                       help="write the findings to this file instead of stdout (no colour)")
    gitignore = check.add_mutually_exclusive_group()
    gitignore.add_argument("--respect-gitignore", action="store_true", default=None,
                           help="skip what .gitignore files and .git/info/exclude ignore (the default)")
    gitignore.add_argument("--no-respect-gitignore", action="store_false", dest="respect_gitignore",
                           help="walk into what .gitignore files ignore")
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
    check.add_argument("--extend-select", help="comma-separated codes or prefixes to enable besides the selected")
    check.add_argument("--extend-per-file-ignores", action="append", metavar="PATTERN:CODES",
                       help="ignore CODES (comma-separated) in files matching the glob PATTERN; repeatable")
    check.add_argument("--exclude", help="comma-separated glob patterns to exclude, replacing the configured ones")
    check.add_argument("--extend-exclude", help="comma-separated glob patterns to exclude besides the configured")
    check.add_argument("--force-exclude", action="store_true",
                       help="skip files named explicitly (and --stdin-filename) that discovery would skip")
    check.add_argument("--no-frontend-check", action="store_true",
                       help="with --fix, write fixes without first lowering each fixed kernel with Triton's "
                            "frontend (in a child process, when triton is installed)")
    check.add_argument("--no-unsafe-fixes", action="store_true",
                       help="do not apply unsafe fixes even when the configuration says unsafe-fixes = true")
    check.add_argument("--exit-non-zero-on-fix", action="store_true",
                       help="exit 1 when any fix was applied, even if no finding remains")
    check.add_argument("--show-fixes", action="store_true", help="list the fixes applied, per file and rule")
    check.add_argument("--stdin-filename", metavar="PATH",
                       help="read the file from stdin under this name (for output, configuration, excludes)")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour the text output (auto: on a terminal or with FORCE_COLOR, unless NO_COLOR "
                            "is set)")

    verify = commands.add_parser("verify", help="run original and fixed kernels under a harness and compare")
    if verify_arguments:  # the verifier's imports are paid only when it runs
        from tritonlint.verify.cli import add_arguments as add_verify_arguments

        add_verify_arguments(verify)

    witness = commands.add_parser("witness", help="run each finding on a synthesized launch and validate its fix")
    # The options of `check` that `witness` does not take read as not given when the configuration is built.
    witness.set_defaults(stdin_filename=None, extend_select=None, extend_per_file_ignores=None, exclude=None,
                         extend_exclude=None, respect_gitignore=None)
    if witness_arguments:  # `check` never imports the witness
        from tritonlint.witness.cli import add_arguments as add_witness_arguments

        add_witness_arguments(witness)

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
    except BrokenPipeError:  # output was cut short (`| head`): like ruff, stop quietly
        silence_stdout()
        return EXIT_FINDINGS
    except Exception as error:  # noqa: BLE001  (the last line of defence: report, exit 2)
        import traceback

        where = traceback.extract_tb(error.__traceback__)[-1]
        print(f"tritonlint: internal error: {type(error).__name__}: {str(error)[:300]} "
              f"[{Path(where.filename).name}:{where.lineno}]", file=sys.stderr)
        return EXIT_ERROR


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(verify_arguments="verify" in argv, witness_arguments="witness" in argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors, 0 on --help
        return int(exit_.code or 0)
    if args.command == "rules":
        for rule in _documented_rules():  # TL001 and TL100 too: they are reported and documented
            out(f"{rule.code}  {rule.name:<24} {'fixable' if rule.fixable else '       '}  {rule.summary}\n")
        return EXIT_CLEAN
    if args.command == "rule":
        return _print_rule(args.code)
    if args.command == "server":
        # pygls is the `lsp` extra: `check` never needs it. Asked before `initialize` is answered
        # (without pygls loaded, see server_front.py), imported after.
        if any(importlib.util.find_spec(name) is None for name in ("pygls", "lsprotocol")):
            print("tritonlint: `tritonlint server` needs pygls: install tritonlint[lsp]", file=sys.stderr)
            return EXIT_ERROR
        from tritonlint.server_front import answer_first

        stdin, stdout = answer_first(sys.stdin.buffer, sys.stdout.buffer)
        try:
            from tritonlint.server import serve
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
                raise
            print("tritonlint: `tritonlint server` needs pygls: install tritonlint[lsp]", file=sys.stderr)
            return EXIT_ERROR
        return serve(stdin, stdout)
    if args.command == "verify":
        missing = [name for name in ("triton", "torch") if importlib.util.find_spec(name) is None]
        if missing:  # before anything runs: without them every harness run would only fail
            print(f"tritonlint verify: needs {' and '.join(missing)}, which cannot be imported here; "
                  f"install tritonlint[verify]", file=sys.stderr)
            return EXIT_ERROR
        from tritonlint.verify.cli import run as run_verify

        return run_verify(args)
    if args.command == "witness":
        from tritonlint.witness.cli import run as run_witness

        try:
            config = config_from_args(args)
        except ConfigError as error:
            print(f"tritonlint: {error}", file=sys.stderr)
            return EXIT_ERROR
        return run_witness(args, config)
    return _check(args)


def _documented_rules() -> tuple[type[Rule], ...]:
    from tritonlint.rule import all_rules
    from tritonlint.suppressions import UnusedSuppression
    from tritonlint.unchecked import FileNotChecked

    return (*all_rules(), UnusedSuppression, FileNotChecked)


def _print_rule(code: str) -> int:
    for rule in _documented_rules():
        if code.upper() in (rule.code, rule.name.upper()):
            out(f"# {rule.code} {rule.name}\n\n")
            for section, body in rule.doc_sections().items():
                out(f"## {section}\n{body}\n\n")
            return EXIT_CLEAN
    print(f"tritonlint: unknown rule {code!r} (see `tritonlint rules`)", file=sys.stderr)
    return EXIT_ERROR


def config_from_args(args: argparse.Namespace) -> Config:
    """The configuration a run uses: the nearest (or named) pyproject.toml, then the command line."""
    from dataclasses import replace

    start = Path(args.stdin_filename) if _stdin(args) and args.stdin_filename else Path(args.paths[0])
    pyproject = Path(args.config) if args.config else find_pyproject(start.parent if _stdin(args) else start)
    if args.config and pyproject is not None and not pyproject.is_file():
        raise ConfigError(f"{args.config}: no such configuration file")
    config = load_config(pyproject)
    select = check_selectors(_split(args.select), "--select") if args.select else config.select
    if args.extend_select:
        select = (select if select is not None else frozenset({"TL"})) | check_selectors(
            _split(args.extend_select), "--extend-select")
    ignore = config.ignore | check_selectors(_split(args.ignore), "--ignore") if args.ignore else config.ignore
    per_file = list(config.per_file_ignores)
    for pair in args.extend_per_file_ignores or ():
        pattern, colon, codes = pair.rpartition(":")
        if not colon or not pattern:
            raise ConfigError(f"--extend-per-file-ignores {pair!r}: expected PATTERN:CODES")
        per_file.append((pattern, check_selectors(_split(codes), f"--extend-per-file-ignores {pattern!r}")))
    return replace(
        config, select=select, ignore=ignore, per_file_ignores=tuple(per_file),
        respect_gitignore=config.respect_gitignore if args.respect_gitignore is None else args.respect_gitignore,
        exclude=tuple(_patterns(args.exclude)) if args.exclude is not None else config.exclude,
        extend_exclude=config.extend_exclude + tuple(_patterns(args.extend_exclude or "")),
    )


def _stdin(args: argparse.Namespace) -> bool:
    """Whether the file comes from stdin: path `-`, or a `--stdin-filename` (as ruff reads it)."""
    return list(args.paths) == ["-"] or args.stdin_filename is not None


def _patterns(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _split(text: str) -> list[str]:
    return [part.strip().upper() for part in text.split(",") if part.strip()]


def _check(args: argparse.Namespace) -> int:
    try:
        config = config_from_args(args)
    except ConfigError as error:
        print(f"tritonlint: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.explain:
        return _explain(args.explain, config)
    # TL100 is off by default, like ruff's RUF100: selecting it (by code, `TL10`, or `ALL`) turns it on.
    args.report_unused_suppressions = args.report_unused_suppressions or config.enabled("TL100", default=False)
    args.unsafe_fixes = args.unsafe_fixes or (config.unsafe_fixes and not args.no_unsafe_fixes)
    # A cold run over folders: start the workers now, so they import the analysis (libcst) while
    # this process walks the folders and reads the files.
    pool = _early_pool(args, config) if not (args.fix or args.diff or args.add_suppressions) else None
    try:
        return _check_with(args, config, pool)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _explain(where: str, config: Config) -> int:
    """`--explain PATH:LINE`: exit 0 when nothing is reported on that line, 1 when something is."""
    from tritonlint.explain import ExplainError, explain

    path, _, line = where.rpartition(":")
    if not path or not line.isdigit():
        print(f"tritonlint: --explain takes PATH:LINE, not {where!r}", file=sys.stderr)
        return EXIT_ERROR
    try:
        lines, reported = explain(path, int(line), config)
    except ExplainError as error:
        print(f"tritonlint: {error}", file=sys.stderr)
        return EXIT_ERROR
    print("\n".join(lines))
    return EXIT_FINDINGS if reported else EXIT_CLEAN


def _check_with(args: argparse.Namespace, config: Config, pool: ProcessPoolExecutor | None) -> int:
    if args.add_suppressions and (args.fix or args.diff):
        print("tritonlint: --add-suppressions cannot be combined with --fix or --diff", file=sys.stderr)
        return EXIT_ERROR
    if _stdin(args):
        return _check_stdin(args, config)
    files = list(discover(args.paths, config, force_exclude=args.force_exclude))
    if not files:
        print("tritonlint: warning: no Python files found under the given path(s)", file=sys.stderr)
    unused = args.report_unused_suppressions
    if args.fix or args.diff:  # never from the cache: fixing needs the syntax tree
        # With --fix the files are written after one frontend check of every fixed kernel.
        checked = args.fix and not args.diff and not args.no_frontend_check
        work = functools.partial(fix_file, config=config, unsafe=args.unsafe_fixes,
                                 write=not args.diff and not checked, unused=unused)
        if checked:
            return report_results(write_checked(list(_map(work, files)), files, config, unused=unused),
                                  args, config, files)
        return report_results(_map(work, files), args, config, files)
    cache = None
    if not args.no_cache:
        cache = Cache.for_config(Path(args.cache_dir) if args.cache_dir else default_cache_dir(config), config)
    reports = check_files(files, config, cache, unused=unused, pool=pool)
    if args.add_suppressions:
        return _add_suppressions(files, reports, config)
    return report_results(reports, args, config, files)


def _check_stdin(args: argparse.Namespace, config: Config) -> int:
    """`check -`: the buffer on stdin, named by --stdin-filename; with --fix, the fixed text to stdout
    and the findings that remain to stderr (like ruff)."""
    name = args.stdin_filename or "-"
    for path in args.paths:
        if path not in ("-", "."):
            print(f"tritonlint: warning: ignoring {path} in favour of standard input", file=sys.stderr)
    data = sys.stdin.buffer.read()
    if args.stdin_filename and args.force_exclude and force_excluded(Path(name), config):
        if args.fix:
            sys.stdout.buffer.write(data)
        return EXIT_CLEAN
    file = SourceFile(name, Path(name), explicit=True, data=data)
    if args.add_suppressions:
        print("tritonlint: --add-suppressions cannot read from stdin", file=sys.stderr)
        return EXIT_ERROR
    if args.fix or args.diff:
        report = fix_file(file, config, unsafe=args.unsafe_fixes, write=False,
                          unused=args.report_unused_suppressions)
        if args.fix and not args.diff:
            try:
                fixed = data if report.fixed_text is None else encode_source(file.path, report.fixed_text, data)
            except NotebookError as error:
                print(f"tritonlint: {name}: {error}; fix not written", file=sys.stderr)
                fixed = data
            out_bytes(fixed)
            with contextlib.redirect_stdout(sys.stderr):
                return report_results([report], args, config, [file])
        return report_results([report], args, config, [file])
    cache = None if args.no_cache else Cache.for_config(
        Path(args.cache_dir) if args.cache_dir else default_cache_dir(config), config)
    return report_results(check_files([file], config, cache, unused=args.report_unused_suppressions), args, config, [file])


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
    work = functools.partial(_uncollected, functools.partial(analyse, config=config, cache=cache, unused=unused))
    collecting = gc.isenabled()
    try:
        analysed = _map(work, [item for _, item in misses], weights=[len(item[1]) for _, item in misses], pool=pool)
    finally:
        if collecting:
            gc.enable()
    for (position, _), report in zip(misses, analysed):
        reports[position] = report
    return [report for report in reports if report is not None]


def _uncollected(work: Callable[[Item], FileReport], item: Item) -> FileReport:
    """`work`, then the cyclic garbage collector off in this process for the files after it: in a
    worker (which only checks files) for good, here until `check_files` returns. Each check pauses
    it anyway (`engine.collector_paused`) and leaves no cycles; waking it between files only had it
    walk the trees the last file's check left alive (a tenth of a package's check) and free nothing.
    The first file runs as before, with what it imports collected as usual: a single huge file
    checked with the collector off from the start took longer (measured, cause not found)."""
    report = work(item)
    gc.disable()
    return report


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
    if _cores() < 2 or not any(is_folder(Path(path)) for path in args.paths):
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
    import gc

    import tritonlint.engine  # noqa: F401  (libcst and the rules: most of a worker's start-up)

    # What is imported lives as long as the worker: out of the collector's passes, which otherwise
    # walk every module, class and function of libcst and the rules in each full pass.
    gc.freeze()


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
    if workers < 2 and pool is not None:
        # Too few files for the early workers: let them go now (their manager thread with them), so
        # that this process may fork for a huge file (`engine`, `forked.py`: only with no other thread).
        pool.shutdown()
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


def _add_suppressions(files: Sequence[SourceFile], reports: list[FileReport], config: Config) -> int:
    by_display = {file.display: file for file in files}
    added = changed = 0
    failed = False
    for report in reports:
        print_problems(report)
        failed = failed or bool(report.errors)
        count, error = add_suppressions_file(report, by_display[report.path], config.line_length)
        if error is not None:
            print(f"tritonlint: {error}", file=sys.stderr)
            failed = True
        added += count
        changed += bool(count)
    print(f"tritonlint: added {added} suppression(s) to {changed} file(s)", file=sys.stderr)
    if any(report.crashes for report in reports):
        return EXIT_ERROR
    return EXIT_FINDINGS if failed else EXIT_CLEAN


