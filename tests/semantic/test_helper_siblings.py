"""Facts that look at an access's siblings see the siblings written in jit helpers too, judged at
their calls (tritonlint/semantic/flags.py:FlagRecognizer.accesses), and may name their lines
(KernelContext.line_of falls back to the helper's tree)."""

from __future__ import annotations

from tritonlint.config import Config
from tritonlint.engine import check_source

# A right-aligned last window: the key load masks from below only, so the decay load beside it
# never runs past the end. Both loads are one-line jit helpers of the same module.
RIGHT_ALIGNED = '''
import triton
import triton.language as tl


@triton.jit
def load_masked(p, m):
    return tl.load(p, mask=m, other=0.0)


@triton.jit
def load_plain(p):
    return tl.load(p)


@triton.jit
def right_aligned_blocks(K, Kd, O, n, d, BLOCK: tl.constexpr, CBLOCK: tl.constexpr, NUM_CBLOCK: tl.constexpr,
                         D: tl.constexpr):
    off_block = tl.program_id(0)
    NUM_BLOCK = tl.cdiv(n, BLOCK)
    kv_index = tl.arange(0, CBLOCK)
    k_ptr = K + off_block * BLOCK * d + kv_index[:, None] * d + tl.arange(0, D)[None, :]
    decay_ptr = Kd + kv_index
    split_n = n - (NUM_BLOCK - 1) * BLOCK if off_block == NUM_BLOCK - 1 else BLOCK
    left_shift = tl.cdiv(split_n, CBLOCK) * CBLOCK - split_n
    num_blocks = tl.minimum(tl.cdiv(split_n, CBLOCK), NUM_CBLOCK)
    decay_ptr += (NUM_CBLOCK - num_blocks) * CBLOCK
    acc = tl.zeros([D], dtype=tl.float32)
    for j in range(num_blocks):
        left_bound = (1 - j) * left_shift
        k = load_masked(k_ptr - left_shift * d, kv_index[:, None] >= left_bound)
        decay = load_plain(decay_ptr)
        acc += tl.sum(k * decay[:, None], axis=0)
        k_ptr += CBLOCK * d
        decay_ptr += CBLOCK
    tl.store(O + off_block * D + tl.arange(0, D), acc)
'''


def test_a_sibling_in_a_helper_names_its_line_and_keeps_the_window_quiet() -> None:
    # strict: a crash (the fact naming the line of a node of the helper's tree) raises
    report = check_source("k.py", RIGHT_ALIGNED, Config(), strict=True)
    assert [d.code for d in report.diagnostics] == []


def test_the_same_window_with_the_mask_dropped_is_reported() -> None:
    # the sibling's lower bound is what keeps it quiet: without it, the plain load is a tail read
    text = RIGHT_ALIGNED.replace("load_masked(k_ptr - left_shift * d, kv_index[:, None] >= left_bound)",
                                 "load_plain(k_ptr - left_shift * d)")
    report = check_source("k.py", text, Config(), strict=True)
    assert "TL101" in [d.code for d in report.diagnostics]
