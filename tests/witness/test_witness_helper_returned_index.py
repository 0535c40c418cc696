"""A page number a jit helper loads and returns (`slot = fetch(table + i)`) that moves the pointer a
second helper loads at (`fetch_tile(cache + slot * stride + offs)`) is an index: its table is integer.
Drawn as floats, negative pages ran before the start of the cache, and this safe load (the tile inside a
page is allocated whole) read as out of bounds."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def fetch(where):
        return tl.load(where)


    @triton.jit
    def fetch_tile(where):
        return tl.load(where)


    @triton.jit
    def paged_sum(cache, table, out, length, page_stride, PAGE: tl.constexpr):
        lanes = tl.arange(0, PAGE)
        total = tl.zeros([PAGE], dtype=tl.float32)
        for i in tl.range(0, length, PAGE):
            slot = fetch(table + i // PAGE).to(tl.int64)
            tile = fetch_tile(cache + slot * page_stride + lanes)
            total += tl.where(i + lanes < length, tile, 0.0)
        tl.store(out + lanes, total)
""")


def test_a_page_read_through_a_helper_is_an_integer_index(tmp_path: Path) -> None:
    path = tmp_path / "paged_sum.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0] if files else analysis.CheckedFile(path, str(path), KERNEL, (), {}, {})
    d = Diagnostic("TL101", "look-alike", "tl.load (not reported)", str(path), 12, 12, 12, 12)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    table = next(a for a in (w.launch or {})["args"] if a["name"] == "table")
    assert table["dtype"].startswith("int"), (table, w.reason)
    assert w.status != "confirmed", w.reason
