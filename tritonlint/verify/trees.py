"""The trees a verification runs: copies, the production fixer, diffs into fixes, and line maps."""

from __future__ import annotations

import ast
import difflib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from tritonlint.verify.records import Fix, VerifyError

IGNORE = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache",
                                ".ruff_cache", ".tox", ".venv")
ACCESS_TOKENS = ("load(", "store(", "atomic_")
# The package root to put on a child's path, so `-m tritonlint...` resolves to this copy of it.
PKG_PARENT = str(Path(__file__).resolve().parents[2])

Fixer = Callable[[Path, Path], None]  # (copy of root, path inside it to fix)
Opcode = tuple[str, int, int, int, int]  # difflib's (tag, i1, i2, j1, j2)
LineMaps = dict[str, list[Opcode]]  # per changed file, the opcodes from the original to a tree
AstCache = dict[Path, ast.Module | None]


def cli_fixer(copy_root: Path, target: Path) -> None:
    """The production fixer: `tritonlint check --fix --unsafe-fixes` on the copy, as a subprocess.
    Without its frontend check: verify judges every fix the fixer makes, by compiling and running it."""
    cmd = [sys.executable, "-m", "tritonlint", "check", "--fix", "--unsafe-fixes", "--no-frontend-check", str(target)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (PKG_PARENT, env.get("PYTHONPATH")) if x)
    proc = subprocess.run(cmd, cwd=copy_root, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    # 0: nothing left to report, 1: findings remain (display-only ones, say); both mean it ran.
    # A Python traceback exits 1 as well: it is a failure, not "findings remain".
    if proc.returncode not in (0, 1) or "Traceback (most recent call last)" in proc.stderr:
        raise VerifyError(f"fixer failed (exit {proc.returncode}): {' '.join(cmd)}\n"
                          f"{(proc.stderr or proc.stdout)[-4000:]}")


def copy_tree(root: Path, dest: Path) -> None:
    """A copy of the import root, without caches and version control, links kept as links."""
    shutil.copytree(root, dest, ignore=IGNORE, symlinks=True)


def _py_files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in root.rglob("*.py") if p.is_file()}


