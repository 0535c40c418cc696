"""TL105's identity run sets the masked-off lanes to the identity where the named reduction reads them,
not only at the load: lanes loaded as the identity (`other=0.0` before a sum) that the arithmetic between
turns into data (`x - mean`), or a running max that never saw a real lane (`exp(-inf - -inf)`), change
the result, and a run that only fixes them at the load shows nothing."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.reduction_lanes import reduction_line
from tritonlint.witness.runner import witness

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def centered_energy(X, E, n, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + row * stride + offs, mask=offs < n, other=0.0)
        centered = x - tl.sum(x, axis=0) / n
        tl.store(E + row, tl.sum(centered * centered, axis=0))


    @triton.jit
    def tiled_lse(X, L, n, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        run_max = tl.full([BLOCK], float("-inf"), tl.float32)
        run_sum = tl.zeros([BLOCK], tl.float32)
        for start in range(0, n, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            x = tl.load(X + row * stride + offs, mask=offs < n, other=float("-inf"))
            new_max = tl.maximum(run_max, x)
            run_sum = run_sum * tl.exp(run_max - new_max) + tl.exp(x - new_max)
            run_max = new_max
        top = tl.max(run_max, axis=0)
        tl.store(L + row, top + tl.log(tl.sum(run_sum * tl.exp(run_max - top), axis=0)))
""")


@pytest.mark.parametrize("line", [9, 21])
def test_lanes_that_become_data_after_the_load_are_confirmed(tmp_path: Path, line: int) -> None:
    path = tmp_path / "reductions.py"
    path.write_text(KERNELS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line and d.code == "TL105")
    # The rule names the reduction as data, the line its message words (`reach `tl.sum` at line N`).
    assert f"at line {reduction_line(d)} " in d.message, (d.facts, d.message)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    # not-reproduced before ("outputs equal the run with the masked-off lanes set to ..."): the load
    # already filled them with the identity
    assert w.status == "confirmed", w.reason
    assert w.second_run is not None and w.second_run.get("reduce_line") is not None


def test_the_repro_script_shows_the_difference(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from tritonlint.witness.repro import emit

    path = tmp_path / "reductions.py"
    path.write_text(KERNELS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 9 and d.code == "TL105")
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    (tmp_path / "repro").mkdir()
    script = emit(tmp_path / "repro", checked.display, d, w) if w.status == "confirmed" else None
    assert script is not None, w.reason
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]  # 0 ("do not depend") without the carried patch
    assert "differs from the run" in done.stdout
