"""A helper file's search for callers in its neighbours (`importing_callers`) is skipped where no
caller could have a finding there: only the accesses of the jit functions a neighbour imports (theirs,
or those of the file's jit functions they call) are judged at a caller's call. The skip must never
drop such an access."""

from __future__ import annotations

from tritonlint.config import Config
from tritonlint.engine import check_source

PURE = '''import triton
import triton.language as tl


@triton.jit
def fast_silu(x):
    return x / (1.0 + tl.exp(-x))


@triton.jit
def copy_rows(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < N), mask=offs < N)
'''

CHAINED = '''import triton
import triton.language as tl


@triton.jit
def _raw_load(ptr, offs):
    return tl.load(ptr + offs)


@triton.jit
def load_row(ptr, offs):
    return _raw_load(ptr, offs)


@triton.jit
def fast_silu(x):
    return x / (1.0 + tl.exp(-x))
'''


def callers(imports: str, call: str) -> str:
    return f'''import triton
import triton.language as tl
from .helpers import {imports}


@triton.jit
def scale_rows(X, Y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = {call}
    tl.store(Y + offs, x * 2, mask=offs < N)


def scale(x, y):
    n = x.numel()
    scale_rows[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
'''


def _check(helpers: str, caller: str) -> tuple[list[tuple[str, int]], tuple[str, ...]]:
    report = check_source("pkg/helpers.py", helpers, Config(), strict=True,
                          neighbours=lambda: [("pkg/callers.py", caller)])
    return [(d.code, d.line) for d in report.diagnostics], report.depends


def test_a_caller_of_helpers_without_accesses_is_not_built() -> None:
    codes, depends = _check(PURE, callers("fast_silu", "fast_silu(tl.load(X + offs, mask=offs < N))"))
    assert codes == []
    assert depends == ()  # not read: building it could place nothing here


def test_a_helpers_access_reached_through_another_jit_function_is_still_judged_at_its_caller() -> None:
    codes, depends = _check(CHAINED, callers("load_row", "load_row(X, offs)"))
    assert ("TL101", 7) in codes  # `_raw_load`'s load, at the caller's offsets
    assert depends == ("pkg/callers.py",)


def test_a_caller_importing_a_pure_helper_beside_a_loading_one_is_still_built() -> None:
    codes, _ = _check(CHAINED, callers("fast_silu, load_row", "fast_silu(load_row(X, offs))"))
    assert ("TL101", 7) in codes
