"""A size a kernel's loop counts one by one (`for t in range(0, T):`, a token an iteration) gets two when it
is not the finding's axis: every iteration runs its body's tensor operations in Python under the
interpreter, and at the default size (32) a recurrent kernel's launches took the finding's whole time
limit (vLLM's `fused_sigmoid_gating`). A segment length the loop counts (`T = eos - bos`, both read from
the boundaries) is shortened the same way; a loop stepping by a tile keeps its size."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from witness_cli import witness_json

from tritonlint.witness.loop_counts import loop_counted

SCAN = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def decay_scan(X, W, Out, T, K: tl.constexpr, BK: tl.constexpr):
        row = tl.program_id(0)
        o_k = tl.arange(0, BK)
        p_x = X + row * T * K + o_k
        p_o = Out + row * T * K + o_k
        h = tl.zeros([BK], dtype=tl.float32)
        for t in range(0, T):
            x = tl.load(p_x, mask=o_k < K, other=0.0)
            w = tl.load(W + o_k)
            h = h * w + x
            tl.store(p_o, h, mask=o_k < K)
            p_x += K
            p_o += K


    def scan(x, w):
        b, t, k = x.shape
        out = torch.empty_like(x)
        decay_scan[(b,)](x, w, out, t, K=k, BK=triton.next_power_of_2(k))
        return out
""")


def test_a_one_by_one_loop_count_gets_two_iterations(tmp_path: Path) -> None:
    path = tmp_path / "scan.py"
    path.write_text(SCAN)
    witnessed = witness_json(path)
    found = [f for f in witnessed if f["line"] == 15]
    assert len(found) == 1, witnessed
    w = found[0]["witness"]
    assert w["status"] == "confirmed", w
    assert w["evidence"]["shape"]["T"] == 2, w["evidence"]["shape"]


def test_segment_lengths_and_tile_loops() -> None:
    fn = ast.parse(textwrap.dedent("""\
        def k(S, X, T, N, BLOCK):
            bos, eos = tl.load(S + i), tl.load(S + i + 1)
            T = eos - bos
            for t in range(0, T):
                pass
            for start in range(0, N, BLOCK):
                pass
    """)).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert loop_counted(fn, {"T", "N"}, {"S": "len(S segment)"}) == {"T", "len(S segment)"}
