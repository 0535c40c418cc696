"""scripts/inject_bugs.py, the recall measure on injected bugs: each injection breaks exactly the access
it names and nothing else, and the whole loop (inject, check, judge by the witness) counts a bug the
checker reports as found and a bug it misses as missed.

The kernel is written for this test: a row max over a partial tile, one load and one store masked.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "inject_bugs.py"

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_max(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs,
                    mask=offs < n,  # the tail tile
                    other=float("-inf"))
        tl.store(Y + tl.program_id(0), tl.max(x, axis=0))
        tl.store(X + offs, x + 1.0, mask=offs < n)


    def launch(x):
        y = x.new_empty(triton.cdiv(x.numel(), 64))
        row_max[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
        return y
""")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("inject_bugs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["inject_bugs"] = module
    spec.loader.exec_module(module)
    return module


def _call_at(text: str, line: int) -> ast.Call:
    return next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call) and n.lineno == line
                and isinstance(n.func, ast.Attribute) and n.func.attr in ("load", "store"))


def test_each_injection_breaks_only_its_access_and_keeps_every_line_in_place() -> None:
    inject = _script()
    made = inject.injections(KERNEL, "k.py", reported=set())
    assert sorted((i.kind, i.line) for i in made) == [
        ("drop-mask", 8), ("drop-mask", 12), ("drop-other", 8), ("other-zero", 8), ("weaken-mask", 8),
        ("weaken-mask", 12)]
    for i in made:
        assert len(i.text.splitlines()) == len(KERNEL.splitlines()), i.kind
        changed = [n for n, (a, b) in enumerate(zip(KERNEL.splitlines(), i.text.splitlines()), 1) if a != b]
        assert set(changed) <= set(range(i.line, i.end_line + 1)), (i.kind, changed)
        call = _call_at(i.text, i.line)
        keywords = {k.arg: ast.unparse(k.value) for k in call.keywords}
        if i.kind == "drop-mask":
            assert "mask" not in keywords and "other" not in keywords
        elif i.kind == "weaken-mask":
            assert keywords["mask"] == "offs <= n"
        elif i.kind == "drop-other":
            assert keywords == {"mask": "offs < n"}
        else:
            assert keywords["other"] == "0.0"
    # An access a finding already covers is left alone: it is not a correct access to break.
    assert {i.line for i in inject.injections(KERNEL, "k.py", reported={9})} == {12}


@pytest.mark.slow
def test_a_reported_injection_counts_as_found_and_a_missed_one_as_missed(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    inject = _script()
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "k.py").write_text(KERNEL)
    rows = inject.run_package(package, per_package=1, kinds={"drop-mask", "other-zero"}, timeout=60.0, seed=0)
    by_kind = {(r["kind"], r["line"]): r for r in rows}
    json.dumps(rows)  # what --json writes
    # `other=0.0` beside a max: TL105 reads it as the author's word on the range (not reported), and
    # the witness's negative data shows the max changed: a confirmed miss.
    zero = by_kind[("other-zero", 8)]
    assert zero["status"] == "confirmed" and zero["reported"] == []
    dropped = [r for r in rows if r["kind"] == "drop-mask"]
    assert len(dropped) == 1
    assert dropped[0]["status"] == "confirmed"
    assert dropped[0]["reported"] == [dropped[0]["expected"]]
