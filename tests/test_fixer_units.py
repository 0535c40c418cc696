"""The fixer's choices one guard at a time, on small kernels checked statically (no triton import).

The fixtures pin whole fixed files; these pin which mask source the fixer picks and why, so a
broken guard in tritonlint/triton/fixes.py fails here by name (and kills its mutants).
"""

from __future__ import annotations

import ast

from tritonlint.config import Config
from tritonlint.engine import check_source, fix_source

ROWS = '''\
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    MASK_DEF
    a = tl.load(x_ptr + offs[:, None] * stride, mask=MASK)
    b = tl.load(y_ptr + offs[:, None] * stride)
    tl.store(out_ptr + offs[:, None] * stride, a + b, mask=offs[:, None] < n)
'''


def _rows(mask_def: str, mask: str) -> str:
    return ROWS.replace("MASK_DEF", mask_def).replace("MASK", mask)


def _fix_of_line(text: str, line: int) -> tuple[str | None, str]:
    (diag,) = check_source("k.py", text, Config(), strict=True).diagnostics
    assert (diag.line, diag.code) == (line, "TL101")
    fixed = fix_source("k.py", text, Config(), unsafe=True, strict=True).fixed_text
    assert fixed is not None
    ast.parse(fixed)
    assert check_source("k.py", fixed, Config(), strict=True).diagnostics == ()
    return diag.fix.title if diag.fix else None, fixed.splitlines()[line - 1].strip()


def test_a_1d_sibling_mask_is_not_reused_on_a_column_pointer() -> None:
    """`mask=offs < n` beside `x_ptr + offs[:, None]` broadcasts to a square: the fixer skips it
    (`_carries`) and takes the store's `offs[:, None] < n`, the mask of this pointer's shape."""
    title, line = _fix_of_line(_rows("pass", "offs < n"), 10)
    assert title == "Mask the load with `offs[:, None] < n` (the mask of the tl.store at line 11)"
    assert line == "b = tl.load(y_ptr + offs[:, None] * stride, mask=offs[:, None] < n, other=0)"


def test_a_1d_sibling_mask_through_a_name_is_not_reused_on_a_column_pointer() -> None:
    title, _ = _fix_of_line(_rows("m = offs < n", "m"), 10)
    assert title == "Mask the load with `offs[:, None] < n` (the mask of the tl.store at line 11)"


def test_a_sibling_mask_that_spells_the_broadcast_is_reused() -> None:
    """The control: the first sibling's mask has the pointer's `[:, None]`, itself or via its name."""
    title, _ = _fix_of_line(_rows("pass", "offs[:, None] < n"), 10)
    assert title == "Mask the load with `offs[:, None] < n` (the mask of the tl.load at line 9)"
    title, line = _fix_of_line(_rows("m = offs[:, None] < n", "m"), 10)
    assert title == "Mask the load with `m` (the mask of the tl.load at line 9)"
    assert line == "b = tl.load(y_ptr + offs[:, None] * stride, mask=m, other=0)"
