"""The metamorphic matrix: every fixture under every rewrite, checked, compared with the original's findings."""

from __future__ import annotations

import concurrent.futures
import contextlib
import io
import json
import multiprocessing
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import rewrites as R

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

REWRITES: dict[str, R.Rewrite] = {
    "loop_reversed": R.loop_reversed,
    "loop_tile_counted": R.loop_tile_counted,
    "loop_strided": R.loop_strided,
    "loop_tl_range": R.loop_tl_range,
    "loop_while": R.loop_while,
    "helper_same_module": R.helper_same_module,
    "helper_other_module": R.helper_other_module,
    "jit_by_assignment": R.jit_by_assignment,
    "rename": R.rename,
    "flag_name_before_launch": R.flag_name_before_launch,
    "flag_by_heuristics": R.flag_by_heuristics,
    "tiles_by_autotune": R.tiles_by_autotune,
    "block_pointer": R.block_pointer,
    "block_pointer_unmasked": R.block_pointer_unmasked,
}


@dataclass
class Case:
    """One fixture with the modules that travel with it (its harness, the folder's `_*.py`)."""

    rule: str
    name: str
    files: dict[str, str]

    @property
    def id(self) -> str:
        return f"{self.rule}/{self.name}"

    @property
    def main(self) -> str:
        return f"{self.name}.py"


def cases(root: Path = FIXTURES) -> list[Case]:
    found = []
    for path in sorted(root.glob("*/*.py")):
        name = path.name
        if name.startswith("_") or name.endswith(("_harness.py", ".fixed.py")):
            continue
        files = {name: path.read_text()}
        harness = path.with_name(f"{path.stem}_harness.py")
        if harness.exists():
            files[harness.name] = harness.read_text()
        for shared in path.parent.glob("_*.py"):
            files[shared.name] = shared.read_text()
        found.append(Case(path.parent.name, path.stem, files))
    return found


Finding = tuple[str, int, str]  # (file, line, code)


@dataclass
class Cell:
    case: str
    rewrite: str
    status: str  # "holds", "breaks", "n/a"
    why: str = ""
    rewritten: R.Rewritten | None = field(default=None, repr=False)


def _write(tree: Path, files: dict[str, str]) -> None:
    tree.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tree / name).write_text(text)


def check_tree(root: Path) -> dict[str, set[Finding]]:
    """Findings of `tritonlint check` over `root` (in-process), by the case folder they fall in."""
    from tritonlint.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", "--no-cache", "--exit-zero", "--quiet", "--output-format", "json", str(root)])
    found: dict[str, set[Finding]] = {}

    def add(path: str, line: int, code: str) -> None:
        rel = Path(path).resolve().relative_to(root.resolve())
        found.setdefault(rel.parent.as_posix(), set()).add((rel.name, line, code))

    # A rule that crashes on a file is reported on stderr (and exits 2): a cell result too.
    crashes = 0
    for match in _CRASH.finditer(err.getvalue()):
        add(match.group("path"), int(match.group("line")), "CRASH")
        crashes += 1
    if code != 0 and not crashes:
        raise RuntimeError(f"tritonlint check exited {code}: {err.getvalue()[-2000:]}")
    for d in json.loads(out.getvalue() or "[]"):
        add(d["filename"] if "filename" in d else d["path"], int(d["line"]), d["code"])
    return found


_CRASH = re.compile(r"^tritonlint: (?P<path>/[^\n:]+\.py):(?P<line>\d+): internal error", re.MULTILINE)


def compare(before: set[Finding], after: set[Finding], rewritten: R.Rewritten) -> str:
    """'' when every finding is where the line map says, with its code, and nothing else; else what changed."""
    problems = []
    explained: set[Finding] = set()
    for file, line, code in sorted(before):
        places = rewritten.map(file, line)
        hits = {(f, ln, code) for f, ln in places} & after
        if not places:
            problems.append(f"{code} at {file}:{line} has no mapped line")
        elif not hits:
            where = ", ".join(f"{f}:{ln}" for f, ln in places)
            problems.append(f"{code} at {line} lost (expected at {where})")
        explained |= hits
    for file, line, code in sorted(after - explained):
        problems.append(f"new {code} at {file}:{line}")
    return "; ".join(problems)


