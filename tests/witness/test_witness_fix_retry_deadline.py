"""A fix that only the larger-tile retry can judge: its verdict must not depend on the machine's load.

The pattern of the Hopper MXFP4 scale load's fix: a mask in 64-lane groups (`(k + offs) // 64 * 64 < K`,
a layout that holds K rounded up to 64 lanes). At the witness's first guessed tile (16, K = 40) that mask
lets the tail's lanes through and the fix fails; at tiles of 128 (K = 320, a multiple of 64) it validates.
Before: the retry at 128 shared the finding's deadline with the attempts before it, so on a loaded
machine it did not run (or ran out of time) and the fix came back `failed`."""

from __future__ import annotations

import dataclasses
import textwrap
import time
import types
from pathlib import Path
from typing import Any

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis, fix_retry, runner

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_sums(x_ptr, out_ptr, K, stride_xm, BLOCK_K: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            acc += tl.load(x_ptr + row * stride_xm + k + offs)
        tl.store(out_ptr + row, tl.sum(acc, 0))
""")
# The fix as the layout's owner would write it: the mask counts whole 64-lane groups.
FIXED = KERNEL.replace("acc += tl.load(x_ptr + row * stride_xm + k + offs)",
                       "acc += tl.load(x_ptr + row * stride_xm + k + offs, mask=(k + offs) // 64 * 64 < K, other=0.0)")
TIMEOUT = 60.0


def _witness(tmp_path: Path) -> runner.Witness:
    path = tmp_path / "row_sums.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 11)
    return runner.witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, FIXED,
                          timeout=TIMEOUT)


def test_the_fix_validates_at_the_retry_on_a_quiet_machine(tmp_path: Path) -> None:
    w = _witness(tmp_path)
    assert w.status == "confirmed", w.reason
    assert (w.validation or {}).get("status") == "validated", w.validation
    assert "the fix failed" in w.reason  # the first tile's failure is said


def _slow_first_attempts(monkeypatch: Any) -> None:
    """A clock that jumps past the finding's whole deadline once the first attempt returns: the attempts
    before the fix's retry took all the time, as they do on a loaded machine."""
    jump = {"seconds": 0.0}
    clock = types.SimpleNamespace(monotonic=lambda: time.monotonic() + jump["seconds"])
    monkeypatch.setattr(runner, "time", clock)
    monkeypatch.setattr(fix_retry, "time", clock)
    real_run = runner._run

    def run(*args: Any, **kwargs: Any) -> runner.Witness:
        result = real_run(*args, **kwargs)
        jump["seconds"] = jump["seconds"] or TIMEOUT + 1
        return result

    monkeypatch.setattr(runner, "_run", run)


def test_the_retry_has_its_own_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _slow_first_attempts(monkeypatch)
    w = _witness(tmp_path)
    assert w.status == "confirmed", w.reason
    assert (w.validation or {}).get("status") == "validated", w.validation


def test_a_retry_out_of_time_leaves_the_fix_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_child = runner._child
    calls = {"n": 0}

    def child(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:  # the first attempt runs; every run after it is killed at its time limit
            return real_child(*args, **kwargs)
        return f"{fix_retry.OUT_OF_TIME} {TIMEOUT:g} s"

    monkeypatch.setattr(runner, "_child", child)
    w = _witness(tmp_path)
    assert w.status == "confirmed", w.reason
    assert (w.validation or {}).get("status") == "not-run", w.validation
    assert (w.validation or {}).get("reason", "").startswith("out of time"), w.validation


def test_a_slow_synthesis_does_not_shorten_the_first_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction and synthesis take seconds more on a loaded machine (15 s for flash attention's forward
    kernel at load 13): the finding's time counts from its first run, which gets all of it."""
    jump = {"seconds": 0.0}
    clock = types.SimpleNamespace(monotonic=lambda: time.monotonic() + jump["seconds"])
    monkeypatch.setattr(runner, "time", clock)
    real_synthesize = runner.synthesize

    def slow_synthesize(*args: Any, **kwargs: Any) -> Any:
        jump["seconds"] += TIMEOUT - 2  # the static work ate nearly the whole per-finding time
        return real_synthesize(*args, **kwargs)

    limits: list[float] = []
    real_child = runner._child

    def child(job: Any, workdir: Path, fill: int, timeout: float) -> Any:
        limits.append(timeout)
        return real_child(job, workdir, fill, timeout)

    monkeypatch.setattr(runner, "synthesize", slow_synthesize)
    monkeypatch.setattr(runner, "_child", child)
    _witness(tmp_path)
    assert limits and limits[0] > TIMEOUT - 5, limits


def test_a_padded_row_validation_out_of_time_leaves_the_fix_not_run(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain fix (`k + offs < K`): the original's over-read lands in the next row, inside the tensor, so
    the outputs differ and only the run on padded rows can settle the fix. That run out of time: not-run."""
    path = tmp_path / "row_sums.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 11)
    real_child = runner._child
    calls = {"n": 0}

    def child(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return real_child(*args, **kwargs) if calls["n"] == 1 else f"{fix_retry.OUT_OF_TIME} {TIMEOUT:g} s"

    monkeypatch.setattr(runner, "_child", child)
    w = runner.witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                       analysis.fixed_text(checked.text, d), timeout=TIMEOUT)
    assert w.status == "confirmed", w.reason
    assert calls["n"] == 2  # the first run, then the padded-row validation
    assert (w.validation or {}).get("status") == "not-run", w.validation
    assert "padded rows" in (w.validation or {}).get("reason", ""), w.validation