def _lines(path: Path) -> list[str]:
    return path.read_text(errors="replace").splitlines(keepends=True)


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    return [(tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in
            difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()]


def _changed_files(orig: Path, fixed: Path) -> Iterable[tuple[str, list[str], list[str], Path]]:
    """(relative path, original lines, fixed lines, fixed file) of every .py file that differs."""
    a_files, b_files = _py_files(orig), _py_files(fixed)
    for rel in sorted(set(a_files) & set(b_files)):
        a, b = _lines(a_files[rel]), _lines(b_files[rel])
        if a != b:
            yield rel, a, b, b_files[rel]


def _has_access(lines: list[str]) -> bool:
    return any(t in line for line in lines for t in ACCESS_TOKENS)


def _group_hunks(a: list[str], b: list[str], hunks: list[Opcode]) -> list[list[Opcode]]:
    """Hunks grouped into fixes: a hunk that only adds mask definitions is support for the next hunk
    that edits an access (the upstream fix's `if EVEN_K: ... else: ...` block before its load).

    A group never spans an unchanged access or a top-level definition boundary: two predicate fixes
    on two kernels' decorators are two fixes, not one region swallowing the first kernel's body
    (its own loads and stores, which no fix touched). Support hunks not followed by an access hunk
    in their scope are fixes of their own.
    """
    pending: list[Opcode] = []
    groups: list[list[Opcode]] = []

    def flush() -> None:
        groups.extend([h] for h in pending)
        pending.clear()

    for h in hunks:
        if pending and _splits(a, pending[-1], h):
            flush()
        pending.append(h)
        if _has_access(a[h[1]:h[2]] + b[h[3]:h[4]]):
            groups.append(list(pending))
            pending.clear()
    flush()
    return groups


def _splits(a: list[str], before: Opcode, after: Opcode) -> bool:
    """Whether the unchanged original lines between two hunks hold an access or start a new
    top-level statement (a line at column 0 that is not a comment: `def`, a decorator, ...)."""
    gap = a[before[2]:after[1]]
    return _has_access(gap) or any(line[:1] not in ("", " ", "\t", "\n", "\r", "#") for line in gap)


def diff_trees(orig: Path, fixed: Path) -> tuple[list[Fix], LineMaps]:
    """Changed regions (as Fix) and, per changed file, the difflib opcodes for line mapping."""
    fixes: list[Fix] = []
    opcodes: LineMaps = {}
    for rel, a, b, _ in _changed_files(orig, fixed):
        ops = opcodes[rel] = _opcodes(a, b)
        for g in _group_hunks(a, b, [op for op in ops if op[0] != "equal"]):
            i1, i2 = min(h[1] for h in g), max(h[2] for h in g)
            j1, j2 = min(h[3] for h in g), max(h[4] for h in g)
            diff = "".join(difflib.unified_diff(a[i1:i2], b[j1:j2], f"a/{rel}", f"b/{rel}", n=0))
            fixes.append(Fix(rel, (i1 + 1, i2), (j1 + 1, j2), diff))
    return fixes, opcodes


def line_maps(orig: Path, tree: Path) -> LineMaps:
    """Per file that differs, the opcodes from the original to `tree` (see map_fixed_line)."""
    return {rel: _opcodes(a, b) for rel, a, b, _ in _changed_files(orig, tree)}


def keep_only(orig: Path, fixed: Path, selected: dict[str, set[int]]) -> list[str]:
    """Revert every changed region of the fixed tree except those that touch a selected original
    line; returns the kept `file:line`s. Every selection must meet a fix, and every file touched
    must still compile: otherwise VerifyError, and nothing is verified."""
    kept: list[str] = []
    for rel, a, b, path in list(_changed_files(orig, fixed)):
        lines = selected.get(rel, set())
        out: list[str] = []
        for tag, i1, i2, j1, j2 in _line_by_line(_opcodes(a, b)):
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
        path.write_text(text)
    missing = sorted(f"{rel}:{line}" for rel, lines in selected.items() for line in lines
                     if f"{rel}:{line}" not in kept)
    if missing:
        raise VerifyError(f"--only: no fix at {', '.join(missing)}")
    return kept


def without_fix(orig: Path, fixed: Path, dest: Path, fixes: list[Fix], left_out: Fix) -> None:
    """Write into `dest` (a copy of the fixed tree) the fixed tree with one fix reverted.

    Every other fix stays applied, so a run of `dest` goes out of bounds only where `left_out`
    would have prevented it: what it sees belongs to that fix, and a fault at another fix's line
    (which would stop a memcheck run first) cannot hide it. The fixes of a file partition its
    changed lines in order, so the file is the equal stretches between them, each fix's region
    taken from one side or the other.
    """
    a = _lines(orig / left_out.path)
    b = _lines(fixed / left_out.path)
    out: list[str] = []
    cursor = 0
    for f in sorted((f for f in fixes if f.path == left_out.path), key=lambda f: f.orig_lines[0]):
        i1, i2 = f.orig_lines[0] - 1, f.orig_lines[1]
        j1, j2 = f.fixed_lines[0] - 1, f.fixed_lines[1]
        out.extend(a[cursor:i1])
        out.extend(a[i1:i2] if f is left_out else b[j1:j2])
        cursor = i2
    out.extend(a[cursor:])
    (dest / left_out.path).write_text("".join(out))


def _line_by_line(ops: list[Opcode]) -> list[Opcode]:
    """A replacement of n lines by n lines is n one-line replacements: adjacent fixed calls are
    separate fixes (a fix that wraps a call over more lines stays one region)."""
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "replace" and i2 - i1 == j2 - j1:
            out.extend(("replace", i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) for k in range(i2 - i1))
        else:
            out.append((tag, i1, i2, j1, j2))
    return out


def map_fixed_line(ops: list[Opcode] | None, line: int) -> int | None:
    """Original line of an unchanged line of another tree (None when it lies in a changed region)."""
    if ops is None:
        return line
    j = line - 1
    for tag, i1, _i2, j1, j2 in ops:
        if j1 <= j < j2:
            return i1 + (j - j1) + 1 if tag == "equal" else None
    return None


def _parsed(path: Path, cache: AstCache) -> ast.Module | None:
    if path not in cache:
        try:
            cache[path] = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, OSError):
            cache[path] = None
    return cache[path]


def call_span(path: Path, line: int, cache: AstCache) -> tuple[int, int]:
    """Lines of the load/store call starting at `line` (a multi-line call spans several)."""
    tree = _parsed(path, cache)
    best = (line, line)
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.lineno == line and node.end_lineno:
                name = ast.unparse(node.func)
                if any(t.rstrip("(") in name for t in ACCESS_TOKENS):
                    best = (line, max(best[1], node.end_lineno))
    return best


