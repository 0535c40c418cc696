"""A tensor of `n + 1` entries by the kernel's repeated word (`cols <= n` on both the load and the store
of an offsets array, `cols < n` on the data beside it): sized `n + 1`, its accesses are in bounds.
A single inclusive bound beside exclusive ones on the same offsets is a slip, and still overruns.

Before: every tensor was sized by the first bound of its offsets (`cols < n`), one entry short of the
offsets array, and its in-bounds accesses were falsely confirmed (fixture inclusive_bound's row_starts)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

SRC = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def shift_offsets(offs_ptr, vals_ptr, out_offs_ptr, out_vals_ptr, n, BLOCK: tl.constexpr):
        cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(vals_ptr + cols, mask=cols < n, other=0.0)
        tl.store(out_vals_ptr + cols, v, mask=cols < n)
        o = tl.load(offs_ptr + cols, mask=cols <= n, other=0)
        tl.store(out_offs_ptr + cols, o + 1, mask=cols <= n)


    @triton.jit
    def slipped(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
        cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = tl.load(a_ptr + cols, mask=cols <= n, other=0.0)
        b = tl.load(b_ptr + cols, mask=cols < n, other=0.0)
        tl.store(out_ptr + cols, a + b, mask=cols < n)
""")


def test_a_repeated_inclusive_bound_is_the_tensors_length() -> None:
    uses = Uses(extract(Path("offs.py"), SRC, "shift_offsets").kernel, {})
    assert uses.inclusive_ends("offs_ptr") == {"n"} and uses.inclusive_ends("out_offs_ptr") == {"n"}
    assert uses.inclusive_ends("vals_ptr") == set()
    assert Uses(extract(Path("offs.py"), SRC, "slipped").kernel, {}).inclusive_ends("a_ptr") == set()


def test_its_accesses_stay_unconfirmed_and_a_slip_is_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "offs.py"
    path.write_text(SRC)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    slip = next(d for d in checked.diagnostics if d.line == 17)
    w = witness(checked.path, checked.display, checked.text, slip, checked.launches, checked.flags, None,
                timeout=120)
    assert w.status == "confirmed", w.reason
    for line in (10, 11):  # the offsets array's load and store
        assert all(d.line != line for d in checked.diagnostics)
        look = Diagnostic("TL101", "look-alike", "not reported", str(path), line, 4, line, 4)
        w = witness(checked.path, checked.display, checked.text, look, checked.launches, checked.flags, None,
                    timeout=120)
        assert w.status != "confirmed", (line, w.reason)
