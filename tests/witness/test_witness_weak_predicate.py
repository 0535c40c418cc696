"""TL103 (a weak evenness predicate) is witnessed: the launch takes a size the predicate lets through
with a partial tile (`n % 8 == 0` with tiles of 32: n = 80), the flag takes the value the predicate
gives, and the even path's unmasked access goes out of bounds; the fix (a stronger predicate) takes the
masked path on the same launch and stays in bounds. Before, every TL103 was `cannot-synthesize` (a
host-side predicate). The sizes come from the rule's facts (`Diagnostic.facts`), not its words.

The TL101s such a predicate lets through need the same sizes, and two launches the synthesizer did not
build: a split walk (`pid_s * BLOCK + arange`, the loop stepping `BLOCK * SPLITS`: SPLITS programs on
that axis) and packed units (`offs < n // 2`: the buffer holds n // 2 bytes).
Kernels of our own, in the idioms of fixtures/weak-evenness-predicate/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.witness.witness_cli import witness_json
from tritonlint.witness.weak_predicates import WeakFacts, passing_sizes

KERNELS = '''
import torch
import triton
import triton.language as tl


@triton.heuristics({"FULL": lambda meta: meta["n"] % 8 == 0})
@triton.jit
def column_total(src, dst, n, TILE: tl.constexpr, FULL: tl.constexpr):
    acc = tl.zeros([TILE], dtype=tl.float32)
    for base in range(0, n, TILE):
        idx = base + tl.arange(0, TILE)
        if FULL:
            acc += tl.load(src + idx)
        else:
            acc += tl.load(src + idx, mask=idx < n, other=0.0)
    tl.store(dst, tl.sum(acc))


@triton.jit
def scaled_copy(src, dst, length, FULL: tl.constexpr, TILE: tl.constexpr):
    pid = tl.program_id(0)
    idx = pid * TILE + tl.arange(0, TILE)
    for step in range(0, tl.cdiv(length, TILE)):
        pos = step * TILE + tl.arange(0, TILE)
        if FULL:
            v = tl.load(src + pos)
        else:
            v = tl.load(src + pos, mask=pos < length, other=0.0)
        tl.store(dst + pos, v * 2.0, mask=pos < length)


def run_scaled_copy(a):
    out = torch.empty_like(a)
    total = a.numel()
    scaled_copy[(1,)](a, out, total, FULL=(total % 4 == 0), TILE=64)
    return out


@triton.heuristics({"FULL": lambda meta: meta["depth"] % meta["TILE"] == 0})
@triton.jit
def split_dot(a, b, out, rows, depth, row_stride, TILE: tl.constexpr, SPLITS: tl.constexpr,
              ROWS: tl.constexpr, FULL: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_s = tl.program_id(1)
    r = (pid_r * ROWS + tl.arange(0, ROWS)) % rows
    d = pid_s * TILE + tl.arange(0, TILE)
    pa = a + r[:, None] * row_stride + d[None, :]
    pb = b + d
    acc = tl.zeros((ROWS,), dtype=tl.float32)
    for i in range(0, tl.cdiv(depth, TILE * SPLITS)):
        if FULL:
            x = tl.load(pa)
            y = tl.load(pb)
        else:
            left = depth - i * (TILE * SPLITS)
            x = tl.load(pa, mask=d[None, :] < left, other=0.0)
            y = tl.load(pb, mask=d < left, other=0.0)
        acc += tl.sum(x * y[None, :], axis=1)
        pa += TILE * SPLITS
        pb += TILE * SPLITS
    tl.atomic_add(out + r, acc, mask=r < rows)


@triton.heuristics({"FULL": lambda meta: meta["count"] % meta["TILE"] == 0})
@triton.jit
def nibble_total(packed, dst, count, TILE: tl.constexpr, FULL: tl.constexpr):
    acc = tl.zeros([TILE], dtype=tl.float32)
    for j in range(0, count, 2 * TILE):
        idx = j // 2 + tl.arange(0, TILE)
        if FULL:
            byte = tl.load(packed + idx)
        else:
            byte = tl.load(packed + idx, mask=idx < count // 2, other=0)
        acc += (byte & 0xF).to(tl.float32) + (byte >> 4).to(tl.float32)
    tl.store(dst, tl.sum(acc))


@triton.jit
def halve(src, dst, length, FULL, TILE: tl.constexpr):
    for step in range(0, tl.cdiv(length, TILE)):
        pos = step * TILE + tl.arange(0, TILE)
        if FULL:
            v = tl.load(src + pos)
        else:
            v = tl.load(src + pos, mask=pos < length, other=0.0)
        tl.store(dst + pos, v * 0.5, mask=pos < length)


def run_halve(a):
    out = torch.empty_like(a)
    total = a.numel()
    halve[(1,)](a, out, total, total % 4 == 0, TILE=64)
    return out
'''


def _line(text: str, needle: str, after: str) -> int:
    lines = text.splitlines()
    start = next(i for i, t in enumerate(lines) if after in t)
    return next(i for i, t in enumerate(lines[start:], start + 1) if needle in t)


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """One witness run over the kernels, shared by the tests that read it."""
    path = tmp_path_factory.mktemp("weak") / "weak_kernels.py"
    path.write_text(KERNELS)
    return witness_json(path, "--select", "TL101,TL103", "--timeout", "120", "--emit-repro", str(path.parent / "repro"))


def _one(found: list[dict[str, Any]], code: str, line: int) -> dict[str, Any]:
    return next(d for d in found if d["code"] == code and d["line"] == line)


def test_weak_predicates_and_the_accesses_they_let_through_are_confirmed(found: list[dict[str, Any]]) -> None:
    text = KERNELS
    # The heuristics lambda: confirmed at a size it lets through, the fixed lambda validated.
    lam = _one(found, "TL103", _line(text, "@triton.heuristics", "import triton.language"))
    assert lam["witness"]["status"] == "confirmed", lam["witness"]["reason"]
    assert lam["witness"]["reason"].startswith("`n%8==0` holds at n="), lam["witness"]["reason"]
    assert "past the end of `src`" in lam["witness"]["reason"]
    n = lam["witness"]["launch"]["sizes"]["n"]
    assert n % 8 == 0 and n % 16, n  # the predicate holds, the tile (16, the witness's) is partial
    assert lam["fix"]["validation"]["status"] == "validated", lam["fix"]["validation"]
    # The launch's literal test: the flag passed as the predicate gives; the fix's flag, as its own gives.
    launch = _one(found, "TL103", _line(text, "FULL=(total % 4 == 0)", "def run_scaled_copy"))
    assert launch["witness"]["status"] == "confirmed", launch["witness"]["reason"]
    assert launch["witness"]["reason"].startswith("`length % 4 == 0` holds at length="), launch["witness"]["reason"]
    size = launch["witness"]["launch"]["sizes"]["length"]
    assert size % 4 == 0 and size % 64, size
    assert launch["fix"]["validation"]["status"] == "validated", launch["fix"]["validation"]
    # The flag passed as a plain bool (no constexpr): the fix's value travels as the int the launch passes.
    plain = _one(found, "TL103", _line(text, "total % 4 == 0, TILE=64", "def run_halve"))
    assert plain["witness"]["status"] == "confirmed", plain["witness"]["reason"]
    assert plain["fix"]["validation"]["status"] == "validated", plain["fix"]["validation"]


def test_a_split_walk_runs_one_program_per_part(found: list[dict[str, Any]]) -> None:
    text = KERNELS
    for needle in ("x = tl.load(pa)", "y = tl.load(pb)"):
        access = _one(found, "TL101", _line(text, needle, "def split_dot"))["witness"]
        assert access["status"] == "confirmed", access["reason"]  # not-reproduced before
        splits = next(a["value"] for a in access["launch"]["args"] if a["name"] == "SPLITS")
        assert access["launch"]["grid"][1] == splits, access["launch"]
    weak = _one(found, "TL103", _line(text, "@triton.heuristics", "def run_scaled_copy"))
    assert weak["witness"]["status"] == "confirmed", weak["witness"]["reason"]


def test_packed_units_are_sized_by_the_mask_that_halves_them(found: list[dict[str, Any]]) -> None:
    text = KERNELS
    access = _one(found, "TL101", _line(text, "byte = tl.load(packed + idx)", "def nibble_total"))["witness"]
    assert access["status"] == "confirmed", access["reason"]  # not-reproduced before: `packed` held count bytes
    count = access["launch"]["sizes"]["count"]
    packed = next(a for a in access["launch"]["args"] if a["name"] == "packed")
    assert packed["numel"] == count // 2, (packed, count)


def test_the_repro_script_watches_the_access_the_predicate_lets_through(found: list[dict[str, Any]],
                                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    line = _line(KERNELS, "@triton.heuristics", "import triton.language")
    assert _one(found, "TL103", line)["witness"]["status"] == "confirmed"
    repro_dir = next(p for p in tmp_path_factory.getbasetemp().glob("weak*/repro"))
    script = next(repro_dir.glob(f"*_{line}_TL103.py"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False,
                          cwd=repro_dir, env={**os.environ, "TRITON_INTERPRET": "1"})
    assert "past the end of `src`" in done.stdout, done.stdout + done.stderr[-2000:]


def test_passing_sizes_only_where_the_predicate_holds_and_the_tile_is_partial() -> None:
    weak = WeakFacts("k", "EVEN_K", "K", "BLOCK_K * SPLIT_K", "K % BLOCK_K == 0", "heuristics")
    sizes = passing_sizes(weak, {"BLOCK_K": 16, "SPLIT_K": 2})
    assert [s for s, _, _ in sizes] == [80, 48, 16]
    assert all(s % 16 == 0 and s % 32 and whole % 32 == 0 and whole > s for s, whole, _ in sizes)
    # A predicate that implies full tiles lets no partial size through; one that cannot be read, none.
    assert passing_sizes(WeakFacts("k", "F", "K", "BLOCK_K", "K % (2 * BLOCK_K) == 0", "launch"), {"BLOCK_K": 16}) == []
    assert passing_sizes(WeakFacts("k", "F", "K", "BLOCK_K", "f(K)", "launch"), {"BLOCK_K": 16}) == []


TILES = '''
import triton
import triton.language as tl


@triton.jit
def tile_sum(src, dst, size, WHOLE: tl.constexpr, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for t in range(0, tl.cdiv(size, BLOCK)):
        at = t * BLOCK + tl.arange(0, BLOCK)
        if WHOLE:
            acc += tl.load(src + at)
        else:
            acc += tl.load(src + at, mask=at < size, other=0.0)
    tl.store(dst, tl.sum(acc))
'''

HOST = '''
import torch

from tiles import tile_sum


def total(x):
    out = torch.empty(1, device=x.device)
    size = x.numel()
    tile_sum[(1,)](x, out, size, WHOLE=(size % 8 == 0), BLOCK=32)
    return out
'''


def test_a_predicate_in_another_module_is_run_at_the_access(tmp_path: Path) -> None:
    """The finding sits at the kernel's flag parameter (the predicate is in the launching module): the run
    watches the access it lets through, not the parameter's line."""
    (tmp_path / "tiles.py").write_text(TILES)
    (tmp_path / "host.py").write_text(HOST)
    found = witness_json(tmp_path / "tiles.py", "--select", "TL103", "--timeout", "120")
    weak = _one(found, "TL103", _line(TILES, "def tile_sum", "import triton.language"))["witness"]
    assert weak["status"] == "confirmed", weak["reason"]
    assert weak["reason"].startswith("`size % 8 == 0` holds at size="), weak["reason"]
