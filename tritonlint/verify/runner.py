"""Differential, poisoned runs of a harness against the original and the fixed tree, and verdicts."""

from __future__ import annotations

import ast
import concurrent.futures
import difflib
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_FILLS = (0x00, 0xFE, 0xFF)
_IGNORE = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache",
                                 ".ruff_cache", ".tox", ".venv")
_ACCESS_TOKENS = ("load(", "store(", "atomic_")
# The package root to put on the child's path, so `-m tritonlint.verify.child` resolves to us.
_PKG_PARENT = str(Path(__file__).resolve().parents[2])


class VerifyError(Exception):
    """A problem with the inputs or the fixer, as opposed to a verdict (exit code 2)."""


class HarnessError(VerifyError):
    """The harness failed on both trees: nothing about the fix can be concluded (exit code 2)."""


Fixer = Callable[[Path, Path], None]  # (copy of root, path inside it to fix)


@dataclass
class RunResult:
    tree: str  # "original" or "fixed"
    fill: int | None  # None for a compute-sanitizer run
    status: str = "ok"  # ok, crashed, timeout
    error: str | None = None
    elapsed: float = 0.0
    violations: list[dict[str, Any]] = field(default_factory=list)  # paths relative to the tree
    launches: list[dict[str, Any]] = field(default_factory=list)
    specs: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] | None = None
    reference: dict[str, Any] | None = None
    sanitizer_errors: int | None = None
    log: str = ""  # the run's own stdout/stderr (kept with --keep)
    allocator: dict[str, Any] | None = None  # padded-allocator summary of a poisoned GPU run

    def summary(self) -> dict[str, Any]:
        return {"tree": self.tree, "fill": _hex(self.fill), "status": self.status,
                "error": self.error, "elapsed": round(self.elapsed, 3),
                "violations": self.violations, "launches": self.launches,
                "outputs": _describe_outputs(self.outputs),
                "sanitizer_errors": self.sanitizer_errors, "log": self.log,
                "allocator": self.allocator}


@dataclass
class Fix:
    """A changed region of a file, found by diffing the original and fixed trees."""

    path: str  # relative to root
    orig_lines: tuple[int, int]  # 1-based inclusive range in the original (start > end: insertion)
    fixed_lines: tuple[int, int]
    diff: str
    verdict: str = "not-exercised"
    reason: str = ""
    sites: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.orig_lines[0], "orig_lines": list(self.orig_lines),
                "fixed_lines": list(self.fixed_lines), "verdict": self.verdict,
                "reason": self.reason, "sites": self.sites, "diff": self.diff}


@dataclass
class Report:
    path: str
    harness: str
    root: str
    device: str
    fills: list[int]
    runs: list[RunResult] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    accesses: list[dict[str, Any]] = field(default_factory=list)
    checks: dict[str, Any] = field(default_factory=dict)
    compile: list[dict[str, Any]] = field(default_factory=list)
    verdict: str = "not-exercised"
    reasons: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == "verified" else 1

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "harness": self.harness, "root": self.root,
                "device": self.device, "fills": [_hex(f) for f in self.fills],
                "verdict": self.verdict, "reasons": self.reasons, "exit_code": self.exit_code,
                "fixes": [f.to_dict() for f in self.fixes], "accesses": self.accesses,
                "checks": self.checks, "compile": self.compile,
                "runs": [r.summary() for r in self.runs]}


def _hex(fill: int | None) -> str | None:
    return None if fill is None else f"0x{fill:02x}"


def _describe_outputs(outputs: dict[str, Any] | None) -> dict[str, Any] | None:
    if outputs is None:
        return None
    import torch

    desc = {}
    for k, t in outputs.items():
        nan = int(torch.isnan(t).sum()) if t.is_floating_point() else 0
        desc[k] = {"shape": list(t.shape), "dtype": str(t.dtype), "nan": nan}
    return desc


# -- fixer -----------------------------------------------------------------------------------


def cli_fixer(copy_root: Path, target: Path) -> None:
    """The production fixer: `tritonlint check --fix --unsafe-fixes` on the copy, as a subprocess."""
    cmd = [sys.executable, "-m", "tritonlint", "check", "--fix", "--unsafe-fixes", str(target)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (_PKG_PARENT, env.get("PYTHONPATH")) if x)
    proc = subprocess.run(cmd, cwd=copy_root, env=env, capture_output=True, text=True, timeout=600)
    # 0: nothing left to report, 1: findings remain (display-only ones, say); both mean it ran.
    # A Python traceback exits 1 as well: it is a failure, not "findings remain".
    if proc.returncode not in (0, 1) or "Traceback (most recent call last)" in proc.stderr:
        raise VerifyError(f"fixer failed (exit {proc.returncode}): {' '.join(cmd)}\n"
                          f"{(proc.stderr or proc.stdout)[-4000:]}")


# -- subprocesses ----------------------------------------------------------------------------


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _run_child(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float,
               log: Path) -> tuple[str, int | None]:
    """Run a child in its own session; return ("ok"|"timeout", returncode). Kills it on Ctrl-C."""
    with open(log, "wb") as fh:
        # Its own process group, so a timeout or Ctrl-C kills whatever the harness spawned too.
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
            return "ok", rc
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            return "timeout", None
        except BaseException:
            _kill_group(proc)
            raise


_FORK_CTX: Any = None
_FORK_LOCK = threading.Lock()


class _HiddenMain:
    """Hide the caller's __main__ from multiprocessing while it starts a process.

    multiprocessing re-runs the parent's main script in the server and in each child (as
    __mp_main__); a script without an `if __name__ == "__main__"` guard would then start a
    verification inside every run. Our children need nothing from __main__.
    """

    def __enter__(self) -> None:
        self.main = sys.modules.get("__main__")
        self.saved = {k: getattr(self.main, k) for k in ("__file__", "__spec__") if hasattr(self.main, k)}
        if "__file__" in self.saved:
            delattr(self.main, "__file__")
        if "__spec__" in self.saved:
            self.main.__spec__ = None  # multiprocessing reads it, so it must exist

    def __exit__(self, *exc: object) -> None:
        for k, v in self.saved.items():
            setattr(self.main, k, v)


def _forkserver() -> Any:
    """A multiprocessing context whose server has torch and triton imported once.

    Importing torch costs seconds; each harness run forks from this server instead of paying it
    again. Used for CPU runs only (CUDA and compute-sanitizer runs get a fresh exec).
    """
    global _FORK_CTX
    with _FORK_LOCK:
        if _FORK_CTX is None:
            import multiprocessing

            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["torch", "triton", "triton.language", "numpy",
                                        "tritonlint.verify.child"])
            # triton.language decorates its own helpers (tl.cdiv, reductions) at import time, in
            # interpreter mode only if TRITON_INTERPRET is set then: so the server, which
            # imports it once for all runs, must start with it set.
            from multiprocessing import forkserver

            old = os.environ.get("TRITON_INTERPRET")
            os.environ["TRITON_INTERPRET"] = "1"
            try:
                with _HiddenMain():
                    forkserver.ensure_running()
            finally:
                if old is None:
                    os.environ.pop("TRITON_INTERPRET", None)
                else:
                    os.environ["TRITON_INTERPRET"] = old
            _FORK_CTX = ctx
        return _FORK_CTX


def _run_forked(argv: list[str], cwd: Path, env: dict[str, str], timeout: float,
                log: Path) -> tuple[str, int | None]:
    from tritonlint.verify.child import forked_main

    ctx = _forkserver()
    proc = ctx.Process(target=forked_main, args=(argv, str(cwd), env, str(log)), daemon=True)
    with _FORK_LOCK, _HiddenMain():
        proc.start()

    def kill() -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.kill()
        proc.join(10)

    try:
        proc.join(timeout)
    except BaseException:
        kill()
        raise
    if proc.is_alive():
        kill()
        return "timeout", None
    return "ok", proc.exitcode


