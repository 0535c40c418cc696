"""Out-of-bounds forms the checker does not report yet, each beside a control it does report.

Kernels of our own, in the patterns of real bugs (docs/bugs-found.md, eleventh session). Each gap
is a strict xfail: when the analysis learns the form, the test passes, pytest reports XPASS as a
failure, and the marker must go (and a fixture under fixtures/ take its place).
"""

from __future__ import annotations

import pytest

from tritonlint.config import Config
from tritonlint.engine import check_source

# A histogram over bins tiled by BIN_TILE: whenever n_bins is not a multiple of BIN_TILE (2 bins,
# a 16-wide tile), the last tile's lanes past n_bins reach past the end of `hist`. The FlagGems
# radix sort's histogram kernel has this shape for bool keys (2 bins, TILE_R = 16): with a store
# it is TL102 (the Enflame gcu300 copy, docs/bugs-found.md); with `tl.atomic_add` (the generic
# kernel and four backends' copies) nothing is reported, though the atomic writes past the end
# just the same.
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
        tl.{access}(hist_ptr + pid * n_bins + bins, counts)
'''
HISTOGRAM_ACCESS_LINE = 14

# The previous element of each lane, `cu[i - 1]`, with lane 0 replaced by 0 through `tl.where`:
# `tl.where` is a select, both arms run, so lane 0 (active under `offs < n`) loads `cu[-1]`, one
# element before the tensor (vllm-ascend issue #16275, a production fault). No kernel of our
# corpus has the vector form. (`cu[i + 1]` under the same mask is no control: a tensor of n + 1
# offsets, `cu_seqlens`, makes it right, and the checker rightly stays quiet on it.)
PREVIOUS_ELEMENT = '''
import triton
import triton.language as tl


@triton.jit
def segment_lengths_kernel(cu_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    here = tl.load(cu_ptr + offs, mask=mask, other=0)
    other = tl.where(offs == 0, 0, tl.load(cu_ptr + offs - 1, mask=mask, other=0))
    tl.store(out_ptr + offs, here - other, mask=mask)
'''
PREVIOUS_ELEMENT_LOAD_LINE = 11


def _flagged_lines(text: str) -> set[int]:
    every_rule = Config(select=frozenset({"TL"}))  # what `--select ALL` selects
    report = check_source("gap.py", text, every_rule, strict=True)
    return {d.line for d in report.diagnostics}


def test_histogram_store_past_the_bins_is_reported() -> None:
    assert HISTOGRAM_ACCESS_LINE in _flagged_lines(HISTOGRAM.format(access="store"))


@pytest.mark.xfail(strict=True, reason="recall gap: tl.atomic_* accesses are not judged for tail tiles")
def test_histogram_atomic_add_past_the_bins_is_reported() -> None:
    assert HISTOGRAM_ACCESS_LINE in _flagged_lines(HISTOGRAM.format(access="atomic_add"))


@pytest.mark.xfail(strict=True, reason="recall gap: a lane that reads before the tensor's start is not judged")
def test_previous_element_read_before_the_start_is_reported() -> None:
    assert PREVIOUS_ELEMENT_LOAD_LINE in _flagged_lines(PREVIOUS_ELEMENT)