def _rewrite_case(job: tuple[Case, list[tuple[str, R.Rewrite]]]) -> list[tuple[str, R.Rewritten | str | None]]:
    """Every named rewrite of one case: the result, None (n/a) or the error a rewrite raised."""
    case, named = job
    ctx = R.Context(case.files, case.main)
    row: list[tuple[str, R.Rewritten | str | None]] = []
    for name, rewrite in named:
        try:
            row.append((name, R.apply(rewrite, ctx)))
        except Exception as error:  # noqa: BLE001 - a rewrite that crashes is shown in its cell
            row.append((name, f"rewrite crashed: {error!r}"))
    return row


def run(selected: Sequence[Case] | None = None, rewrites: dict[str, R.Rewrite] | None = None,
        keep: Path | None = None, workers: int = 2) -> list[Cell]:
    """Every (case, rewrite) cell: rewrite, check the original and rewritten trees once, compare."""
    selected = list(selected if selected is not None else cases())
    rewrites = rewrites if rewrites is not None else REWRITES
    tmp = Path(tempfile.mkdtemp(prefix="metamorphic-")) if keep is None else keep
    cells: list[Cell] = []
    try:
        for case in selected:
            _write(tmp / "original" / case.id, case.files)
        named = list(rewrites.items())
        jobs = [(case, named) for case in selected]
        # Rewriting is libcst work (parse, transform, print): spread it over the cores.
        with concurrent.futures.ProcessPoolExecutor(max(1, min(workers, len(jobs))),
                                                    mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_rewrite_case, jobs, chunksize=4))
        for case, row in zip(selected, results):
            for rname, outcome in row:
                if isinstance(outcome, str):
                    cells.append(Cell(case.id, rname, "breaks", outcome))
                elif outcome is None:
                    cells.append(Cell(case.id, rname, "n/a"))
                else:
                    _write(tmp / rname / case.id, outcome.files)
                    cells.append(Cell(case.id, rname, "", rewritten=outcome))
        found = check_tree(tmp)
        for cell in cells:
            if cell.status:
                continue
            assert cell.rewritten is not None
            before = found.get(f"original/{cell.case}", set())
            after = found.get(f"{cell.rewrite}/{cell.case}", set())
            why = compare(before, after, cell.rewritten)
            cell.status, cell.why = ("breaks", why) if why else ("holds", "")
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return cells


def share(cells: Sequence[Cell]) -> tuple[int, int]:
    applicable = [c for c in cells if c.status != "n/a"]
    return sum(c.status == "holds" for c in applicable), len(applicable)


def render(cells: Sequence[Cell]) -> str:
    """The matrix as text: one row per fixture ('.' holds, 'X' breaks, '-' n/a), then each break."""
    names = list(dict.fromkeys(c.rewrite for c in cells))
    rows = list(dict.fromkeys(c.case for c in cells))
    by = {(c.case, c.rewrite): c for c in cells}
    width = max(len(r) for r in rows) + 2
    lines = ["columns: " + ", ".join(f"{i + 1}={n}" for i, n in enumerate(names))]
    lines.append(" " * width + " ".join(f"{i + 1:>2}" for i in range(len(names))))
    mark = {"holds": ".", "breaks": "X", "n/a": "-"}
    for row in rows:
        lines.append(row.ljust(width) + " ".join(f"{mark[by[(row, n)].status]:>2}" for n in names))
    lines.append("")
    for n in names:
        col = [by[(r, n)] for r in rows]
        held, applicable = share(col)
        lines.append(f"{n}: {held}/{applicable} hold, {len(col) - applicable} n/a")
    lines.append("")
    for c in cells:
        if c.status == "breaks":
            lines.append(f"BREAKS {c.case} x {c.rewrite}: {c.why}")
    held, applicable = share(cells)
    pct = 100.0 * held / applicable if applicable else 100.0
    lines.append(f"\n{held} of {applicable} applicable cells hold ({pct:.1f} %); "
                 f"{len(cells) - applicable} cells n/a")
    return "\n".join(lines)


