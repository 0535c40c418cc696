"""The rewrites preserve what the kernels compute: original and rewritten fixtures run side by side.

Under Triton's interpreter (TRITON_INTERPRET=1) with tritonlint's bounds guard serving 0xff to
every out-of-bounds lane, each selected fixture's harness runs on the original tree and on every
rewrite of it. The outputs must be bitwise equal (NaN where the original has NaN), and the
out-of-bounds sites the same ones, at the lines the rewrite's line map gives. The rewrites keep the
order of every loop, so not even float rounding may differ.

Selection (to keep the run short): per rule folder, the first two fixtures with a harness whose
kernels loop over `range`; every rewrite that applies to them.
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


def _selected() -> list[matrix.Case]:
    picked: dict[str, list[matrix.Case]] = {}
    for case in matrix.cases():
        harness = f"{case.name}_harness.py"
        if harness in case.files and _LOOP.search(case.files[case.main]):
            picked.setdefault(case.rule, [])
            if len(picked[case.rule]) < 2:
                picked[case.rule].append(case)
    return [c for cases in picked.values() for c in cases]


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
    for case in CASES:
        harness = f"{case.name}_harness.py"
        tree = tmp / "original" / case.id
        matrix._write(tree, case.files)
        jobs.append({"key": f"{case.id}|original", "tree": str(tree), "harness": harness})
        ctx = R.Context(case.files, case.main)
        for name, rewrite in matrix.REWRITES.items():
            result = R.apply(rewrite, ctx)
            if result is None:
                continue
            tree = tmp / name / case.id
            matrix._write(tree, result.files)
            jobs.append({"key": f"{case.id}|{name}", "tree": str(tree), "harness": harness})
            maps[f"{case.id}|{name}"] = result
    procs = [_run(jobs[i::2], tmp, i) for i in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()[-3000:]
    out: dict[str, Any] = {}
    for i in range(2):
        out.update(torch.load(tmp / f"out{i}.pt", weights_only=False))
    return {"results": out, "maps": maps}


def _params() -> list[object]:
    return [pytest.param(case.id, name, id=f"{case.id}-{name}")
            for case in CASES for name in matrix.REWRITES]


def test_selection_is_not_empty() -> None:
    assert len(CASES) >= 6, [c.id for c in CASES]


@pytest.mark.parametrize(("case", "rewrite"), _params())
def test_rewrite_computes_the_same(runs: dict[str, Any], case: str, rewrite: str) -> None:
    key = f"{case}|{rewrite}"
    if key not in runs["maps"]:
        pytest.skip("the rewrite does not apply to this fixture")
    original, rewritten = runs["results"][f"{case}|original"], runs["results"][key]
    assert original["error"] is None, original["error"]
    assert rewritten["error"] is None, rewritten["error"]
    a, b = original["outputs"], rewritten["outputs"]
    assert a.keys() == b.keys()
    assert a, "the harness returned no outputs"
    for name in a:
        same = (a[name] == b[name]) | (torch.isnan(a[name]) & torch.isnan(b[name])) \
            if a[name].is_floating_point() else a[name] == b[name]
        assert a[name].shape == b[name].shape and bool(same.all()), f"output {name} differs"
    line_map: R.Rewritten = runs["maps"][key]
    expected = set()
    for file, line, kind, furthest, lanes in original["violations"]:
        places = line_map.map(file, line)
        assert places, f"no line for the out-of-bounds {kind} at {file}:{line}"
        expected.add(frozenset((f, n, kind, furthest, lanes) for f, n in places))
    got = {tuple(v) for v in rewritten["violations"]}
    # Each original out-of-bounds site is found at one of its mapped places, and nothing else.
    assert all(places & got for places in expected), (original["violations"], got)
    assert got <= set().union(*expected) if expected else not got, (original["violations"], got)
