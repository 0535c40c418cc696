"""Out-of-bounds forms the checker did not report, in kernels of our own in the patterns of real bugs
(docs/bugs-found.md, eleventh session).

Each gap was a strict xfail: when the analysis learns the form, the test passes, pytest reports XPASS
as a failure, and the marker must go (and a fixture under fixtures/ take its place). Both gaps found
with these tests are closed: the atomics one (tests/rules/test_atomic_accesses.py) and the read before
the tensor's start (TL104's start reading, fixtures/insufficient-mask/before_start.py); the test of the
latter stays as it was written, now passing.
"""

from __future__ import annotations

from tritonlint.config import Config
from tritonlint.engine import check_source

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


def test_previous_element_read_before_the_start_is_reported() -> None:
    assert PREVIOUS_ELEMENT_LOAD_LINE in _flagged_lines(PREVIOUS_ELEMENT)
