"""A kernel that waits at a grid barrier (a helper spinning on an atomic counter until every program
has arrived) never returns under the interpreter, which runs programs one after another: the run
ended at the timeout, an `error`. It is `cannot-synthesize` at once now, with the reason. A lock
(`atomic_cas`) or a wait for an earlier program's flag, which the interpreter's order passes, is no
such barrier."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import jit_functions
from tritonlint.witness.runner import witness
from tritonlint.witness.spin_wait import spin_wait

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def _all_arrive(arrived, expected):
        tl.atomic_add(arrived, 1, sem="acq_rel")
        while tl.atomic_add(arrived, 0, sem="acq_rel") < expected:
            pass


    @triton.jit
    def two_phase_rows(X, Tmp, Out, Arrived, n_rows, n_programs, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        for start in range(pid * BLOCK, n_rows, n_programs * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            tl.store(Tmp + offs, tl.load(X + offs, mask=offs < n_rows, other=0.0) * 2.0, mask=offs < n_rows)
        _all_arrive(Arrived, n_programs)
        for start in range(pid * BLOCK, n_rows, n_programs * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            other = tl.load(Tmp + n_rows - 1 - offs, mask=offs < n_rows, other=0.0)
            tl.store(Out + offs, tl.load(Tmp + offs) + other, mask=offs < n_rows)
""")

LOCKED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def locked_sum(X, Total, Lock, Flags, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        part = tl.sum(tl.load(X + offs, mask=offs < n, other=0.0))
        while tl.atomic_cas(Lock, 0, 1) == 1:
            pass
        tl.store(Total, tl.load(Total) + part)
        tl.atomic_xchg(Lock, 0)
        if pid > 0:
            while tl.load(Flags + pid - 1, volatile=True) == 0:
                pass
        tl.store(Flags + pid, 1)
""")


def test_a_grid_barrier_is_not_launched(tmp_path: Path) -> None:
    path = tmp_path / "two_phase_rows.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 22)  # `tl.load(Tmp + offs)`, unmasked
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=10)
    # Before: `error`, "the run took longer than ..." at the timeout.
    assert w.status == "cannot-synthesize", w.reason
    assert "`_all_arrive`, line 8" in w.reason and "grid barrier" in w.reason, w.reason


def test_locks_and_earlier_flags_are_no_barrier() -> None:
    kernels = jit_functions(ast.parse(LOCKED))
    assert spin_wait(kernels["locked_sum"], kernels) is None
    barrier = jit_functions(ast.parse(KERNEL))
    assert spin_wait(barrier["two_phase_rows"], barrier) == "`_all_arrive`, line 8"