def _child_env(device: str, sanitizer: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (env.get("PYTHONPATH"), _PKG_PARENT) if x)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env.setdefault("CUDA_VISIBLE_DEVICES", "")
    else:
        env.pop("TRITON_INTERPRET", None)
    if sanitizer:
        # Without the caching allocator every tensor is its own cudaMalloc, so memcheck sees
        # overreads that would otherwise land inside a cached slab.
        env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"
    return env


def _tail(path: Path, n: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return ""


def find_compute_sanitizer() -> str | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and os.path.exists(os.path.join(base, "bin", "compute-sanitizer")):
            return os.path.join(base, "bin", "compute-sanitizer")
    return None


_SAN_ERROR = re.compile(r"Invalid __(?:global|shared|local)__ (read|write|atomic) of size (\d+)")
_SAN_AT = re.compile(r"^\s*at (\S+?)(?:\+(0x[0-9a-fA-F]+))?(?: in (\S+?):(\d+))?\s*$")
_SAN_ADDR = re.compile(r"(?:Access to|Address) (0x[0-9a-fA-F]+) is out of bounds")
_SAN_NEAR = re.compile(r"is ([\d,]+) bytes (after|before) the nearest allocation at (0x[0-9a-fA-F]+) "
                       r"of size ([\d,]+) bytes")


def parse_sanitizer(text: str) -> tuple[int | None, list[dict[str, Any]]]:
    """(error count, sites) from compute-sanitizer memcheck output.

    A site is one access (kind, compiled kernel, file:line when the kernel carries line info)
    and one allocation it ran past: {kind, size, kernel, pc, path, line, allocation, allocation_size,
    direction, max_bytes, count}. `max_bytes`: how far past the end (or before the start) the
    furthest access reached, in bytes (1: the first byte outside).
    """
    count = None
    m = re.search(r"ERROR SUMMARY: (\d+) error", text)
    if m:
        count = int(m.group(1))
    sites: dict[tuple[Any, ...], dict[str, Any]] = {}
    cur: dict[str, Any] | None = None

    def flush() -> None:
        if cur is None:
            return
        key = (cur["kind"], cur["kernel"], cur["path"], cur["line"], cur["allocation"], cur["direction"])
        site = sites.setdefault(key, {**cur, "count": 0, "max_bytes": 0, "min_bytes": None})
        site["count"] += 1
        site["max_bytes"] = max(site["max_bytes"], cur.get("bytes") or 0)
        site["min_bytes"] = min(site["min_bytes"] or cur.get("bytes") or 0, cur.get("bytes") or 0)
        site.pop("bytes", None)

    for raw in text.splitlines():
        line = raw.lstrip("= ").rstrip() if raw.startswith("=") else raw.strip()
        e = _SAN_ERROR.search(line)
        if e:
            flush()
            cur = {"kind": {"read": "load", "write": "store"}.get(e.group(1), "atomic"),
                   "size": int(e.group(2)), "kernel": None, "pc": None, "path": None, "line": None,
                   "allocation": None, "allocation_size": None, "direction": None, "bytes": None}
            continue
        if cur is None:
            continue
        at = _SAN_AT.match(line)
        if at and cur["kernel"] is None:
            cur["kernel"], cur["pc"] = at.group(1), at.group(2)
            if at.group(3):
                cur["path"], cur["line"] = at.group(3), int(at.group(4))
            continue
        near = _SAN_NEAR.search(line)
        if near:
            # "is 1 bytes after" is the first byte past the end; the access covers `size` bytes.
            dist = int(near.group(1).replace(",", ""))
            cur["bytes"] = dist + cur["size"] - 1 if near.group(2) == "after" else dist
            cur["direction"] = near.group(2)
            cur["allocation"] = near.group(3).lower()
            cur["allocation_size"] = int(near.group(4).replace(",", ""))
    flush()
    return count, list(sites.values())


def merge_overreads(sites: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fold an access's "before the next allocation" site into its "after" one.

    memcheck names the allocation nearest to each bad address, so the far end of an overread
    past one tensor can be reported as "before" the tensor allocated after it. An access site
    (kind, kernel, line) running past the end of one allocation and before the start of one
    above it is that one overread: its extent is measured from the end of the first.
    """
    def access(s: dict[str, Any]) -> tuple[Any, ...]:
        return (s["kind"], s["kernel"], s["path"], s["line"])

    after = {access(s): s for s in sites if s["direction"] == "after" and s.get("allocation")}
    out = []
    for s in sites:
        a = after.get(access(s))
        if s["direction"] == "before" and a is not None and s.get("allocation") and (
                int(s["allocation"], 16) > int(a["allocation"], 16)):
            end = int(a["allocation"], 16) + (a["allocation_size"] or 0)
            far = int(s["allocation"], 16) - (s["min_bytes"] or 0) + s["size"]
            a["max_bytes"] = max(a["max_bytes"] or 0, far - end)
            a["count"] += s["count"]
            continue
        out.append(s)
    return out


# -- diffing the trees -----------------------------------------------------------------------


def _py_files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in root.rglob("*.py") if p.is_file()}


def diff_trees(orig: Path, fixed: Path) -> tuple[list[Fix], dict[str, list[tuple[str, int, int, int, int]]]]:
    """Changed regions (as Fix) and, per changed file, the difflib opcodes for line mapping."""
    fixes: list[Fix] = []
    opcodes: dict[str, list[tuple[str, int, int, int, int]]] = {}
    a_files, b_files = _py_files(orig), _py_files(fixed)
    for rel in sorted(set(a_files) & set(b_files)):
        a = a_files[rel].read_text(errors="replace").splitlines(keepends=True)
        b = b_files[rel].read_text(errors="replace").splitlines(keepends=True)
        if a == b:
            continue
        sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
        ops = sm.get_opcodes()
        opcodes[rel] = ops
        hunks = [op for op in ops if op[0] != "equal"]
        # A hunk that only adds mask definitions is support for the next hunk that edits an
        # access (the upstream fix's `if EVEN_K: ... else: ...` block before its load).
        pending: list[tuple[str, int, int, int, int]] = []
        groups: list[list[tuple[str, int, int, int, int]]] = []
        for h in hunks:
            text = "".join(a[h[1]:h[2]] + b[h[3]:h[4]])
            pending.append(h)
            if any(t in text for t in _ACCESS_TOKENS):
                groups.append(pending)
                pending = []
        if pending:
            if groups:
                groups[-1].extend(pending)
            else:
                groups.append(pending)
        for g in groups:
            i1, i2 = min(h[1] for h in g), max(h[2] for h in g)
            j1, j2 = min(h[3] for h in g), max(h[4] for h in g)
            diff = "".join(difflib.unified_diff(a[i1:i2], b[j1:j2], f"a/{rel}", f"b/{rel}", n=0))
            fixes.append(Fix(rel, (i1 + 1, i2), (j1 + 1, j2), diff))
    return fixes, opcodes


def keep_only(orig: Path, fixed: Path, selected: dict[str, set[int]]) -> list[str]:
    """Revert every changed region of the fixed tree except those that touch a selected original
    line; returns the kept `file:line`s. Every selection must meet a fix, and every file touched
    must still compile: otherwise VerifyError, and nothing is verified."""
    kept: list[str] = []
    a_files, b_files = _py_files(orig), _py_files(fixed)
    for rel in sorted(set(a_files) & set(b_files)):
        a = a_files[rel].read_text(errors="replace").splitlines(keepends=True)
        b = b_files[rel].read_text(errors="replace").splitlines(keepends=True)
        if a == b:
            continue
        lines = selected.get(rel, set())
        out: list[str] = []
        for tag, i1, i2, j1, j2 in _line_by_line(difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()):
            touched = {line for line in lines if i1 + 1 <= line <= max(i2, i1 + 1)}
            if tag == "equal" or not touched:
                out.extend(a[i1:i2])
            else:
                out.extend(b[j1:j2])
                kept.extend(f"{rel}:{line}" for line in sorted(touched))
        text = "".join(out)
        try:
            compile(text, rel, "exec")
        except SyntaxError as error:
            raise VerifyError(f"--only: {rel} does not compile with only the selected fixes: {error}") from None
        b_files[rel].write_text(text)
    missing = sorted(f"{rel}:{line}" for rel, lines in selected.items() for line in lines
                     if f"{rel}:{line}" not in kept)
    if missing:
        raise VerifyError(f"--only: no fix at {', '.join(missing)}")
    return kept


def _line_by_line(ops: list[tuple[str, int, int, int, int]]) -> list[tuple[str, int, int, int, int]]:
    """A replacement of n lines by n lines is n one-line replacements: adjacent fixed calls are
    separate fixes (a fix that wraps a call over more lines stays one region)."""
    out: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "replace" and i2 - i1 == j2 - j1:
            out.extend(("replace", i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) for k in range(i2 - i1))
        else:
            out.append((tag, i1, i2, j1, j2))
    return out


def _map_fixed_line(ops: list[tuple[str, int, int, int, int]] | None, line: int) -> int | None:
    """Original line of an unchanged fixed-tree line (None when it lies in a changed region)."""
    if ops is None:
        return line
    j = line - 1
    for tag, i1, i2, j1, j2 in ops:
        if j1 <= j < j2:
            return i1 + (j - j1) + 1 if tag == "equal" else None
    return None


def _call_span(path: Path, line: int, cache: dict[Path, Any]) -> tuple[int, int]:
    """Lines of the load/store call starting at `line` (a multi-line call spans several)."""
    if path not in cache:
        try:
            cache[path] = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, OSError):
            cache[path] = None
    tree = cache[path]
    best = (line, line)
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.lineno == line and node.end_lineno:
                name = ast.unparse(node.func)
                if any(t.rstrip("(") in name for t in _ACCESS_TOKENS):
                    best = (line, max(best[1], node.end_lineno))
    return best


def _defining_file(tree: Path, kernel: str) -> str | None:
    """The one file in the tree that defines `def kernel(` (a generated kernel's source text)."""
    pattern = re.compile(rf"^\s*def {re.escape(kernel)}\(", re.MULTILINE)
    found = [str(p) for p in sorted(tree.rglob("*.py"))
             if pattern.search(p.read_text(errors="replace"))]
    return found[0] if len(found) == 1 else None


def _find_line(path: Path, src: list[str], i: int) -> int | None:
    """Line of `path` holding src[i], told apart from other copies of it by the lines around it."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return None
    want = src[i].strip()
    hits = [n for n, text in enumerate(lines) if text.strip() == want]
    for ctx in range(6):
        near = [n for n in hits if all(
            0 <= n - d < len(lines) and 0 <= i - d < len(src) and lines[n - d].strip() == src[i - d].strip()
            for d in range(1, ctx + 1))]
        if len(near) == 1:
            return near[0] + 1
        if not near:
            return None
    return None


def _only_fix_in_kernel(fixes: list[Fix], path: Path, rel: str, kernel: str, kind: str,
                        cache: dict[Path, Any]) -> Fix | None:
    """The one fix of a `kind` access inside `kernel`'s body, for a site known only by kernel.

    A memcheck report without line information, or a pad written past, names the kernel and
    the tensor, not the line: it is attributed only when a single fix could be the one.
    """
    if path not in cache:
        try:
            cache[path] = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, OSError):
            cache[path] = None
    tree = cache[path]
    if tree is None:
        return None
    token = {"load": "load(", "store": "store("}.get(kind, "atomic_")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel and node.end_lineno:
            inside = [f for f in fixes if f.path == rel and node.lineno <= f.orig_lines[0] <= node.end_lineno
                      and token in f.diff]
            return inside[0] if len(inside) == 1 else None
    return None


def _fix_conditions(path: Path, lines: set[int]) -> dict[int, list[str]]:
    """`COND` of each `None if COND else ...` on the given lines of a fixed file (line -> conds).

    Lines without one are absent. Multi-line calls are attributed to every line they span.
    """
    import re

    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return {}
    out: dict[int, list[str]] = {}
    for ln in sorted(lines):
        if 1 <= ln <= len(text):
            found = re.findall(r"\bNone if (.+?) else\b", text[ln - 1])
            if found:
                out[ln] = found
    return out


@functools.lru_cache(maxsize=64)
def _evenness_flags(path: Path) -> dict[str, dict[str, bool]]:
    """Per kernel of a file, its evenness flags and the value that promises full tiles."""
    from tritonlint.config import Config
    from tritonlint.engine import evenness_flags

    try:
        return evenness_flags(path.read_text(encoding="utf-8"), Config())
    except (OSError, UnicodeDecodeError):
        return {}


def _all_even(path: Path, kernel: str, consts: dict[str, Any]) -> bool:
    """Whether a specialization sets every evenness flag of the kernel that it sets to the value
    that promises full tiles (and sets at least one)."""
    even = _evenness_flags(path).get(kernel, {})
    flags = [consts[name] == value for name, value in even.items() if isinstance(consts.get(name), bool)]
    return bool(flags) and all(flags)


def _eval_flags(expr: str, consts: dict[str, Any]) -> bool | None:
    """Evaluate a flag condition (names, and/or/not, ==, parentheses) under constexprs; None if unknown."""
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return None

    def ev(n: ast.AST) -> Any:
        if isinstance(n, ast.Name):
            if n.id not in consts:
                raise KeyError(n.id)
            return consts[n.id]
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.BoolOp):
            vals = [ev(v) for v in n.values]
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return not ev(n.operand)
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)):
            a, b = ev(n.left), ev(n.comparators[0])
            return (a == b) if isinstance(n.ops[0], ast.Eq) else (a != b)
        raise ValueError(ast.dump(n))

    try:
        return bool(ev(node))
    except (KeyError, ValueError):
        return None


# -- comparing outputs -----------------------------------------------------------------------


def _bits(t: Any) -> Any:
    import torch

    if t.dtype == torch.bool or not (t.is_floating_point() or t.is_complex()):
        return t
    int_ty = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}
    size = t.element_size()
    t = t.contiguous()
    return t.view(int_ty[size]) if size in int_ty and size != 16 else t.view(torch.int64)


def outputs_identical(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Keys whose tensors differ bit for bit (NaN payloads included)."""
    import torch

    diff = []
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b or a[k].shape != b[k].shape or a[k].dtype != b[k].dtype or not torch.equal(_bits(a[k]), _bits(b[k])):
            diff.append(k)
    return diff


def _nan_mask(t: Any) -> Any:
    import torch

    return torch.isnan(t) if t.is_floating_point() else torch.zeros_like(t, dtype=torch.bool)


def new_nans(out: dict[str, Any], ref: dict[str, Any]) -> dict[str, int]:
    """NaN elements of `out` where `ref` has none, per key."""
    res = {}
    for k, t in out.items():
        m = _nan_mask(t)
        if k in ref and ref[k].shape == t.shape:
            m = m & ~_nan_mask(ref[k])
        n = int(m.sum())
        if n:
            res[k] = n
    return res


def mismatches(a: dict[str, Any], b: dict[str, Any], rtol: float, atol: float) -> dict[str, float]:
    """Keys not close (equal_nan) with their max abs difference."""
    import torch

    res = {}
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b or a[k].shape != b[k].shape:
            res[k] = float("inf")
            continue
        x, y = a[k], b[k]
        if rtol == 0 and atol == 0:
            same = torch.equal(_bits(x), _bits(y)) or bool(
                (x == y).logical_or(_nan_mask(x) & _nan_mask(y)).all())
        else:
            same = torch.allclose(x.double(), y.double(), rtol=rtol, atol=atol, equal_nan=True)
        if not same:
            d = (x.double() - y.double()).abs()
            d = d[~torch.isnan(d)]
            res[k] = float(d.max()) if d.numel() else float("nan")
    return res


def original_off_reference(orig: Any, fixed: Any, ref: Any, tol: float) -> dict[str, Any] | None:
    """Whether the original's difference from the fixed output is the original being wrong.

    None unless, at every element where the two differ (NaN payloads aside), the fixed output
    is within `tol` of max |ref| of the reference and the original is further from it than the
    fixed output is. Otherwise a summary: how many elements, and how far off the original is.
    """
    import torch

    if orig is None or fixed is None or ref is None or not (orig.shape == fixed.shape == ref.shape):
        return None
    x, y, r = orig.double(), fixed.double(), ref.to(orig.device).double()
    differ = ~((x == y) | (torch.isnan(x) & torch.isnan(y)))
    if not differ.any() or torch.isnan(r[differ]).any():
        return None
    finite = ~torch.isnan(r)
    scale = float(r[finite].abs().max()) if finite.any() else 0.0
    err_fixed = (y - r).abs()[differ]
    err_orig = (x - r).abs()[differ]
    err_orig = torch.where(torch.isnan(err_orig), torch.full_like(err_orig, float("inf")), err_orig)
    if torch.isnan(err_fixed).any() or bool((err_fixed > tol * scale).any()) or not bool((err_orig > err_fixed).all()):
        return None
    return {"elements": int(differ.sum()), "max_original_error": float(err_orig.max()),
            "max_fixed_error": float(err_fixed.max())}


def relative_error(out: dict[str, Any], ref: dict[str, Any]) -> dict[str, float]:
    """max |out - ref| / max |ref| per shared key."""
    res = {}
    for k in sorted(set(out) & set(ref)):
        x, y = out[k].double(), ref[k].double()
        if x.shape != y.shape:
            res[k] = float("inf")
            continue
        ok = ~(torch_isnan(x) | torch_isnan(y))
        scale = float(y[ok].abs().max()) if ok.any() else 0.0
        err = float((x[ok] - y[ok]).abs().max()) if ok.any() else 0.0
        res[k] = err / scale if scale else err
    return res


def torch_isnan(t: Any) -> Any:
    import torch

    return torch.isnan(t)


# -- the verifier ----------------------------------------------------------------------------


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
    pad_bytes: int = 256 << 10  # cuda: fill bytes on each side of every allocation
    # "FILE:LINE" selections: only the fixes at these lines are kept in the fixed tree (the others
    # are reverted), so one fix can be proved where the fixer also changes paths a harness never takes.
    only: Sequence[str] = ()
    # Fork CPU runs from a server with torch/triton preloaded (much faster); off = fresh exec.
    forkserver: bool = os.environ.get("TRITONLINT_VERIFY_FORKSERVER", "1") != "0"


def _progress(message: str) -> None:
    # One write per line: harness runs report from several threads, and print() writes the text and
    # its newline separately, so two lines could run together.
    sys.stderr.write(f"[verify] {message}\n")
    sys.stderr.flush()


class Verifier:
    def __init__(self, path: str | Path, harness: str | Path, root: str | Path | None = None,
                 options: Options | None = None, fixer: Fixer | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.path = Path(path).resolve()
        self.harness = Path(harness).resolve()
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
        if not self.harness.is_file():
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
            return self._run()
        finally:
            if not self.opts.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
            else:
                self.progress(f"kept temporary trees in {self.tmp}")

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
        try:
            return tree / self._in_copy(self.harness)
        except ValueError:
            return self.harness

    def _run(self) -> Report:
        assert self.tmp is not None
        opts = self.opts
        rel_path = self._in_copy(self.path)
        report = Report(str(self.path), str(self.harness), str(self.root), opts.device, list(opts.fills))
        trees = {"original": self.tmp / "original", "fixed": self.tmp / "fixed"}
        self.progress(f"copying {self.root} twice into {self.tmp}")
        for t in trees.values():
            shutil.copytree(self.root, t / self.package if self.package else t, ignore=_IGNORE,
                            symlinks=True)
        self.progress(f"fixing {rel_path} in the copy")
        self.fixer(trees["fixed"], trees["fixed"] / rel_path)
        if opts.only:
            kept = keep_only(trees["original"], trees["fixed"], self._selections(opts.only))
            self.progress(f"kept the fixes at {', '.join(kept)}; reverted the others (--only)")
        fixes, opcodes = diff_trees(trees["original"], trees["fixed"])
        report.fixes = fixes
        self.progress(f"{len(fixes)} fix(es) in {len(opcodes)} file(s)")

        zero = 0 if 0 in opts.fills else opts.fills[0]
        jobs_spec = [(name, fill) for name in ("original", "fixed") for fill in opts.fills]
        runs: list[RunResult] = []
        n_jobs = opts.jobs or (len(jobs_spec) if opts.device == "cpu" else 1)
        n_jobs = max(1, min(n_jobs, len(jobs_spec), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(n_jobs) as pool:
            futs = [pool.submit(self._one_run, name, trees[name], fill, reference=(name == "original" and fill == zero))
                    for name, fill in jobs_spec]
            try:
                for fut in futs:
                    runs.append(fut.result())
            except BaseException:
                for f in futs:
                    f.cancel()
                raise
        self._harness_failed(runs, trees)
        if opts.sanitizer and opts.device == "cuda":
            tool = find_compute_sanitizer()
            if tool is None:
                self.progress("compute-sanitizer not found; skipping memcheck runs")
            else:
                for name in ("original", "fixed"):
                    runs.append(self._one_run(name, trees[name], None, sanitizer=tool))
        report.runs = runs
        if opts.compile:
            report.compile = self._compile(trees, runs, fixes, opcodes)
        self._judge(report, trees, opcodes, zero)
        return report

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
            f"{_hex(first['original'].fill)}):\n" + "\n".join(
                "    " + ln for ln in "\n    ---\n".join(shown).splitlines()) + f"\n({where})")

    def _one_run(self, name: str, tree: Path, fill: int | None, reference: bool = False,
                 sanitizer: str | None = None) -> RunResult:
        assert self.tmp is not None
        label = f"{name} fill={_hex(fill)}" if fill is not None else f"{name} memcheck"
        out = self.tmp / "runs" / f"{name}-{'memcheck' if fill is None else fill}"
        out.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "tritonlint.verify.child", "run", "--tree", str(tree),
               "--harness", str(self._harness_in(tree)), "--device", self.opts.device,
               "--fill", str(fill or 0), "--out", str(out)]
        if reference:
            cmd.append("--reference")
        if sanitizer:
            cmd = [sanitizer, "--tool", "memcheck", "--print-limit", "1000"] + cmd + ["--no-poison"]
        elif self.opts.device == "cuda":
            cmd += ["--pad-bytes", str(self.opts.pad_bytes)]
        self.progress(f"running harness: {label}")
        log = out / "log.txt"
        env = _child_env(self.opts.device, bool(sanitizer))
        if self.opts.device == "cpu" and self.opts.forkserver and not sanitizer:
            status, rc = _run_forked(cmd[3:], tree, env, self.opts.timeout, log)
        else:
            status, rc = _run_child(cmd, tree, env, self.opts.timeout, log)
        res = RunResult(name, fill, log=str(log))
        rep_path = out / "report.json"
        rep = json.loads(rep_path.read_text()) if rep_path.exists() else None
        if status == "timeout":
            res.status = "timeout"
            res.error = f"harness did not finish within {self.opts.timeout:g} s\n{_tail(log, 2000)}"
        elif rep is None:
            res.status = "crashed"
            res.error = f"child exited with {rc} and no report\n{_tail(log)}"
        else:
            res.status = "ok" if rep["status"] == "ok" else "crashed"
            res.error = rep.get("error")
            res.elapsed = rep.get("elapsed", 0.0)
        if rep is not None:
            for d in rep.get("launches", []):
                if d.get("generated"):
                    d["generated"]["file"] = _defining_file(tree, d["kernel"])
            res.launches = [self._launch_summary(tree, d) for d in rep.get("launches", [])]
            res.specs = rep.get("specs", [])
            res.violations = []
            for v in rep.get("violations", []):
                v = self._rel(tree, v, "path")
                v = self._rel(tree, v, "kernel_path")
                v["stack"] = [[self._relp(tree, s[0]), s[1], s[2]] for s in v.get("stack", [])]
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
            count, sites = parse_sanitizer(_tail(log, 1 << 22))
            res.sanitizer_errors = count
            tensors = (rep or {}).get("tensors", [])
            launches = (rep or {}).get("launches", [])
            for s in merge_overreads(sites):
                res.violations.append(self._sanitizer_site(tree, s, tensors, launches))
        extra = f", {len(res.violations)} out-of-bounds site(s)" if res.violations else ""
        self.progress(f"  {label}: {res.status} ({res.elapsed:.1f}s{extra})")
        return res

    def _launch_summary(self, tree: Path, d: dict[str, Any]) -> dict[str, Any]:
        """A launch for the report: paths relative to the tree, a generated kernel at its text's file."""
        out = {k: v for k, v in d.items() if k != "generated"}
        gen = d.get("generated")
        if gen and gen.get("file"):
            out["generated_in"] = self._relp(tree, d["path"])
            out["path"] = gen["file"]
        return self._rel(tree, out, "path")

    def _relp_site(self, tree: Path, site: str) -> str:
        """"/tmp/.../original/pkg/f.py:12 in fn" with the path relative to the tree."""
        path, sep, rest = site.partition(":")
        return self._relp(tree, path) + sep + rest if sep else site

    def _sanitizer_site(self, tree: Path, s: dict[str, Any], tensors: list[dict[str, Any]],
                        launches: list[dict[str, Any]]) -> dict[str, Any]:
        """A memcheck site as a violation: the kernel parameter whose tensor the access ran past."""
        alloc = int(s["allocation"], 16) if s.get("allocation") else None
        size = s.get("allocation_size")
        # The tensor whose storage is that allocation (exact allocations: the same base); a
        # parameter of the kernel that made the access when several kernels shared it.
        # Wrappers Triton takes as pointers (no storage known): the allocation holding the pointer.
        owners = [t for t in tensors if alloc is not None and (
            int(t["storage"], 16) == alloc or alloc <= int(t.get("ptr", t["storage"]), 16) < alloc + (size or 1))]
        compiled = s.get("kernel") or ""
        own = [t for t in owners if t.get("compiled") and compiled.startswith(t["compiled"])] or owners
        launch = next((x for x in launches if x.get("compiled") and compiled.startswith(x["compiled"])), None)
        if launch is None and own:
            launch = {"kernel": own[0]["kernel"], "path": own[0]["path"]}
        gen = (launch or {}).get("generated")
        line = s.get("line")
        path = self._relp(tree, s["path"]) if s.get("path") else None
        if gen and path and Path(path).name == Path(launch["path"]).name:  # type: ignore[index]
            # The line counts in the generated source: find that text in the file it came from.
            path, line = None, None
            src = gen["src"].splitlines()
            i = (s.get("line") or 0) - gen["start"]
            if gen.get("file") and 0 <= i < len(src):
                path = gen["file"]
                line = _find_line(Path(path), src, i)
        kernel_path = (gen.get("file") if gen else None) or (launch["path"] if launch else None)
        kernel_path = self._relp(tree, kernel_path) if kernel_path else None
        path = self._relp(tree, path) if path else (kernel_path if gen else None)
        if path and not (tree / path).is_file() and kernel_path and Path(kernel_path).name == Path(path).name:
            path = kernel_path  # memcheck printed the file's base name only
        elem = own[0]["dtype"] if own else None
        return {"kind": s["kind"], "path": path, "line": line,
                "tensor": "/".join(sorted({t["param"] for t in own})) if own else "?",
                "kernel": launch["kernel"] if launch else compiled or "?",
                "kernel_path": kernel_path, "compiled_kernel": compiled,
                "direction": s.get("direction") or "?", "max_elements": None,
                "max_bytes": s.get("max_bytes"), "count": s.get("count"), "access_size": s.get("size"),
                "allocation_size": size, "element_type": elem, "source": "compute-sanitizer"}

    @staticmethod
    def _relp(tree: Path, p: str) -> str:
        try:
            return str(Path(p).resolve().relative_to(tree.resolve()))
        except (ValueError, OSError):
            return p

    def _rel(self, tree: Path, d: dict[str, Any], key: str) -> dict[str, Any]:
        d = dict(d)
        if d.get(key):
            d[key] = self._relp(tree, d[key])
        return d

    # -- compile check ------------------------------------------------------------------

    def _compile(self, trees: dict[str, Path], runs: list[RunResult], fixes: list[Fix],
                 opcodes: dict[str, Any]) -> list[dict[str, Any]]:
        """Compile the launched specializations of every kernel in a fixed file, both trees."""
        assert self.tmp is not None
        specs: dict[str, dict[str, Any]] = {}
        fixed_files = {f.path for f in fixes}
        for r in runs:
            for s in r.specs:
                rel = self._relp(trees[r.tree], s.get("path", ""))
                if rel in fixed_files:
                    # The same launch in both trees differs only by the tree's path.
                    key = {k: v for k, v in s.items() if k != "path"}
                    specs.setdefault(json.dumps({**key, "rel": rel}, sort_keys=True, default=str),
                                     {**s, "rel": rel})
        if not specs:
            return []
        self.progress(f"compiling {len(specs)} launched specialization(s) for sm_90")
        results: dict[str, list[dict[str, Any]]] = {}
        for name, tree in trees.items():
            out = self.tmp / f"compile-{name}"
            out.mkdir(parents=True, exist_ok=True)
            spec_file = out / "specs.json"
            spec_file.write_text(json.dumps(list(specs.values())))
            cmd = [sys.executable, "-m", "tritonlint.verify.child", "compile", "--tree", str(tree),
                   "--specs", str(spec_file), "--out", str(out)]
            if self.opts.full_compile:
                cmd.append("--full")
            env = _child_env("cuda")  # no TRITON_INTERPRET: these must be real JITFunctions
            # A fresh exec: the forkserver's triton is in interpreter mode, this must not be.
            status, rc = _run_child(cmd, tree, env, self.opts.timeout, out / "log.txt")
            if (out / "compile.json").exists():
                results[name] = json.loads((out / "compile.json").read_text())
            else:
                results[name] = [{"error": f"compile child {status} (exit {rc}): {_tail(out / 'log.txt', 1500)}"}
                                 for _ in specs]
        summary = []
        for i, spec in enumerate(specs.values()):
            before, after = results["original"][i], results["fixed"][i]
            item: dict[str, Any] = {"kernel": spec["kernel"], "path": spec["rel"],
                                    "constexprs": spec.get("constexprs", {}), "ok": True, "problems": []}
            if before.get("error") or after.get("error"):
                item["ok"] = None  # could not tell
                item["problems"].append(before.get("error") or after.get("error"))
                summary.append(item)
                continue
            touched = set()
            for f in fixes:
                if f.path == spec["rel"]:
                    touched.update(range(f.fixed_lines[0], f.fixed_lines[1] + 1))
            # Conditions under which the fix deliberately leaves an access unmasked
            # (`mask=None if EVEN_K else ...`), per touched line of the fixed file.
            conds = _fix_conditions(trees["fixed"] / spec["rel"], touched)
            for label, var in after["variants"].items():
                acc_after = var["accesses"]
                acc_before = before["variants"].get(label, {}).get("accesses", [])
                keys_a = [(a["op"], a["masked"], a["type"]) for a in acc_after]
                keys_b = [(a["op"], a["masked"], a["type"]) for a in acc_before]
                consts = var.get("constexprs") or spec.get("constexprs", {})
                # Every evenness flag on its full-tile side: no tile is partial. With EVEN_M true and
                # EVEN_N false, N tiles are still partial and the fix rightly masks there. Which
                # constexprs are flags, and which value promises full tiles, `check`'s own
                # recogniser says (`MASK_K=False` and `DIVISIBLE_N=True` are such flags too).
                all_even = _all_even(trees["original"] / spec["rel"], spec["kernel"], consts)
                fast_lines = {ln for ln, cs in conds.items() if cs and all(_eval_flags(c, consts) for c in cs)}
                # Unmasked on purpose: the fix's own condition holds, or (for an unconditional
                # fix) no tile is partial in this specialization.
                bad = [a for a in acc_after if not a["masked"] and a["line"] in touched
                       and a["path"] and self._relp(trees["fixed"], a["path"]) == spec["rel"]
                       and not (a["line"] in fast_lines or (a["line"] not in conds and all_even))]
                # The fix promises an unchanged fast path where all its conditions hold.
                fast_path = bool(conds) and set(conds) <= fast_lines
                var_sum: dict[str, Any] = {"unmasked_touched": [f"{spec['rel']}:{a['line']}" for a in bad],
                           "same_as_original": keys_a == keys_b,
                           "fix_fast_path": fast_path, "all_even": all_even,
                           "unmasked": [f"{self._relp(trees['fixed'], a['path'] or '?')}:{a['line']}"
                                        for a in acc_after if not a["masked"]]}
                item[label] = var_sum
                if fast_path and keys_a != keys_b:
                    item["ok"] = False
                    item["problems"].append(f"{label}: the fix's unmasked specialization changed the "
                                            "kernel's loads/stores")
                elif all_even and keys_a != keys_b:
                    item.setdefault("notes", []).append(
                        f"{label}: the fix masks the even specialization too (unconditional mask)")
                if bad:
                    item["ok"] = False
                    item["problems"].append(f"{label}: tail access(es) the fix touched still unmasked "
                                            f"in TTIR at {', '.join(var_sum['unmasked_touched'])}")
            summary.append(item)
        return summary

    # -- verdicts -----------------------------------------------------------------------

    def _judge(self, report: Report, trees: dict[str, Path], opcodes: dict[str, Any], zero: int) -> None:
        opts = self.opts
        runs = report.runs
        orig = {r.fill: r for r in runs if r.tree == "original" and r.fill is not None}
        fixed = {r.fill: r for r in runs if r.tree == "fixed" and r.fill is not None}
        reasons: list[str] = []
        checks: dict[str, Any] = {}
        for r in runs:
            if r.fill is None and r.sanitizer_errors:
                continue  # memcheck stops the process at the access it reports: expected
            if r.status != "ok":
                first = (r.error or "").strip().splitlines()
                reasons.append(f"harness {r.status} on the {r.tree} tree"
                               f"{' (fill ' + _hex(r.fill) + ')' if r.fill is not None else ''}: "
                               f"{first[-1] if first else ''}")

        # Out-of-bounds sites, original coordinates.
        orig_sites: dict[tuple[Any, ...], dict[str, Any]] = {}
        for r in orig.values():
            for v in r.violations:
                key = (v["path"], v["line"], v["kind"], v.get("tensor", "?"))
                s = orig_sites.setdefault(key, {**v, "fills": []})
                s["fills"].append(_hex(r.fill))
                if v.get("max_elements") and (s.get("max_elements") or 0) < v["max_elements"]:
                    s["max_elements"] = v["max_elements"]
        fixed_sites: dict[tuple[Any, ...], dict[str, Any]] = {}
        for r in list(fixed.values()) + [x for x in runs if x.tree == "fixed" and x.fill is None]:
            for v in r.violations:
                key = (v["path"], v["line"], v["kind"], v.get("tensor", "?"))
                fixed_sites.setdefault(key, v)
        for r in runs:
            if r.tree == "original" and r.fill is None:
                for v in r.violations:
                    orig_sites.setdefault((v["path"], v["line"], v["kind"], v.get("tensor", "?")),
                                          {**v, "fills": ["memcheck"]})
        # Writes past the end seen by the padded allocator (GPU): the allocation and the kernel
        # parameters that were handed it; no line, so attributed below by kernel.
        for r in runs:
            for a in (r.allocator or {}).get("written_past", []):
                for arg in a.get("args") or ["?.?"]:
                    kernel, _, param = arg.partition(".")
                    launch = next((x for x in r.launches if x.get("kernel") == kernel), None)
                    v = {"path": launch["path"] if launch else None, "line": None, "kind": "store",
                         "tensor": param, "kernel": kernel, "direction": "/".join(a["written"]),
                         "max_elements": None, "source": "pad check", "allocation_site": a.get("site")}
                    target = orig_sites if r.tree == "original" else fixed_sites
                    key = (v["path"], None, "store", param)
                    if r.tree == "original":
                        s = target.setdefault(key, {**v, "fills": []})
                        s["fills"].append(_hex(r.fill))
                    else:
                        target.setdefault(key, v)
        have_site_info = opts.device == "cpu" or any(r.fill is None and r.sanitizer_errors is not None
                                                     for r in runs)

        # Outputs.
        ok_orig = {f: r.outputs for f, r in orig.items() if r.outputs is not None}
        ok_fixed = {f: r.outputs for f, r in fixed.items() if r.outputs is not None}
        orig_fill_dep = sorted({k for f, o in ok_orig.items() for k in
                                outputs_identical(ok_orig.get(zero, o), o)}) if ok_orig else []
        orig_nan = {_hex(f): sum(int(_nan_mask(t).sum()) for t in o.values()) for f, o in ok_orig.items()}
        fixed_fill_dep = sorted({k for f, o in ok_fixed.items() for k in
                                 outputs_identical(ok_fixed.get(zero, o), o)}) if ok_fixed else []
        fixed_nan = {_hex(f): sum(int(_nan_mask(t).sum()) for t in o.values()) for f, o in ok_fixed.items()}
        ref_run = orig.get(zero)
        harness_ref = ref_run.reference if ref_run is not None else None
        reference = harness_ref if harness_ref else ok_orig.get(zero)
        extra_nans = {_hex(f): new_nans(o, reference) for f, o in ok_fixed.items()} if reference else {}
        extra_nans = {f: n for f, n in extra_nans.items() if n}
        mism = mismatches(ok_orig[zero], ok_fixed[zero], opts.rtol, opts.atol) \
            if zero in ok_orig and zero in ok_fixed else None
        rel_err = relative_error(ok_fixed[zero], harness_ref) if harness_ref and zero in ok_fixed else None
        # The original can be wrong at fill 0x00 without any fill showing through: an overrun
        # that stays inside the storage (a row's tail reads or writes the next row) is not
        # poisoned. Such differences are the bug, not the fix, when the harness reference
        # says so: at every element where the two differ, the fixed output is on the reference
        # and the original is further off it.
        explained: dict[str, dict[str, Any]] = {}
        if mism and harness_ref:
            for k in list(mism):
                why = original_off_reference(ok_orig[zero].get(k), ok_fixed[zero].get(k),
                                             harness_ref.get(k), opts.ref_tol)
                if why is not None:
                    explained[k] = why
                    del mism[k]
        checks.update({
            "original_fill_dependent": orig_fill_dep, "original_nan": orig_nan,
            "fixed_fill_dependent": fixed_fill_dep, "fixed_nan": fixed_nan,
            "fixed_new_nan": extra_nans, "fixed_vs_original_at_" + _hex(zero): mism,
            "original_off_reference_at_" + _hex(zero): explained,
            "fixed_vs_reference_relative_error": rel_err,
            "original_oob_sites": len(orig_sites), "fixed_oob_sites": len(fixed_sites),
        })
        output_problems = []
        if fixed_fill_dep:
            output_problems.append(f"fixed outputs change with the fill: {', '.join(fixed_fill_dep)}")
        if extra_nans:
            output_problems.append(f"fixed outputs have NaN the reference lacks: {extra_nans}")
        if mism:
            output_problems.append(f"fixed outputs differ from the original at fill {_hex(zero)}: "
                                   + ", ".join(f"{k} (max |diff| {d:g})" for k, d in mism.items()))
        if rel_err:
            over = {k: e for k, e in rel_err.items() if e > opts.ref_tol}
            if over:
                output_problems.append(f"fixed outputs off the harness reference by more than "
                                       f"{opts.ref_tol:g} of max |ref|: {over}")
        reasons.extend(output_problems)
        # The fill shows through the original's outputs (values or NaN that change with it).
        fill_evidence = bool(orig_fill_dep) or any(n > 0 and n > orig_nan.get(_hex(zero), 0) for n in orig_nan.values())
        output_evidence = fill_evidence or bool(explained)

        # Attribute original sites to fixes, and fixed-tree sites back to original lines.
        ast_cache: dict[Path, Any] = {}
        unmatched: list[dict[str, Any]] = []  # clean now, and on no fix's lines
        for f in report.fixes:
            f.sites = []
        for key, s in sorted(orig_sites.items(), key=lambda kv: (kv[0][0] or "", kv[0][1] or 0)):
            path, line = s.get("path"), s.get("line")
            match = None
            if path and line:
                span = _call_span(trees["original"] / path, line, ast_cache)
                for f in report.fixes:
                    lo, hi = f.orig_lines[0], max(f.orig_lines)
                    if f.path == path and span[0] <= hi and lo <= span[1]:
                        match = f
                        break
            elif path and s.get("kernel"):
                match = _only_fix_in_kernel(report.fixes, trees["original"] / path, path, s["kernel"],
                                            key[2], ast_cache)
            if line is None:
                still = [fv for fk, fv in fixed_sites.items() if fk[0] == path and fk[1] is None
                         and fk[2] == key[2] and fk[3] == key[3]]
            else:
                still = [fv for fk, fv in fixed_sites.items()
                         if fk[0] == path and fk[1] is not None
                         and _map_fixed_line(opcodes.get(path), fk[1]) == line and fk[2] == key[2]]
            entry = {"path": path, "line": line, "kind": key[2], "tensor": key[3],
                     "kernel": s.get("kernel"), "max_elements": s.get("max_elements"),
                     "direction": s.get("direction"), "fills": s["fills"],
                     "source": s.get("source", "interpreter"), "max_bytes": s.get("max_bytes"),
                     "count": s.get("count"), "allocation_size": s.get("allocation_size"),
                     "fix": f"{match.path}:{match.orig_lines[0]}" if match else None}
            if still:
                entry["verdict"], entry["reason"] = "failed", "still out of bounds in the fixed tree"
            elif match is None and not still:
                # The fixer touched something else (a shared mask, say) and the site is clean now.
                entry["verdict"] = "verified" if not output_problems else "failed"
                entry["reason"] = "no fix on this line, but the fixed tree no longer goes out of bounds"
            else:
                entry["verdict"] = "verified" if not output_problems else "failed"
                entry["reason"] = "; ".join(output_problems)
            if match is not None:
                match.sites.append(entry)
            elif entry["verdict"] == "verified":
                unmatched.append(entry)
            report.accesses.append(entry)
        # A fix that edits no load or store (TL103 rewrites the host predicate of an evenness flag)
        # owns the sites of its file that no other fix owns and that the fixed tree no longer hits.
        for f in report.fixes:
            mine = [entry for entry in unmatched if entry["path"] == f.path]
            if mine and not f.sites and not _edits_an_access(trees["original"] / f.path, f.orig_lines):
                f.sites = mine
        # Fixed-tree sites that do not exist in the original: the fix (or something) made new ones.
        for fk, fv in fixed_sites.items():
            if fk[1] is None:
                if any(k[0] == fk[0] and k[1] is None and k[2] == fk[2] and k[3] == fk[3] for k in orig_sites):
                    continue
                orig_line = None
            else:
                orig_line = _map_fixed_line(opcodes.get(fk[0]), fk[1])
            if orig_line is not None and any(k[0] == fk[0] and k[1] == orig_line and k[2] == fk[2]
                                             for k in orig_sites):
                continue
            where = f"{fk[0]}:{fk[1]}"
            owner = None
            for f in report.fixes:
                if fk[1] is not None and f.path == fk[0] and f.fixed_lines[0] <= fk[1] <= max(f.fixed_lines):
                    owner = f
            report.accesses.append({"path": fk[0], "line": fk[1], "kind": fk[2], "tensor": fk[3],
                                    "kernel": fv.get("kernel"), "max_elements": fv.get("max_elements"),
                                    "direction": fv.get("direction"), "fills": [], "tree": "fixed",
                                    "fix": f"{owner.path}:{owner.orig_lines[0]}" if owner else None,
                                    "verdict": "failed",
                                    "reason": f"fixed tree goes out of bounds at {where}"})
            reasons.append(f"fixed tree goes out of bounds at {where} ({fk[2]} of {fk[3]})")
            if owner is not None:
                owner.verdict, owner.reason = "failed", f"the fixed code goes out of bounds at {where}"

        compile_problems = [p for c in report.compile if c.get("ok") is False for p in c["problems"]]
        reasons.extend(f"compile check: {p}" for p in compile_problems)

        for f in report.fixes:
            if f.verdict == "failed":
                continue
            bad_sites = [s for s in f.sites if s["verdict"] == "failed"]
            comp = [p for c in report.compile if c.get("ok") is False and c["path"] == f.path
                    for p in c["problems"]]
            if bad_sites:
                f.verdict, f.reason = "failed", "; ".join(sorted({s["reason"] for s in bad_sites}))
            elif comp:
                f.verdict, f.reason = "failed", "; ".join(comp)
            elif f.sites or (not have_site_info and output_evidence) or (explained and not orig_sites):
                # The last: in bounds but wrong, and the harness reference is the evidence (TL105's
                # masked-off lanes in a reduction; TL104's padded tile reaching the next group).
                if output_problems or any(r.status != "ok" and not (r.fill is None and r.sanitizer_errors)
                                          for r in runs):
                    f.verdict = "failed"
                    f.reason = "; ".join(output_problems) or "a harness run did not complete"
                else:
                    f.verdict = "verified"
                    evidence = "original outputs depend on the fill; fixed outputs do not" if fill_evidence else \
                        ("no access goes out of bounds; the original is off the harness reference where the "
                         "fixed tree is on it: " + ", ".join(sorted(explained)))
                    f.reason = ("original goes out of bounds here; fixed tree does not, outputs "
                                "identical across fills and equal to the original at fill "
                                + str(_hex(zero))) if f.sites else \
                        evidence + (
                            "" if len(report.fixes) == 1 else
                            f" (said of the {len(report.fixes)} fixes together: without --sanitizer a GPU run "
                            "cannot tell which line the fill reached; prove one with --only FILE:LINE)")
                    if explained and (f.sites or orig_fill_dep):
                        f.reason += (" except where the original is off the harness reference "
                                     "(an overrun inside the storage): " + ", ".join(sorted(explained)))
            else:
                f.verdict = "not-exercised"
                f.reason = "the harness never made this access go out of bounds" + (
                    "" if not output_evidence else " (though original outputs depend on the fill)")

        unfixed = [a for a in report.accesses if a["verdict"] == "failed" and a.get("tree") != "fixed"]
        for a in unfixed:
            reasons.append(f"{a['path']}:{a['line']}: {a['kind']} of {a['tensor']}: {a['reason']}")
        report.checks = checks
        if reasons or any(f.verdict == "failed" for f in report.fixes):
            report.verdict = "failed"
        elif report.fixes and all(f.verdict == "verified" for f in report.fixes):
            report.verdict = "verified"
        elif not report.fixes and (orig_sites or output_evidence):
            report.verdict = "failed"
            reasons.append("the original goes out of bounds (or depends on the fill) but the fixer changed nothing")
        else:
            report.verdict = "not-exercised"
            if not report.fixes:
                reasons.append("no fixes to verify and no out-of-bounds access in the original")
            else:
                reasons.append("the harness never reached the tail of: " + ", ".join(
                    f"{f.path}:{f.orig_lines[0]}" for f in report.fixes if f.verdict == "not-exercised"))
        report.reasons = list(dict.fromkeys(reasons))


def _edits_an_access(path: Path, lines: Sequence[int]) -> bool:
    """Whether the original lines a fix rewrites hold a `tl.load` or `tl.store` call."""
    try:
        text = path.read_text().splitlines()
    except OSError:
        return True
    return any(re.search(r"\btl\.(load|store)\s*\(", line) for line in text[min(lines) - 1:max(lines)])


def verify(path: str | Path, harness: str | Path, root: str | Path | None = None,
           fixer: Fixer | None = None, progress: Callable[[str], None] | None = None,
           **options: Any) -> Report:
    """Run the whole differential verification; see Options for keyword arguments."""
    return Verifier(path, harness, root, Options(**options), fixer, progress).run()


def _describe_site(s: dict[str, Any]) -> str:
    edge = {"after": "past the end of", "before": "before the start of"}.get(s.get("direction") or "",
                                                                           "outside")
    where = f"{s['path']}:{s['line']}" if s.get("line") else f"{s.get('path')} (no line)"
    if s.get("source") == "compute-sanitizer":
        size = f" of {s['allocation_size']} bytes" if s.get("allocation_size") else ""
        return (f"original {s['kind']} at {where} ran up to {s.get('max_bytes')} byte(s) {edge} "
                f"`{s['tensor']}`{size} (kernel {s.get('kernel')}, memcheck: {s.get('count')} error(s))")
    if s.get("source") == "pad check":
        return (f"original {s['kind']} in kernel {s.get('kernel')} wrote {edge} `{s['tensor']}` "
                f"(its fill-padded allocation changed; fills {', '.join(s['fills'])})")
    return (f"original {s['kind']} at {where} ran up to {s.get('max_elements')} element(s) {edge} "
            f"`{s['tensor']}` (kernel {s.get('kernel')}, fills {', '.join(s['fills'])})")


def format_text(report: Report, keep: bool = False) -> str:
    lines = [f"tritonlint verify: {report.verdict.upper()}  "
             f"({report.path}, harness {report.harness}, device {report.device}, "
             f"fills {', '.join(_hex(f) or '' for f in report.fills)})"]
    for f in report.fixes:
        lines.append(f"  fix {f.path}:{f.orig_lines[0]}: {f.verdict}" + (f" - {f.reason}" if f.reason else ""))
        for s in f.sites:
            lines.append("    " + _describe_site(s))
    loose = [a for a in report.accesses if not a.get("fix")]
    for a in loose:
        where = f"{a['path']}:{a['line']}" if a.get("line") else f"{a.get('path')} ({a.get('kernel')})"
        lines.append(f"  access {where} {a['kind']} of `{a['tensor']}`: {a['verdict']}"
                     f" - {a['reason']}")
    for c in report.compile:
        state = {True: "ok", False: "FAILED", None: "not compiled"}[c.get("ok")]
        lines.append(f"  compile sm_90 {c['path']}::{c['kernel']}: {state}"
                     + (f" - {'; '.join(c['problems'])}" if c["problems"] else ""))
    for r in report.runs:
        nan = sum(d["nan"] for d in (_describe_outputs(r.outputs) or {}).values())
        written = len((r.allocator or {}).get("written_past", []))
        lines.append(f"  run {r.tree:8} fill {_hex(r.fill) or 'memcheck'!s:8} {r.status:8} "
                     f"{r.elapsed:6.1f}s  NaN {nan if r.outputs is not None else '-':>6}  "
                     f"{len(r.violations)} OOB site(s)"
                     + (f"  {written} allocation(s) written past" if r.allocator else "")
                     + (f"  memcheck errors: {r.sanitizer_errors}" if r.sanitizer_errors is not None else "")
                     + (f"  log {r.log}" if keep else ""))
    c = report.checks
    if c:
        zero = next((k for k in c if k.startswith("fixed_vs_original_at_")), None)
        same = None if zero is None or c[zero] is None else not c[zero]
        rel = c.get("fixed_vs_reference_relative_error") or {}
        off = next((v for k, v in c.items() if k.startswith("original_off_reference_at_") and v), None)
        lines.append("  outputs: NaN original " + _counts(c.get("original_nan")) + ", fixed "
                     + _counts(c.get("fixed_nan")) + "; depend on the fill: original "
                     + (", ".join(c.get("original_fill_dependent") or []) or "no") + ", fixed "
                     + (", ".join(c.get("fixed_fill_dependent") or []) or "no")
                     + (f"; fixed == original at {zero[len('fixed_vs_original_at_'):]}"
                        f"{' in the other outputs' if off else ''}: {'yes' if same else 'no'}"
                        if same is not None and zero else "")
                     + ("; fixed vs reference: " + ", ".join(f"{k} {v:.4%} of max|ref|" for k, v in rel.items())
                        if rel else ""))
        if off:
            lines.append("  original off the reference (where it differs from the fixed tree): " + ", ".join(
                f"{k} {v['elements']} element(s), up to {v['max_original_error']:.4g} off" for k, v in sorted(off.items())))
    for reason in report.reasons:
        lines.append(f"  reason: {reason}")
    return "\n".join(lines)


def _counts(d: dict[str, int] | None) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in (d or {}).items()) + "}"
