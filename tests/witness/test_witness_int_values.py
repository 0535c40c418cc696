"""Scalar parameters the synthesizer reads no size, stride or flag from are data (a float) unless the
kernel or host says they are integers: declared `tl.int64`/`tl.int32`, passed an int literal or a size
(`x.shape[0]`, `w.numel()`) by the host, or fed to integer-only arithmetic (`offs % rows`). Those launch as Python ints, never floats: a
float there turns the kernel's index arithmetic (`row * width + offs % rows`, stored as ids) into float
arithmetic the real launch never runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

from witness_cli import witness_json

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def pair_ids_kernel(out_ptr, w_ptr, n, rows: tl.int64, width: tl.int64, spare: tl.int32, groups, scale,
                        heads, total, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        row = offs // rows
        pair = row * width + offs % rows + (offs >> groups) + heads * total
        tl.store(out_ptr + 2 * offs, pair)
        tl.store(w_ptr + offs, tl.load(w_ptr + offs) * scale)


    def pair_ids(n, rows, width, groups, scale):
        out = torch.empty(2 * n, dtype=torch.int64)
        w = torch.ones(n)
        total = w.numel()
        pair_ids_kernel[(triton.cdiv(n, 64),)](out, w, n, rows, width, 0, groups, scale, out.shape[0], total,
                                               BLOCK=64)
        return out
""")


def test_integer_values_launch_as_ints_and_data_as_floats(tmp_path: Path) -> None:
    path = tmp_path / "pair_ids.py"
    path.write_text(KERNEL)
    found = [f for f in witness_json(path) if f["line"] == 13]
    assert found and found[0]["witness"]["status"] == "confirmed", found
    args = {a["name"]: a for a in found[0]["witness"]["launch"]["args"]}
    # Declared int64 / int32; shifted by; a shape the host passes, directly and through its local.
    for name in ("width", "spare", "groups", "heads", "total"):
        assert args[name]["kind"] == "int" and type(args[name]["value"]) is int, args[name]
    assert args["spare"]["value"] == 0, args["spare"]  # the host's literal
    assert args["scale"]["kind"] == "float", args["scale"]  # data: a product of loaded floats only
    # The reason shows each int at the value launched.
    assert "spare=0" in found[0]["witness"]["reason"], found[0]["witness"]["reason"]
