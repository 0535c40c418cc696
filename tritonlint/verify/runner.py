"""`tritonlint verify`: fix a copy, run a harness on both trees under poisoned fills, and judge each fix."""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tritonlint.verify import compiled
from tritonlint.verify.judge import Judgement, judge
from tritonlint.verify.records import (
    DEFAULT_FILLS,
    Fix,
    HarnessError,
    Report,
    RunResult,
    Verdict,
    VerifyError,
    hex_fill,
)
from tritonlint.verify.report import format_text
from tritonlint.verify.runs import child_env, run_child, run_forked, tail
from tritonlint.verify.sanitizer import (
    find_compute_sanitizer,
    memcheck_command,
    merge_overreads,
    parse_sanitizer,
    relative_to,
    sanitizer_site,
)
from tritonlint.verify.trees import (
    Fixer,
    LineMaps,
    cli_fixer,
    copy_tree,
    defining_file,
    diff_trees,
    keep_only,
    line_maps,
    without_fix,
)

__all__ = ["DEFAULT_FILLS", "Fix", "HarnessError", "Options", "Report", "RunResult", "Verdict", "Verifier",
           "VerifyError", "cli_fixer", "find_compute_sanitizer", "format_text", "keep_only", "verify"]


@dataclass
class Options:
    device: str = "cpu"
    fills: Sequence[int] = DEFAULT_FILLS
    timeout: float = 300.0
    jobs: int = 0  # 0: one per run on the CPU, 1 on a GPU
    rtol: float = 0.0
    atol: float = 0.0
    ref_tol: float = 0.01
    sanitizer: bool = False
    compile: bool = True
    full_compile: bool = False
    keep: bool = False
    # cuda: fill bytes on each side of every allocation; under memcheck, the guard region
    # compute-sanitizer leaves after each one.
    pad_bytes: int = 256 << 10
    # "FILE:LINE" selections: only the fixes at these lines are kept in the fixed tree (the others
    # are reverted), so one fix can be proved where the fixer also changes paths a harness never takes.
    only: Sequence[str] = ()
    strict: bool = False  # a fix no run reached fails the run
    # Each fix run on its own too (the fixed tree with only it reverted); None: on a GPU with several.
    per_fix: bool | None = None
    # Fork CPU runs from a server with torch/triton preloaded (much faster); off = fresh exec.
    forkserver: bool = os.environ.get("TRITONLINT_VERIFY_FORKSERVER", "1") != "0"


def _progress(message: str) -> None:
    # One write per line: harness runs report from several threads, and print() writes the text and
    # its newline separately, so two lines could run together.
    sys.stderr.write(f"[verify] {message}\n")
    sys.stderr.flush()


