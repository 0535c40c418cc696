"""Launches written by hand (scripts/fix_harnesses): judged by the witness's own runs and verdicts,
and padded rows read zeros past their valid prefix."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness_launches
from tritonlint.witness.synth import Arg, Launch

SPLIT_ROWS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def split_rows(Bias, Out, V: tl.constexpr, K: tl.constexpr, BM: tl.constexpr):
        blk = tl.program_id(0)
        rows = tl.program_id(1) * BM + tl.arange(0, BM)
        cols = tl.arange(0, K)
        is_bias = rows < V
        bias = tl.load(Bias + rows[:, None] * K + cols[None, :], mask=is_bias[:, None], other=0.0)
        acc = tl.where(is_bias[:, None], bias, 1.0)
        tl.store(Out + blk * (V + K) * K + rows[:, None] * K + cols[None, :], acc)
""")


def _launch(v: int, rows: int) -> Launch:
    k, blocks = 16, 2
    args = [Arg("Bias", "tensor", numel=v * k), Arg("Out", "tensor", numel=blocks * (v + k) * k, fill="zeros"),
            Arg("V", "constexpr", value=v), Arg("K", "constexpr", value=k), Arg("BM", "constexpr", value=16)]
    return Launch("split_rows", args, [blocks, -(-rows // 16)], "V", {"V": v}, f"V={v}")


def test_hand_launches_judge_a_fix_by_the_witness_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "split_rows.py"
    path.write_text(SPLIT_ROWS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 13)
    pairs = [(_launch(24, 40), _launch(32, 48))]
    # The tensor's own extent (`V + K` rows): the stray tail writes are gone, every owner's write kept.
    right = SPLIT_ROWS.replace("cols[None, :], acc)", "cols[None, :], acc, mask=rows[:, None] < V + K)")
    w = witness_launches(path, checked.text, d, pairs, right, timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.validation is not None and w.validation["status"] == "validated", w.validation


COPY = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def copy(X, Y, N: tl.constexpr):
        i = tl.arange(0, N)
        tl.store(Y + i, tl.load(X + i).to(tl.float32))
""")

RUN = textwrap.dedent("""\
    import json, sys
    from pathlib import Path
    import torch
    from tritonlint.witness.child import run_job
    job = json.loads(Path(sys.argv[1]).read_text())
    run_job(job, Path(sys.argv[2]))
    print(torch.load(Path(sys.argv[2]) / "outputs0.pt")["Y"].tolist())
""")


def test_padded_rows_read_zeros_past_their_valid_prefix(tmp_path: Path) -> None:
    (tmp_path / "copy.py").write_text(COPY)
    x = Arg("X", "tensor", numel=16, dtype="float8_e4m3fn", fill="e8m0", pad=(8, 5)).to_dict()
    launch = {"kernel": "copy", "grid": [1], "module": str(tmp_path / "copy.py"), "label": "",
              "args": [x, Arg("Y", "tensor", numel=16, fill="zeros").to_dict(), Arg("N", "constexpr", value=16).to_dict()]}
    (tmp_path / "job.json").write_text(json.dumps({"launches": [launch], "fill": 0}))
    (tmp_path / "out").mkdir()
    done = subprocess.run([sys.executable, "-c", RUN, str(tmp_path / "job.json"), str(tmp_path / "out")],
                          capture_output=True, text=True, env={**os.environ, "TRITON_INTERPRET": "1"}, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    y = json.loads(done.stdout.strip().splitlines()[-1])
    assert [v == 0 for v in y] == [False] * 5 + [True] * 3 + [False] * 5 + [True] * 3, y