# Why a cell breaks, by rewrite and by what changed: the text recorded beside each known break.
_REASONS = {
    ("loop_reversed", "lost"): "a loop counted down (`for r in range(b - a, 0, -s)`, `k = b - r`) is not read as a tile walk",
    ("loop_reversed", "new"): "a loop counted down is not read as a tile walk, so what bounds its last tile is not seen",
    ("loop_while", "lost"): "a `while k < b: ... k += s` tile loop is not read as a tile walk",
    ("loop_while", "new"): "a `while` tile loop is not read as a tile walk, so what bounds its last tile is not seen",
    ("loop_tile_counted", "lost"): "a loop counted in tiles (`range(0, tl.cdiv(b - a, s))`, `k = a + i * s`) is not read like the strided loop it replaces",
    ("loop_tile_counted", "new"): "a loop counted in tiles is not read like the strided loop it replaces: a guard of the original is lost",
    ("loop_strided", "lost"): "a strided loop with `k = o // s` is not read like the tile-counted loop it replaces",
    ("loop_strided", "new"): "a strided loop with `k = o // s` is not read like the tile-counted loop it replaces: a guard is lost",
    ("loop_tl_range", "lost"): "`tl.range` is not read like `range`",
    ("loop_tl_range", "new"): "`tl.range` is not read like `range`",
    ("helper_same_module", "lost"): "the access in a same-module jit helper is not judged with its caller's tiles and flags",
    ("helper_same_module", "new"): "a mask, `other=` or guard passed to a same-module jit helper as an argument is not seen in it (false alarm)",
    ("helper_other_module", "lost"): "a kernel's own file does not read the jit helpers it imports: what their "
                                     "accesses say (a flag's requirement, a sibling's bound) is not seen there",
    ("helper_other_module", "new"): "a kernel's own file does not read the jit helpers it imports: a guard in them "
                                    "is not seen there",
    ("jit_by_assignment", "lost"): "a kernel jitted by assignment (`f = triton.jit(f)`, decorators applied as calls) is not fully read",
    ("jit_by_assignment", "new"): "a kernel jitted by assignment is not fully read",
    ("rename", "lost"): "with meaningless names the flag or tile is no longer recognised: the finding depended on a name",
    ("rename", "new"): "with meaningless names a guard is no longer recognised: it depended on a name",
}


def reason(cell: Cell) -> str:
    if "CRASH" in cell.why:
        return f"the analysis crashes on this form ({cell.why})"
    kind = "lost" if ("lost" in cell.why or "no mapped line" in cell.why) else "new"
    return _REASONS.get((cell.rewrite, kind), cell.why)


def known_breaks_source(cells: Sequence[Cell]) -> str:
    """The cells that break now, as the Python dict test_metamorphic.py keeps (one line each)."""
    lines = ["KNOWN_BREAKS: dict[tuple[str, str], str] = {"]
    for c in cells:
        if c.status == "breaks":
            lines.append(f"    ({c.case!r}, {c.rewrite!r}):\n        {reason(c)!r},")
    lines.append("}")
    return "\n".join(lines)


def check_tree_cases(selected: Sequence[Case]) -> dict[str, set[Finding]]:
    """Findings of the original cases only, keyed by case id."""
    tmp = Path(tempfile.mkdtemp(prefix="metamorphic-"))
    try:
        for case in selected:
            _write(tmp / case.id, case.files)
        return check_tree(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
