"""A neighbour's calling kernels, parsed when a helper's file is checked (`importing_callers`), are
kept for the neighbour's own check (`caller_parses`): parsed once, with the same findings, and never
one tree for two contexts of one check."""

from __future__ import annotations

from collections.abc import Iterator

import libcst
import pytest

from tritonlint import engine
from tritonlint.config import Config
from tritonlint.engine import check_source

HELPERS = '''import triton
import triton.language as tl


@triton.jit
def load_row(ptr, offs):
    return tl.load(ptr + offs)
'''

CALLERS = '''import triton
import triton.language as tl
from .helpers import load_row


@triton.jit
def scale_rows(X, Y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = load_row(X, offs)
    tl.store(Y + offs, x * 2, mask=offs < N)


def scale(x, y):
    n = x.numel()
    scale_rows[(triton.cdiv(n, 128),)](x, y, n, BLOCK=128)
'''


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The sources libcst parses while the test runs, from an empty store of caller trees."""
    sources: list[str] = []
    parse = libcst.parse_module

    def counting(source: str, *args: object, **kwargs: object) -> libcst.Module:
        sources.append(source)
        return parse(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(libcst, "parse_module", counting)
    engine.CALLER_PARSES.clear()
    yield sources
    engine.CALLER_PARSES.clear()


def _codes(report: engine.FileReport) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in report.diagnostics]


def test_a_callers_kernel_is_parsed_once_for_both_files(parsed: list[str]) -> None:
    helpers = check_source("pkg/helpers.py", HELPERS, Config(), strict=True,
                           neighbours=lambda: [("pkg/callers.py", CALLERS)])
    assert ("TL101", 7) in _codes(helpers)  # the helper's load, judged at its caller's offsets
    assert sum("def scale_rows" in source for source in parsed) == 1
    callers = check_source("pkg/callers.py", CALLERS, Config(), strict=True,
                           neighbours=lambda: [("pkg/helpers.py", HELPERS)])
    assert sum("def scale_rows" in source for source in parsed) == 1  # the kept tree, not a new parse
    engine.CALLER_PARSES.clear()
    fresh = check_source("pkg/callers.py", CALLERS, Config(), strict=True,
                         neighbours=lambda: [("pkg/helpers.py", HELPERS)])
    assert callers.diagnostics == fresh.diagnostics


def test_two_identical_callers_of_one_check_get_a_tree_each(parsed: list[str]) -> None:
    near = [("pkg/callers.py", CALLERS), ("pkg/callers_copy.py", CALLERS)]
    first = check_source("pkg/helpers.py", HELPERS, Config(), strict=True, neighbours=lambda: near)
    assert sum("def scale_rows" in source for source in parsed) == 2
    again = check_source("pkg/helpers.py", HELPERS, Config(), strict=True, neighbours=lambda: near)
    # One tree is kept per text: the first caller has it, the second (its twin) is parsed anew.
    assert sum("def scale_rows" in source for source in parsed) == 3
    assert again.diagnostics == first.diagnostics