def defining_file(tree: Path, kernel: str) -> str | None:
    """The one file in the tree that defines `def kernel(` (a generated kernel's source text)."""
    pattern = re.compile(rf"^\s*def {re.escape(kernel)}\(", re.MULTILINE)
    found = [str(p) for p in sorted(tree.rglob("*.py"))
             if pattern.search(p.read_text(errors="replace"))]
    return found[0] if len(found) == 1 else None


def find_line(path: Path, src: list[str], i: int) -> int | None:
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


def only_fix_in_kernel(fixes: list[Fix], path: Path, rel: str, kernel: str, kind: str,
                       cache: AstCache, tensor: str | None = None) -> Fix | None:
    """The one fix of a `kind` access inside `kernel`'s body, for a site known only by kernel.

    A memcheck report without line information, or a pad written past, names the kernel and
    the tensor, not the line: it is attributed only when a single fix could be the one. A tensor
    the kernel's accesses name rules out the fixes whose pointer is not built from it (a pad
    written past `Out` is not the fix of a store through `M + offs`, when another, unfixed store
    of the kernel writes through `Out`).
    """
    tree = _parsed(path, cache)
    if tree is None:
        return None
    token = {"load": "load(", "store": "store("}.get(kind, "atomic_")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel and node.end_lineno:
            inside = [f for f in fixes if f.path == rel and node.lineno <= f.orig_lines[0] <= node.end_lineno
                      and token in f.diff]
            if tensor and len(inside) == 1:
                bases = _access_bases(node)
                fix_lines = range(inside[0].orig_lines[0], max(inside[0].orig_lines) + 1)
                if any(tensor in names for names in bases.values()) and not any(
                        tensor in names for line, names in bases.items() if line in fix_lines):
                    return None
            return inside[0] if len(inside) == 1 else None
    return None


def _access_bases(kernel: ast.FunctionDef) -> dict[int, set[str]]:
    """Per line of a `tl.load`/`tl.store`/atomic call in the kernel: the names its pointer is built
    from, through the kernel's assignments (`m_ptrs = M + offs` -> {m_ptrs, M, offs})."""
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(kernel):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assigned.setdefault(name.id, []).append(node.value)

    def names(expr: ast.expr) -> set[str]:
        seen: set[str] = set()
        todo = [expr]
        while todo:
            for n in ast.walk(todo.pop()):
                if isinstance(n, ast.Name) and n.id not in seen:
                    seen.add(n.id)
                    todo.extend(assigned.get(n.id, ()))
        return seen

    out: dict[int, set[str]] = {}
    for node in ast.walk(kernel):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and (
                node.func.attr in ("load", "store") or node.func.attr.startswith("atomic_")):
            out.setdefault(node.lineno, set()).update(names(node.args[0]))
    return out


def edits_an_access(path: Path, lines: tuple[int, int]) -> bool:
    """Whether the original lines a fix rewrites hold a `tl.load` or `tl.store` call."""
    try:
        text = path.read_text().splitlines()
    except OSError:
        return True
    return any(re.search(r"\btl\.(load|store)\s*\(", line) for line in text[min(lines) - 1:max(lines)])


def fix_conditions(path: Path, lines: set[int]) -> dict[int, list[str]]:
    """`COND` of each `None if COND else ...` in the statements holding the given lines of a fixed
    file (line -> conds), on every line of such a statement: a fix laid out one argument per line
    puts the pointer on one line and `mask=None if F else m` on another, and the compiled access
    carries the pointer's line. Lines without one are absent."""
    try:
        source = path.read_text(errors="replace")
        tree = ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return {}
    text = source.splitlines()
    out: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        # Simple statements only: a compound one (`if`, `for`) would spread a condition over its body.
        if not isinstance(node, ast.stmt) or hasattr(node, "body") or node.end_lineno is None:
            continue
        span = range(node.lineno, node.end_lineno + 1)
        if not lines.intersection(span):
            continue
        found = re.findall(r"\bNone\s+if\s+(.+?)\s+else\b", "\n".join(text[node.lineno - 1:node.end_lineno]))
        if found:
            for ln in span:
                out[ln] = found
    return out
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.end_lineno is None or node.end_lineno == node.lineno:
            continue
        span = range(node.lineno, node.end_lineno + 1)
        if not lines.intersection(span):
            continue
        segment = "\n".join(text[node.lineno - 1:node.end_lineno])
        found = re.findall(r"\bNone\s+if\s+(.+?)\s+else\b", segment)
        if found:
            for ln in span:
                out.setdefault(ln, [])
                out[ln].extend(c for c in found if c not in out[ln])
    return out
