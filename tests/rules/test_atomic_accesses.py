"""Read-modify-write atomics (`tl.atomic_add` and kin) write the lanes they reach as a store does: a
tail tile they overrun is TL102, named by the real call, fixed with the `mask=` they take.
`tl.atomic_cas` takes no mask: its finding offers no fix.

The histogram kernel was a recall gap (bugs11's tests/rules/test_recall_gaps.py): the same kernel
was TL102 with `tl.store` and reported nothing with `tl.atomic_add`; the FlagGems radix sort's
digit histogram (2 bins, a 16-wide bin tile) has this shape.
"""

from __future__ import annotations

import pytest

from tritonlint.config import Config
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source, fix_source
from tritonlint.frontend_check import frontend_rejections, triton_importable

HISTOGRAM = '''
import triton
import triton.language as tl


@triton.jit
def digit_histogram_kernel(keys_ptr, hist_ptr, n, n_bins, BLOCK: tl.constexpr, BIN_TILE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    keys = tl.load(keys_ptr + offs, mask=offs < n, other=0)
    for b0 in range(0, n_bins, BIN_TILE):
        bins = b0 + tl.arange(0, BIN_TILE)
        counts = tl.sum((keys[:, None] == bins[None, :]).to(tl.int32), axis=0)
        tl.{access}
'''
HISTOGRAM_ACCESS_LINE = 14
POINTER = "hist_ptr + pid * n_bins + bins"
EVERY_RULE = Config(select=frozenset({"TL"}))  # what `--select ALL` selects

WRITING_ATOMICS = ["atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg"]


def _kernel(access: str) -> str:
    return HISTOGRAM.format(access=access)


def _findings(text: str) -> list[Diagnostic]:
    report = check_source("atomics.py", text, EVERY_RULE, strict=True)
    assert not report.errors and not report.crashes, (report.errors, report.crashes)
    return [d for d in report.diagnostics if d.line == HISTOGRAM_ACCESS_LINE]


def test_histogram_store_past_the_bins_is_reported() -> None:
    found = _findings(_kernel(f"store({POINTER}, counts)"))
    assert [d.code for d in found] == ["TL102"]
    assert found[0].message.startswith("tl.store can write past the end")  # the store's message is kept


@pytest.mark.parametrize("member", WRITING_ATOMICS)
def test_an_atomic_past_the_bins_is_reported_by_its_name(member: str) -> None:
    found = _findings(_kernel(f"{member}({POINTER}, counts)"))
    assert [d.code for d in found] == ["TL102"]
    assert found[0].message.startswith(f"tl.{member} can write past the end of the tensor")


@pytest.mark.parametrize("call", [f"atomic_add({POINTER}, counts, mask=bins < n_bins)",
                                  f"atomic_add({POINTER}, counts, bins < n_bins, 'relaxed')",
                                  f"atomic_max({POINTER}, val=counts, mask=bins < n_bins, sem='relaxed')"])
def test_a_masked_atomic_is_not_reported(call: str) -> None:
    assert _findings(_kernel(call)) == []


def test_the_semantics_given_by_position_are_no_mask() -> None:
    # atomic_add(pointer, val, mask, sem, scope): the fourth argument is `sem`, not a store's boundary_check.
    found = _findings(_kernel(f"atomic_add({POINTER}, counts, None, 'relaxed', 'gpu')"))
    assert [d.code for d in found] == ["TL102"]


def test_the_fix_adds_the_mask_the_atomic_takes() -> None:
    text = _kernel(f'atomic_add({POINTER}, counts, sem="relaxed")')
    fixed = fix_source("atomics.py", text, EVERY_RULE, unsafe=False, strict=True).fixed_text
    assert fixed is not None
    assert 'sem="relaxed", mask=bins < n_bins' in fixed
    assert _findings(fixed) == []


@pytest.mark.skipif(not triton_importable(), reason="the frontend check needs triton")
def test_the_fixed_atomic_passes_triton_frontend() -> None:
    text = _kernel(f'atomic_add({POINTER}, counts, sem="relaxed")')
    fixed = fix_source("atomics.py", text, EVERY_RULE, unsafe=False, strict=True).fixed_text
    assert fixed is not None
    assert frontend_rejections([("atomics.py", text, fixed)]) == {}


def test_a_compare_and_swap_is_reported_without_a_fix() -> None:
    text = _kernel(f"atomic_cas({POINTER}, counts, counts + 1)")
    found = _findings(text)
    assert [d.code for d in found] == ["TL102"]
    assert found[0].message.startswith("tl.atomic_cas can write past the end")
    assert found[0].fix is None or not found[0].fix.edits
    assert "takes no mask" in (found[0].fix.title if found[0].fix else "")
    assert fix_source("atomics.py", text, EVERY_RULE, unsafe=True, strict=True).fixed_text in (None, text)


# A group tile rounded up to a power of two, masked by the tensor's end only: the padding lanes of
# each group add into the next group's sums (TL104's "group" shape), an atomic as a store.
GROUP_SUMS = '''
import triton
import triton.language as tl


@triton.jit
def accumulate_group_sums(X, Sums, n, group_size, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    offs = g * group_size + cols
    x = tl.load(X + offs, mask=(offs < n) & (cols < group_size), other=0.0)
    tl.atomic_add(Sums + offs, x * x, mask=offs < n)


def accumulate(x, sums, group_size):
    n = x.numel()
    accumulate_group_sums[(triton.cdiv(n, group_size),)](x, sums, n, group_size,
                                                         BLOCK=triton.next_power_of_2(group_size))
'''
GROUP_SUMS_ATOMIC_LINE = 12


def test_an_atomic_masked_by_the_end_only_over_a_padded_group_is_insufficient() -> None:
    report = check_source("atomics.py", GROUP_SUMS, EVERY_RULE, strict=True)
    found = [d for d in report.diagnostics if d.line == GROUP_SUMS_ATOMIC_LINE]
    assert [d.code for d in found] == ["TL104"], [(d.line, d.code, d.message) for d in report.diagnostics]
    assert found[0].message.startswith("the mask of tl.atomic_add bounds `offs` by the tensor's end only")
