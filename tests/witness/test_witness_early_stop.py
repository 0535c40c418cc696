"""A job stops at the first step that settles the finding: the candidate (one the callers allow) runs out
of bounds at the flagged access and its full-tile control stays in bounds. The parent takes that step and
no later one, and each launch of a recurrent kernel costs seconds under the interpreter (a per-token loop):
running the other candidates only spent the time limit (vLLM's `fused_sigmoid_gating` timed out so)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis, runner

SRC = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def row_scale(X, Out, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + row * n_cols + offs)
        tl.store(Out + row * n_cols + offs, x * 2.0, mask=offs < n_cols)


    def scale(x):
        rows, n = x.shape
        out = torch.empty_like(x)
        row_scale[(rows,)](x, out, n, BLOCK=triton.next_power_of_2(n))
        return out
""")


def test_the_job_ends_at_the_first_step_that_shows_the_finding(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "scale.py"
    path.write_text(SRC)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    load = next(d for d in checked.diagnostics if d.line == 10)
    seen: list[tuple[int, int]] = []  # (launches in the job, results that came back)
    real_child = runner._child

    def spy(job: Any, workdir: Path, fill: int, timeout: float) -> Any:
        results = real_child(job, workdir, fill, timeout)
        seen.append((len(job.launches), len(results) if isinstance(results, list) else -1))
        return results

    monkeypatch.setattr(runner, "_child", spy)
    w = runner.witness(path, str(path), SRC, load, checked.launches, checked.flags, None, timeout=120)
    assert w.status == "confirmed", w.reason
    assert seen and seen[0][0] == 6, seen  # three candidates, each with its control
    # The first (two tiles and a half, n_cols past BLOCK) stays in bounds; the second (a row shorter than
    # its block) shows the over-read, and the third never runs.
    assert seen[0][1] == 4, seen
    assert "n_cols=8" in w.reason, w.reason
