"""A huge file's kernel groups are shared with a forked child (the second core): the report is the
one checking every group in this process gives, byte for byte."""

from __future__ import annotations

import dataclasses
import os

import pytest
from test_engine_piecewise import many_kernels

from tritonlint import engine
from tritonlint.config import Config
from tritonlint.engine import check_source
from tritonlint.forked import Forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")

# Three groups: `row_a`; `load_tile` with its two callers; `row_b`, whose end (in the child's share)
# comes between the two callers (in this process's share): the helper's access, keyed, is still
# reported once. `row_a` and `row_b` (one in each share) share the predicate `even`, reported once,
# where it is written.
SHARED = '''import torch
import triton
import triton.language as tl


@triton.jit
def row_a(X, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        if EVEN_K:
            acc += tl.load(X + offs)
        else:
            acc += tl.load(X + offs, mask=offs < K, other=0.0)
    tl.store(Y, tl.sum(acc))


@triton.jit
def load_tile(X, offs):
    return tl.load(X + offs)


@triton.jit
def first_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, load_tile(X, offs), mask=offs < N)


@triton.jit
def row_b(X, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        if EVEN_K:
            acc += tl.load(X + offs)
        else:
            acc += tl.load(X + offs, mask=offs < K, other=0.0)
    tl.store(Y, tl.sum(acc))


@triton.jit
def second_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, load_tile(X, offs) * 2, mask=offs < N)


def launch(x, n):
    y = torch.empty(1, device=x.device)
    K = x.numel()
    even = K % 2 == 0
    row_a[(1,)](x, y, K, EVEN_K=even, BLOCK_K=32)
    row_b[(1,)](x, y, K, EVEN_K=even, BLOCK_K=32)
    first_kernel[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
    second_kernel[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
    return y
'''


@pytest.mark.parametrize("text", [SHARED, many_kernels(1)], ids=["shared", "fixtures"])
def test_two_shares_give_the_report_of_one(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(engine, "FORK_ABOVE", 10**12)
    alone = check_source("many.py", text, Config())
    results: list[object] = []

    class Counted(Forked):  # type: ignore[type-arg]
        def result(self) -> object:
            value = super().result()
            results.append(value)
            return value

    monkeypatch.setattr(engine, "FORK_ABOVE", 0)
    monkeypatch.setattr(engine, "forking_possible", lambda: True)
    monkeypatch.setattr(engine, "Forked", Counted)
    shared = check_source("many.py", text, Config())
    assert len(results) == 1 and results[0] is not None, "the child's share came back"
    assert len(alone.diagnostics) >= 4
    assert dataclasses.astuple(shared) == dataclasses.astuple(alone)
    assert [(d.start_offset, d.end_offset) for d in shared.diagnostics] == \
        [(d.start_offset, d.end_offset) for d in alone.diagnostics]


def test_a_child_that_fails_leaves_the_work_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    text = many_kernels(1)
    monkeypatch.setattr(engine, "FORK_ABOVE", 10**12)
    alone = check_source("many.py", text, Config())

    class Failing(Forked):  # type: ignore[type-arg]
        def __init__(self, work: object) -> None:
            super().__init__(lambda: 1 // 0)

    monkeypatch.setattr(engine, "FORK_ABOVE", 0)
    monkeypatch.setattr(engine, "forking_possible", lambda: True)
    monkeypatch.setattr(engine, "Forked", Failing)
    assert dataclasses.astuple(check_source("many.py", text, Config())) == dataclasses.astuple(alone)


@pytest.mark.parametrize("fork", [False, True], ids=["one process", "two shares"])
def test_a_helper_reached_from_both_sides_of_another_group_is_reported_once(monkeypatch: pytest.MonkeyPatch,
                                                                             fork: bool) -> None:
    # `row_b`'s group ends between `load_tile`'s two callers; it must not let go of their group's keys.
    monkeypatch.setattr(engine, "FORK_ABOVE", 0 if fork else 10**12)
    monkeypatch.setattr(engine, "forking_possible", lambda: fork)
    report = check_source("many.py", SHARED, Config())
    helper_line = SHARED.splitlines().index("    return tl.load(X + offs)") + 1
    assert [(d.line, d.code) for d in report.diagnostics].count((helper_line, "TL101")) == 1, report.diagnostics
