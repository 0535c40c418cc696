"""`tritonlint witness`: arguments, the run over every finding, and the three output formats."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tritonlint.witness.analysis import Config

EXIT_CLEAN, EXIT_CONFIRMED, EXIT_ERROR = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    parser.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    parser.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    parser.add_argument("--config", metavar="PYPROJECT", help="use this pyproject.toml instead of the nearest one")
    parser.add_argument("--output-format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="findings run at once (default 1)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                        help="time allowed per finding, from its first run (default 120); the run that "
                        "settles a fix failed at guessed tiles gets as much again")
    parser.add_argument("--emit-repro", metavar="DIR",
                        help="write a standalone script per confirmed finding into DIR")
    parser.add_argument("--fix", action="store_true",
                        help="write the fixes the run validated (safe or unsafe; never display-only), and only those")


def run(args: argparse.Namespace, config: Config) -> int:
    """`tritonlint witness`, with the configuration `check` would use for the same flags."""
    from tritonlint.witness import analysis
    from tritonlint.witness.runner import Witness, witness

    files, errors = analysis.check_paths(args.paths, config)
    for error in errors:
        print(f"tritonlint: {error}", file=sys.stderr)
    work = [(f, d) for f in files for d in f.diagnostics]
    results: dict[int, Witness] = {}

    def one(i: int) -> Witness:
        f, d = work[i]
        return witness(f.path, f.display, f.text, d, f.launches, f.flags, analysis.fixed_text(f.text, d),
                       timeout=args.timeout, flag_tiles=f.flag_tiles)

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for i, w in zip(range(len(work)), pool.map(one, range(len(work)))):
            results[i] = w
    wall = time.monotonic() - started
    if args.emit_repro:
        from tritonlint.witness.repro import emit

        out = Path(args.emit_repro)
        out.mkdir(parents=True, exist_ok=True)
        for i, (f, d) in enumerate(work):
            if results[i].status == "confirmed":
                written = emit(out, f.display, d, results[i])
                if written is not None:
                    print(f"tritonlint: wrote {written}", file=sys.stderr)
    sources = {f.display: f.text for f in files}
    diagnostics = [d for _, d in work]
    by_id = {id(d): results[i] for i, (_, d) in enumerate(work)}
    applied: dict[int, tuple[bool, str]] | None = None
    write_failed = False
    if args.fix:
        applied, write_failed = _write_fixes(files, by_id)
    if args.output_format == "json":
        sys.stdout.write(_json(analysis, diagnostics, sources, by_id, applied))
    elif args.output_format == "sarif":
        sys.stdout.write(_sarif(analysis, diagnostics, sources, by_id))
    else:
        sys.stdout.write(_text(analysis, diagnostics, sources, by_id, applied, wall))
    statuses = [w.status for w in results.values()]
    if write_failed or (errors and not statuses):
        return EXIT_ERROR
    return EXIT_CONFIRMED if "confirmed" in statuses else EXIT_CLEAN


def _write_fixes(files: list[Any], by_id: dict[int, Any]) -> tuple[dict[int, tuple[bool, str]], bool]:
    """`--fix`: per file, write its validated fixes; (id(diagnostic) -> (written, why not), a write failed)."""
    from tritonlint.witness.fixes import write_validated

    out: dict[int, tuple[bool, str]] = {}
    failed = False
    for f in files:
        outcome = write_validated(f, {id(d): by_id[id(d)].validation for d in f.diagnostics})
        if outcome.error:
            failed = True
            print(f"tritonlint: {outcome.error}", file=sys.stderr)
        elif outcome.applied:
            n = len(outcome.applied)
            print(f"tritonlint: {f.display}: wrote {n} validated fix{'es' if n != 1 else ''}", file=sys.stderr)
        for d in outcome.applied:
            out[id(d)] = (True, "")
        for key, why in outcome.not_applied.items():
            out[key] = (False, why)
    return out, failed


def _ordered(diagnostics: list[Any]) -> list[Any]:
    return sorted(diagnostics, key=lambda d: d.sort_key())


def _json(analysis: Any, diagnostics: list[Any], sources: dict[str, str], by_id: dict[int, Any],
          applied: dict[int, tuple[bool, str]] | None = None) -> str:
    """check's JSON list, each diagnostic with `witness` and its fix with `validation`
    (with `--fix`, also `applied` and, for a fix not written, `not_applied_reason`)."""
    ordered = _ordered(diagnostics)
    data = json.loads(analysis.render("json", ordered, sources))
    for item, d in zip(data, ordered):
        w = by_id[id(d)]
        item["witness"] = w.to_dict()
        if item.get("fix") is not None:
            item["fix"]["validation"] = w.validation or {"status": "not-run", "reason": "no launch ran"}
            if applied is not None:
                written, why = applied.get(id(d), (False, "no fix edits"))
                item["fix"]["applied"] = written
                if not written:
                    item["fix"]["not_applied_reason"] = why
    return json.dumps(data, indent=2) + "\n"


def _sarif(analysis: Any, diagnostics: list[Any], sources: dict[str, str], by_id: dict[int, Any]) -> str:
    """check's SARIF log; each result carries the witness (status, reason, launch, evidence) in its properties."""
    ordered = _ordered(diagnostics)
    log = json.loads(analysis.render("sarif", ordered, sources))
    results = log["runs"][0]["results"] if log.get("runs") else []
    for result, d in zip(results, ordered):
        w = by_id[id(d)]
        properties = result.setdefault("properties", {})
        properties["witness"] = w.to_dict()
        if w.validation is not None:
            properties["witness"]["fixValidation"] = w.validation
    return json.dumps(log, indent=2) + "\n"


def _text(analysis: Any, diagnostics: list[Any], sources: dict[str, str], by_id: dict[int, Any],
          applied: dict[int, tuple[bool, str]] | None = None, wall: float = 0.0) -> str:
    lines: list[str] = []
    ordered = _ordered(diagnostics)
    for d in ordered:
        w = by_id[id(d)]
        lines.append(analysis.render("text", [d], sources, summary=False).rstrip("\n"))
        lines.append(f"    witness: {w.status}: {w.reason}")
        if w.validation is not None:
            lines.append(f"    witness: fix {w.validation['status']}: {w.validation['reason']}")
        if applied is not None and id(d) in applied:
            written, why = applied[id(d)]
            lines.append("    witness: fix written" if written else f"    witness: fix not written: {why}")
    counts: dict[str, int] = {}
    for d in ordered:
        counts[by_id[id(d)].status] = counts.get(by_id[id(d)].status, 0) + 1
    if ordered:
        shown = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        # What a run costs is part of the answer: the budget is per finding, and --jobs
        # makes the wall time differ from the sum.
        median = statistics.median(by_id[id(d)].seconds for d in ordered)
        lines.append(f"Witnessed {len(ordered)} finding{'s' if len(ordered) != 1 else ''}: {shown} "
                     f"(median {median:.1f} s per finding, {wall:.1f} s in all).")
    else:
        lines.append("All checks passed!")
    return "\n".join(lines) + "\n"