class Verifier:
    def __init__(self, path: str | Path, harness: str | Path | None, root: str | Path | None = None,
                 options: Options | None = None, fixer: Fixer | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.path = Path(path).resolve()
        # None: the launch comes from the witness (a harness generated from its confirmed launches).
        self.harness: Path | None = Path(harness).resolve() if harness is not None else None
        self.witnessed: list[dict[str, Any]] = []
        # A package (a folder with __init__.py, or the folder holding a file of one) is copied
        # under its own name, so a harness that imports it by name imports the copy; anything
        # else is copied as the import root itself.
        self.package: str | None = None
        if root:
            self.root = Path(root).resolve()
        else:
            folder = self.path if self.path.is_dir() else self.path.parent
            self.root = folder
            if (folder / "__init__.py").is_file():
                self.package = folder.name
        self.opts = options or Options()
        self.fixer = fixer or cli_fixer
        self.progress = progress or _progress
        self.tmp: Path | None = None

    def _validate(self) -> None:
        if not self.path.exists():
            raise VerifyError(f"{self.path}: no such file or directory")
        if self.harness is not None and not self.harness.is_file():
            raise VerifyError(f"{self.harness}: harness not found")
        if not self.root.is_dir():
            raise VerifyError(f"{self.root}: --root is not a directory")
        try:
            self.path.relative_to(self.root)
        except ValueError:
            raise VerifyError(f"{self.path} is not inside --root {self.root}") from None
        if self.opts.device not in ("cpu", "cuda"):
            raise VerifyError(f"unknown device {self.opts.device!r}")
        if not self.opts.fills:
            raise VerifyError("no fill values")

    def run(self) -> Report:
        self._validate()
        self.tmp = Path(tempfile.mkdtemp(prefix="tritonlint-verify-"))
        try:
            if self.harness is None:
                self.harness = self._witness_harness()
            return self._run()
        finally:
            if not self.opts.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
            else:
                self.progress(f"kept temporary trees in {self.tmp}")

    def _witness_harness(self) -> Path:
        """A harness of the witness's confirmed launches for PATH's findings (no --harness given)."""
        from tritonlint.witness.harness import plan

        assert self.tmp is not None
        self.progress(f"no --harness: synthesizing launches for the findings of {self.path} (witness)")
        made = plan(self.path, self.root, self.package, self.tmp / "witness",
                    timeout=min(self.opts.timeout, 120.0), progress=self.progress)
        self.witnessed = [p.to_dict() for p in made.findings]
        if made.harness is None:
            shown = "; ".join(f"{p.where} {p.code}: {p.status}: {p.reason}" for p in made.findings)
            raise VerifyError(f"no --harness given and the witness built no launch for a fixable finding of "
                              f"{self.path} ({shown or 'no fixable finding'}); write a harness and pass --harness")
        self.progress(f"witness harness: {len(made.launched)} launch(es), {made.harness}")
        return made.harness

    def _in_copy(self, p: Path) -> Path:
        """Where `p` (inside the root) lies in a copy, relative to the copy's import root."""
        rel = p.relative_to(self.root)
        return Path(self.package) / rel if self.package else rel

    def _selections(self, only: Sequence[str]) -> dict[str, set[int]]:
        """`--only FILE:LINE` values as {path in the copy: lines}; FILE is a path to the original."""
        selected: dict[str, set[int]] = {}
        for item in only:
            file, _, line = item.rpartition(":")
            if not file or not line.isdigit():
                raise VerifyError(f"--only {item!r}: expected FILE:LINE")
            try:
                rel = self._in_copy(Path(file).resolve())
            except ValueError:
                raise VerifyError(f"--only {item}: {file} is not inside {self.root}") from None
            selected.setdefault(str(rel), set()).add(int(line))
        return selected

    def _harness_in(self, tree: Path) -> Path:
        assert self.harness is not None
        try:
            return tree / self._in_copy(self.harness)
        except ValueError:
            return self.harness

    def _run(self) -> Report:
        assert self.tmp is not None
        opts = self.opts
        rel_path = self._in_copy(self.path)
        shown = str(self.harness) if not self.witnessed else f"synthesized by the witness ({self.harness})"
        report = Report(str(self.path), shown, str(self.root), opts.device, list(opts.fills))
        report.witness = self.witnessed
        trees = {"original": self.tmp / "original", "fixed": self.tmp / "fixed"}
        self.progress(f"copying {self.root} twice into {self.tmp}")
        for t in trees.values():
            copy_tree(self.root, t / self.package if self.package else t)
        self.progress(f"fixing {rel_path} in the copy")
        self.fixer(trees["fixed"], trees["fixed"] / rel_path)
        if opts.only:
            kept = keep_only(trees["original"], trees["fixed"], self._selections(opts.only))
            self.progress(f"kept the fixes at {', '.join(kept)}; reverted the others (--only)")
        fixes, opcodes = diff_trees(trees["original"], trees["fixed"])
        report.fixes = fixes
        self.progress(f"{len(fixes)} fix(es) in {len(opcodes)} file(s)")

        zero = 0 if 0 in opts.fills else opts.fills[0]
        runs = self._poisoned([(name, trees[name], fill, None, name == "original" and fill == zero)
                               for name in ("original", "fixed") for fill in opts.fills])
        self._harness_failed(runs, trees)
        tool = self._sanitizer_tool()
        if tool is not None:
            for name in ("original", "fixed"):
                runs.append(self._one_run(name, trees[name], None, sanitizer=tool))
        per_fix_maps: dict[str, LineMaps] = {}
        if self._per_fix(fixes):
            runs += self._per_fix_runs(trees, fixes, tool, per_fix_maps)
        report.runs = runs
        if opts.compile:
            report.compile = self._compile(trees, runs, fixes)
        judge(report, Judgement(trees, opcodes, zero, opts.device, opts.rtol, opts.atol, opts.ref_tol,
                                opts.strict, per_fix_maps))
        return report

    def _poisoned(self, jobs: list[tuple[str, Path, int, str | None, bool]]) -> list[RunResult]:
        """Poisoned runs (name, tree, fill, fix left out, reference?), in parallel on the CPU."""
        runs: list[RunResult] = []
        n_jobs = self.opts.jobs or (len(jobs) if self.opts.device == "cpu" else 1)
        n_jobs = max(1, min(n_jobs, len(jobs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(n_jobs) as pool:
            futs = [pool.submit(self._one_run, name, tree, fill, reference=ref, without=without)
                    for name, tree, fill, without, ref in jobs]
            try:
                for fut in futs:
                    runs.append(fut.result())
            except BaseException:
                for f in futs:
                    f.cancel()
                raise
        return runs

    def _sanitizer_tool(self) -> str | None:
        if not (self.opts.sanitizer and self.opts.device == "cuda"):
            return None
        tool = find_compute_sanitizer()
        if tool is None:
            self.progress("compute-sanitizer not found; skipping memcheck runs")
        return tool

    def _per_fix(self, fixes: list[Fix]) -> bool:
        """Whether each fix gets runs of its own: asked for, or by default on a GPU with several
        fixes, where memcheck stops at the first faulting kernel and the fill shows through the
        outputs of all the fixes' accesses together."""
        if len(fixes) < 2:
            return False
        return self.opts.per_fix if self.opts.per_fix is not None else self.opts.device == "cuda"

    def _per_fix_runs(self, trees: dict[str, Path], fixes: list[Fix], tool: str | None,
                      maps: dict[str, LineMaps]) -> list[RunResult]:
        """For each fix, the fixed tree with that fix alone reverted, run at every fill (and under
        memcheck): whatever goes out of bounds there is that fix's, and no other fault comes first."""
        assert self.tmp is not None
        jobs: list[tuple[str, Path, int, str | None, bool]] = []
        for i, f in enumerate(fixes):
            tree = self.tmp / f"without-{i}"
            copy_tree(trees["fixed"], tree)
            without_fix(trees["original"], trees["fixed"], tree, fixes, f)
            maps[f.where] = line_maps(trees["original"], tree)
            jobs += [(f"without-{i}", tree, fill, f.where, False) for fill in self.opts.fills]
        self.progress(f"running each of the {len(fixes)} fixes with the others applied")
        runs = self._poisoned(jobs)
        if tool is not None:
            runs += [self._one_run(f"without-{i}", self.tmp / f"without-{i}", None, sanitizer=tool,
                                   without=f.where) for i, f in enumerate(fixes)]
        return runs

    def _harness_failed(self, runs: list[RunResult], trees: dict[str, Path]) -> None:
        """Raise HarnessError when every poisoned run crashed, the same way on both trees.

        The same last line on both sides (an import error, a contract mistake, a missing GPU)
        says nothing about the fix; a crash on one tree only, or a different one, is a verdict.
        """
        if not runs or any(r.status != "crashed" for r in runs):
            return

        def last(r: RunResult) -> str:
            lines = (r.error or "").strip().splitlines()
            text = lines[-1] if lines else ""
            for t in trees.values():
                text = text.replace(str(t), "<tree>")
            return text

        if {last(r) for r in runs if r.tree == "original"} != {last(r) for r in runs if r.tree == "fixed"}:
            return
        first: dict[str, RunResult] = {}
        for r in runs:
            first.setdefault(r.tree, r)
        shown = []
        for r in first.values():
            tail = "\n".join((r.error or "(no output)").rstrip().splitlines()[-12:])
            if tail not in shown:
                shown.append(tail)
        where = (f"every run's log is kept under {self.tmp}/runs/*/log.txt" if self.opts.keep
                 else "--keep keeps every run's log")
        statuses = ", ".join(sorted({r.status for r in runs}))
        raise HarnessError(
            f"the harness failed on both trees ({len(runs)} runs, {statuses}); this is a harness "
            f"error, not a verdict on the fix. Its last lines ({first['original'].tree}, fill "
            f"{hex_fill(first['original'].fill)}):\n" + "\n".join(
                "    " + ln for ln in "\n    ---\n".join(shown).splitlines()) + f"\n({where})")

    def _one_run(self, name: str, tree: Path, fill: int | None, reference: bool = False,
                 sanitizer: str | None = None, without: str | None = None) -> RunResult:
        assert self.tmp is not None
        label = f"{name} fill={hex_fill(fill)}" if fill is not None else f"{name} memcheck"
        out = self.tmp / "runs" / f"{name}-{'memcheck' if fill is None else fill}"
        out.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "tritonlint.verify.child", "run", "--tree", str(tree),
               "--harness", str(self._harness_in(tree)), "--device", self.opts.device,
               "--fill", str(fill or 0), "--out", str(out)]
        if reference:
            cmd.append("--reference")
        if sanitizer:
            cmd = memcheck_command(sanitizer, self.opts.pad_bytes) + cmd + ["--no-poison"]
        elif self.opts.device == "cuda":
            cmd += ["--pad-bytes", str(self.opts.pad_bytes)]
        self.progress(f"running harness: {label}")
        log = out / "log.txt"
        env = child_env(self.opts.device, bool(sanitizer))
        if self.opts.device == "cpu" and self.opts.forkserver and not sanitizer:
            status, rc = run_forked(cmd[3:], tree, env, self.opts.timeout, log)
        else:
            status, rc = run_child(cmd, tree, env, self.opts.timeout, log)
        res = RunResult(name if without is None else "per-fix", fill, log=str(log), without_fix=without)
        rep_path = out / "report.json"
        rep = json.loads(rep_path.read_text()) if rep_path.exists() else None
        if status == "timeout":
            res.status = "timeout"
            res.error = f"harness did not finish within {self.opts.timeout:g} s\n{tail(log, 2000)}"
        elif rep is None:
            res.status = "crashed"
            res.error = f"child exited with {rc} and no report\n{tail(log)}"
        else:
            res.status = "ok" if rep["status"] == "ok" else "crashed"
            res.error = rep.get("error")
            res.elapsed = rep.get("elapsed", 0.0)
        if rep is not None:
            for d in rep.get("launches", []):
                if d.get("generated"):
                    d["generated"]["file"] = defining_file(tree, d["kernel"])
            res.launches = [self._launch_summary(tree, d) for d in rep.get("launches", [])]
            res.specs = rep.get("specs", [])
            res.violations = []
            for v in rep.get("violations", []):
                v = self._rel(tree, v, "path")
                v = self._rel(tree, v, "kernel_path")
                v["stack"] = [[relative_to(tree, s[0]), s[1], s[2]] for s in v.get("stack", [])]
                res.violations.append(v)
        if res.status == "ok" and (out / "outputs.pt").exists():
            import torch

            res.outputs = torch.load(out / "outputs.pt")
            if (out / "reference.pt").exists():
                res.reference = torch.load(out / "reference.pt")
        if rep is not None and rep.get("allocator"):
            res.allocator = rep["allocator"]
            for a in res.allocator.get("written_past", []):
                a["site"] = self._relp_site(tree, a.get("site", "?"))
        if sanitizer:
            count, sites = parse_sanitizer(tail(log, 1 << 22))
            res.sanitizer_errors = count
            tensors = (rep or {}).get("tensors", [])
            launches = (rep or {}).get("launches", [])
            for s in merge_overreads(sites):
                res.violations.append(sanitizer_site(tree, s, tensors, launches))
        extra = f", {len(res.violations)} out-of-bounds site(s)" if res.violations else ""
        self.progress(f"  {label}: {res.status} ({res.elapsed:.1f}s{extra})")
        return res

    def _launch_summary(self, tree: Path, d: dict[str, Any]) -> dict[str, Any]:
        """A launch for the report: paths relative to the tree, a generated kernel at its text's file."""
        out = {k: v for k, v in d.items() if k != "generated"}
        gen = d.get("generated")
        if gen and gen.get("file"):
            out["generated_in"] = relative_to(tree, d["path"])
            out["path"] = gen["file"]
        return self._rel(tree, out, "path")

    def _relp_site(self, tree: Path, site: str) -> str:
        """"/tmp/.../original/pkg/f.py:12 in fn" with the path relative to the tree."""
        path, sep, rest = site.partition(":")
        return relative_to(tree, path) + sep + rest if sep else site

    @staticmethod
    def _rel(tree: Path, d: dict[str, Any], key: str) -> dict[str, Any]:
        d = dict(d)
        if d.get(key):
            d[key] = relative_to(tree, d[key])
        return d

    def _compile(self, trees: dict[str, Path], runs: list[RunResult], fixes: list[Fix]) -> list[dict[str, Any]]:
        """Compile the launched specializations of every kernel in a fixed file, both trees."""
        assert self.tmp is not None
        specs = compiled.launched_specs(trees, runs, fixes)
        if not specs:
            return []
        self.progress(f"compiling {len(specs)} launched specialization(s) for sm_90")
        results: dict[str, list[dict[str, Any]]] = {}
        for name in ("original", "fixed"):
            tree = trees[name]
            out = self.tmp / f"compile-{name}"
            out.mkdir(parents=True, exist_ok=True)
            spec_file = out / "specs.json"
            spec_file.write_text(json.dumps(specs))
            cmd = [sys.executable, "-m", "tritonlint.verify.child", "compile", "--tree", str(tree),
                   "--specs", str(spec_file), "--out", str(out)]
            if self.opts.full_compile:
                cmd.append("--full")
            env = child_env("cuda")  # no TRITON_INTERPRET: these must be real JITFunctions
            # A fresh exec: the forkserver's triton is in interpreter mode, this must not be.
            status, rc = run_child(cmd, tree, env, self.opts.timeout, out / "log.txt")
            if (out / "compile.json").exists():
                results[name] = json.loads((out / "compile.json").read_text())
            else:
                results[name] = [{"error": f"compile child {status} (exit {rc}): {tail(out / 'log.txt', 1500)}"}
                                 for _ in specs]
        return compiled.summarize(specs, results, fixes, trees)


def verify(path: str | Path, harness: str | Path | None, root: str | Path | None = None,
           fixer: Fixer | None = None, progress: Callable[[str], None] | None = None,
           **options: Any) -> Report:
    """Run the whole differential verification; see Options for keyword arguments."""
    return Verifier(path, harness, root, Options(**options), fixer, progress).run()
