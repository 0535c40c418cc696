"""Rows picked by loaded indices (`row = tl.load(Ids + t * CHOICES + j)`, then `Table + row * dim`): the index
fill names rows 0 .. len(Ids) - 1, so the table holds that many rows (gathered_rows.py). Before, it held as
many rows as the loop over tokens bounds (`n_tok`, fewer than the ids), and the full-tile control read
rows past it: "out of bounds at full tiles too"."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def combine_choices(Table, Ids, Out, n_tok, dim, CHOICES: tl.constexpr, BLOCK: tl.constexpr):
        col = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        for t in range(0, n_tok):
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for j in range(0, CHOICES):
                row = tl.load(Ids + t * CHOICES + j)
                acc += tl.load(Table + row * dim + col)
            tl.store(Out + t * dim + col, acc, mask=col < dim)


    def combine(table, ids, n_tok):
        dim = table.shape[1]
        out = torch.empty(n_tok, dim, device=table.device)
        combine_choices[(triton.cdiv(dim, 32),)](table, ids, out, n_tok, dim, CHOICES=2, BLOCK=32)
        return out
""")


def test_the_gathered_table_holds_every_row_the_ids_name(tmp_path: Path) -> None:
    path = tmp_path / "combine_choices.py"
    path.write_text(KERNEL)
    w = witness_line(path, 13, "TL101")
    assert w.status == "confirmed", w.reason  # not-reproduced before: "out of bounds at full tiles too"
    assert w.launch is not None
    args = {a["name"]: a for a in w.launch["args"]}
    assert args["Table"]["numel"] >= args["Ids"]["numel"] * args["dim"]["value"], args
