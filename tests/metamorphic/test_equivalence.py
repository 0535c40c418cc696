"""The rewrites preserve what the kernels compute: original and rewritten fixtures run side by side.

Under Triton's interpreter (TRITON_INTERPRET=1) with tritonlint's bounds guard serving 0xff to
every out-of-bounds lane, each selected fixture's harness runs on the original tree and on every
rewrite of it. The outputs must be bitwise equal (NaN where the original has NaN), and the
out-of-bounds sites the same ones, at the lines the rewrite's line map gives. The rewrites keep the
order of every loop, so not even float rounding may differ.

Selection (to keep the run short): per rule folder, the first two fixtures with a harness whose
kernels loop over `range` (the first two with a harness where none loops), every rewrite that
applies to them, and for a rewrite that applies to none of them the first fixture with a harness
where it applies.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

sys.path.insert(0, str(Path(__file__).resolve().parent))

import matrix
import rewrites as R

RUNNER = Path(__file__).resolve().parent / "_interpret.py"
_LOOP = re.compile(r"^\s+for \w+ in range\(", re.MULTILINE)


def _with_harness() -> list[matrix.Case]:
    return [c for c in matrix.cases() if f"{c.name}_harness.py" in c.files]


def _selected() -> list[matrix.Case]:
    by_rule: dict[str, list[matrix.Case]] = {}
    for case in _with_harness():
        by_rule.setdefault(case.rule, []).append(case)
    picked = []
    for cases in by_rule.values():
        looping = [c for c in cases if _LOOP.search(c.files[c.main])]
        picked.extend((looping or cases)[:2])
    return picked


CASES = _selected()


def _run(jobs: list[dict[str, str]], tmp: Path, index: int) -> subprocess.Popen[bytes]:
    spec = tmp / f"jobs{index}.json"
    spec.write_text(json.dumps(jobs))
    return subprocess.Popen([sys.executable, str(RUNNER), str(spec), str(tmp / f"out{index}.pt")],
                            cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    """Every (case, rewrite) run, original included, in two interpreter processes."""
    tmp = Path(tempfile.mkdtemp(prefix="metamorphic-eq-"))
    jobs: list[dict[str, str]] = []
    maps: dict[str, R.Rewritten] = {}
    def add(case: matrix.Case, names: list[str]) -> set[str]:
        harness = f"{case.name}_harness.py"
        ctx = R.Context(case.files, case.main)
        applied = set()
        for name in names:
            result = R.apply(matrix.REWRITES[name], ctx)
            if result is None:
                continue
            tree = tmp / name / case.id
            matrix._write(tree, result.files)
            jobs.append({"key": f"{case.id}|{name}", "tree": str(tree), "harness": harness})
            maps[f"{case.id}|{name}"] = result
            applied.add(name)
        if applied:
            tree = tmp / "original" / case.id
            matrix._write(tree, case.files)
            jobs.append({"key": f"{case.id}|original", "tree": str(tree), "harness": harness})
        return applied

    covered: set[str] = set()
    for case in CASES:
        covered |= add(case, list(matrix.REWRITES))
    for case in _with_harness():
        missing = [n for n in matrix.REWRITES if n not in covered]
        if not missing:
            break
        if case not in CASES:
            covered |= add(case, missing)
    procs = [_run(jobs[i::2], tmp, i) for i in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()[-3000:]
    out: dict[str, Any] = {}
    for i in range(2):
        out.update(torch.load(tmp / f"out{i}.pt", weights_only=False))
    return {"results": out, "maps": maps}


def _params() -> list[object]:
    return [pytest.param(name, id=name) for name in matrix.REWRITES]


def test_selection_is_not_empty() -> None:
    assert len(CASES) >= 8, [c.id for c in CASES]


@pytest.mark.parametrize("rewrite", _params())
def test_rewrite_computes_the_same(runs: dict[str, Any], rewrite: str) -> None:
    keys = sorted(k for k in runs["maps"] if k.endswith(f"|{rewrite}"))
    assert keys, f"{rewrite} applies to no fixture with a harness"
    problems = [f"{key}: {why}" for key in keys if (why := _differs(runs, key))]
    assert not problems, "\n".join(problems)


def _differs(runs: dict[str, Any], key: str) -> str:
    """'' when the rewritten run matches the original's, else what differs."""
    case = key.split("|")[0]
    original, rewritten = runs["results"][f"{case}|original"], runs["results"][key]
    if original["error"] or rewritten["error"]:
        return f"a harness failed: {original['error'] or rewritten['error']}"
    a, b = original["outputs"], rewritten["outputs"]
    if not a or a.keys() != b.keys():
        return f"outputs {sorted(a)} vs {sorted(b)}"
    for name in a:
        if a[name].shape != b[name].shape:
            return f"output {name}: shape {tuple(a[name].shape)} vs {tuple(b[name].shape)}"
        same = (a[name] == b[name]) | (torch.isnan(a[name]) & torch.isnan(b[name])) \
            if a[name].is_floating_point() else a[name] == b[name]
        if not bool(same.all()):
            return f"output {name} differs"
    line_map: R.Rewritten = runs["maps"][key]
    expected = []
    for file, line, kind, furthest, lanes in original["violations"]:
        places = line_map.map(file, line)
        if not places:
            return f"no line for the out-of-bounds {kind} at {file}:{line}"
        expected.append({(f, n, kind, furthest, lanes) for f, n in places})
    got = {tuple(v) for v in rewritten["violations"]}
    # Each original out-of-bounds site is found at one of its mapped places, and nothing else.
    if not all(places & got for places in expected) or not got <= set().union(*expected):
        return f"out-of-bounds sites {original['violations']} became {sorted(got)}"
    return ""
