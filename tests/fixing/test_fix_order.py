"""A fix never reads a name the kernel defines only after the flagged access (found on vLLM's
rocm_aiter_mla_sparse.py by the corpus round trip: the store's mask variable came later)."""

from __future__ import annotations

import ast

from tritonlint.config import Config
from tritonlint.engine import check_source, fix_source

KERNEL = '''\
import triton
import triton.language as tl


@triton.jit
def gather(idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tok = tl.load(idx_ptr + offs)
    late_mask = offs < n
    tl.store(out_ptr + offs, tok, mask=late_mask)
'''


def test_fix_does_not_use_a_mask_defined_later() -> None:
    report = check_source("k.py", KERNEL, Config(), strict=True)
    assert [(d.line, d.code) for d in report.diagnostics] == [(8, "TL101")]
    fixed = fix_source("k.py", KERNEL, Config(), unsafe=True, strict=True).fixed_text
    assert fixed is not None
    load_line = fixed.splitlines()[7]
    assert "late_mask" not in load_line, load_line
    assert "offs < n" in load_line, load_line
    ast.parse(fixed)
    assert check_source("k.py", fixed, Config(), strict=True).diagnostics == ()
