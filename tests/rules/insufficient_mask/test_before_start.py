"""TL104's start reading beyond the fixture (fixtures/insufficient-mask/before_start.py): the shapes a
shift below the start takes, and the bound each fix adds.

A name for the shifted offsets (`prev = offs - 1`), a row above in a 2-D tile (`(rows - 1) * stride`),
a loop whose first tile starts at 0, and a store moved down by a run-time scalar are each reported,
with the lower bound the shift asks for; a shift up, a walk downwards, offsets clamped at 0, a loop
counting down from an unknown start and a mask that bounds the shifted offsets are not."""

from __future__ import annotations

from tritonlint.config import Config
from tritonlint.engine import check_source, fix_source
from tritonlint.frontend_check import frontend_rejections

KERNELS = '''
import triton
import triton.language as tl


@triton.jit
def named_previous(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    prev = offs - 1
    a = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    b = tl.load(x_ptr + prev, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, a - b, mask=offs < n)


@triton.jit
def row_above(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    up = tl.load(x_ptr + (rows[:, None] - 1) * stride_m + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows[:, None] * stride_m + cols[None, :], up, mask=mask)


@triton.jit
def looped_shift(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        prev = tl.load(x_ptr + offs - 2, mask=offs < n, other=0.0)
        tl.store(out_ptr + offs, prev, mask=offs < n)


@triton.jit
def halo_store(x_ptr, out_ptr, n, halo, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs - halo, x, mask=offs < n)


@triton.jit
def shifted_up(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs + 2 - 1, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def reversed_walk(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + n - 1 - offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def clamped(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + tl.maximum(offs - 1, 0), mask=offs < n, other=0.0)
    b = tl.load(x_ptr + tl.where(offs > 0, offs - 1, 0), mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, a + b, mask=offs < n)


@triton.jit
def counted_down(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    for start in range(n - BLOCK, -1, -BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs - 1, mask=offs < n, other=0.0)
        tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def window_inside(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs - 1, mask=(offs - 1 >= 0) & (offs < n), other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)
'''

# line -> the bound the fix adds to the mask
EXPECTED = {
    11: "prev >= 0",
    20: "rows[:, None] >= 1",
    28: "offs >= 2",
    36: "offs >= halo",
}


def _report() -> dict[int, str]:
    every_rule = Config(select=frozenset({"TL"}))
    report = check_source("start.py", KERNELS, every_rule, strict=True)
    return {d.line: d.message for d in report.diagnostics if d.code == "TL104"}


def test_each_shift_below_the_start_is_reported_with_its_bound() -> None:
    found = _report()
    assert set(found) == set(EXPECTED), found
    for line, bound in EXPECTED.items():
        assert f"no `{bound}`" in found[line], found[line]


def test_the_fix_adds_the_lower_bound_to_the_mask() -> None:
    fixed = fix_source("start.py", KERNELS, Config(select=frozenset({"TL104"})), unsafe=True, strict=True)
    assert not fixed.errors, fixed.errors
    text = fixed.fixed_text
    assert text is not None
    # Triton's frontend lowers every fixed kernel, as `check --fix` has it do before writing.
    assert frontend_rejections([("start.py", KERNELS, text)]) == {}
    for bound in EXPECTED.values():
        assert f"({bound})" in text, bound
    # Fixed, nothing is left to report.
    assert not check_source("start.py", text, Config(select=frozenset({"TL104"})), strict=True).diagnostics


HELPER = '''
import triton
import triton.language as tl


@triton.jit
def load_previous(ptr, offs, mask):
    return tl.load(ptr + offs - 1, mask=mask, other=0)


@triton.jit
def lengths_guarded(cu_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    here = tl.load(cu_ptr + offs, mask=mask, other=0)
    before = load_previous(cu_ptr, offs, mask & (offs > 0))
    tl.store(out_ptr + offs, here - before, mask=mask)
'''

UNGUARDED_CALLER = '''

@triton.jit
def lengths(cu_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    here = tl.load(cu_ptr + offs, mask=mask, other=0)
    before = tl.where(offs == 0, 0, load_previous(cu_ptr, offs, mask))
    tl.store(out_ptr + offs, here - before, mask=mask)
'''


def test_a_helper_is_judged_with_the_mask_each_call_passes() -> None:
    every_rule = Config(select=frozenset({"TL"}))
    guarded = check_source("helper.py", HELPER, every_rule, strict=True)
    assert not guarded.diagnostics, [d.message for d in guarded.diagnostics]
    both = check_source("helper.py", HELPER + UNGUARDED_CALLER, every_rule, strict=True)
    assert [(d.code, d.line) for d in both.diagnostics] == [("TL104", 8)]
