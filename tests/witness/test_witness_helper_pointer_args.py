"""Pointers handed to jit helpers: the argument spells what the helper reaches.

- a helper that loads its pointer as given (`fetch(W + k + offs)`: `return tl.load(p)`) reads what the
  argument spells, so the tensor is sized by it (the K the loop walks), and the unmasked tail is seen;
- a helper that returns what it loads (`slot = lookup(table + i)`) hands back an index when the
  caller puts it into a pointer, even one handed to another helper (`fetch(pool + slot * stride + d)`):
  the table holds indices, not random floats (which, cast to int64, land before the pool's start).

Before: a pointer reached only through helpers was sized 1 element (its hazard then overran at full
tiles too, and was never confirmed), and its index table was filled with floats (fixture
helper_loaded_index)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

TAIL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def fetch(p):
        return tl.load(p)


    @triton.jit
    def weighted_rows(X, W, Y, K, stride, TILE: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, TILE)
        acc = tl.zeros([TILE], dtype=tl.float32)
        for k in range(0, K, TILE):
            x = tl.load(X + row * stride + k + offs, mask=k + offs < K, other=0.0)
            acc += x * fetch(W + k + offs)
        tl.store(Y + row, tl.sum(acc, axis=0))
""")

GATHER = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def fetch(p):
        return tl.load(p)


    @triton.jit
    def lookup(p):
        return tl.load(p)


    @triton.jit
    def gather_slots(pool, table, out, n, stride_slot, D: tl.constexpr):
        d = tl.arange(0, D)
        acc = tl.zeros([D], dtype=tl.float32)
        for i in range(0, n):
            slot = lookup(table + i).to(tl.int64)
            acc += fetch(pool + slot * stride_slot + d)
        tl.store(out + d, acc)
""")


def _checked(tmp_path: Path, source: str) -> analysis.CheckedFile:
    path = tmp_path / "helper_args.py"
    path.write_text(source)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    # A file with no finding has no entry: its accesses are witnessed as look-alikes, with no launch site.
    return files[0] if files else analysis.CheckedFile(path, str(path), source, (), {}, {})


def _witness(checked: analysis.CheckedFile, d: Diagnostic) -> tuple[str, str, dict[str, Any]]:
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120,
                flag_tiles=checked.flag_tiles)
    return w.status, w.reason, w.launch or {}


def test_the_tail_read_through_a_helper_is_confirmed(tmp_path: Path) -> None:
    checked = _checked(tmp_path, TAIL)
    hazard = next(d for d in checked.diagnostics if d.line == 7)
    status, reason, _launch = _witness(checked, hazard)
    assert status == "confirmed", reason
    assert "past the end of `W`" in reason


def test_an_index_returned_by_a_helper_stays_in_the_pool(tmp_path: Path) -> None:
    checked = _checked(tmp_path, GATHER)
    assert all(d.line != 7 for d in checked.diagnostics)
    look = Diagnostic("TL101", "look-alike", "not reported", checked.display, 7, 12, 7, 12)
    status, reason, launch = _witness(checked, look)
    assert status != "confirmed", reason
    table = next(a for a in launch["args"] if a["name"] == "table")
    assert table["fill"] == "index", table
    assert reason.startswith("stayed in bounds"), reason  # a launch that matches the kernel's indexing
