"""A huge text is parsed a stretch at a time, its top-level kernels kept as stubs (source/parsed.py):
the tree must be `ast.parse`'s but for the kernels' bodies, a stub's whole tree must come back from
its text, and a check must report exactly what it reports from the whole tree."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tritonlint.config import Config
from tritonlint.engine import check_source
from tritonlint.source import parsed
from tritonlint.source.outline import outline
from tritonlint.source.parsed import KernelStub, kernel_syntax, lean_parse

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# What a cut between statements must not break: a string holding lines that look like statements,
# a compound statement with clauses at column 0, a decorator over its function, a host function
# decorated with something else than jit (it launches a kernel: read whole), brackets over lines.
TRICKY = '''
import triton
import triton.language as tl
import torch

DOC = """
def not_code():
    pass
x = 1
"""


@triton.jit
def copy(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs))


if torch.cuda.is_available():
    DEVICE = "cuda"
else:
    DEVICE = "cpu"

try:
    import numpy
except ImportError:
    numpy = None
finally:
    pass


@torch.no_grad()
def launch(x, y):
    copy[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), BLOCK=128)


TABLE = [
    1,
    2,
]
'''


@pytest.fixture
def small_stretches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stretches of a few hundred characters, so that a small text is cut in many places."""
    monkeypatch.setattr(parsed, "_STRETCH", 200)


def _dump(node: ast.AST) -> str:
    return ast.dump(node, include_attributes=True)


def test_the_lean_tree_is_the_whole_tree_but_the_kernels_bodies(small_stretches: None) -> None:
    text = TRICKY * 3
    lean, whole = lean_parse(text), ast.parse(text)
    assert len(lean.body) == len(whole.body)
    stubs = 0
    for mine, theirs in zip(lean.body, whole.body):
        if type(mine) is KernelStub:
            stubs += 1
            assert isinstance(theirs, ast.FunctionDef) and mine.name == theirs.name == "copy"
            assert [_dump(d) for d in mine.decorator_list] == [_dump(d) for d in theirs.decorator_list]
            assert _dump(mine.args) == _dump(theirs.args)
            assert (mine.lineno, mine.end_lineno) == (theirs.lineno, theirs.end_lineno)
            first = min(d.lineno for d in mine.decorator_list)
            kernel = next(k for k in outline(text).kernels if k.first_line == first)
            assert _dump(kernel_syntax(mine, kernel.text, kernel.first_line)) == _dump(theirs)
        else:
            assert _dump(mine) == _dump(theirs)  # the host function `launch` whole: it launches
    assert stubs == 3


def test_a_text_that_does_not_parse_raises_what_ast_parse_raises(small_stretches: None) -> None:
    text = TRICKY * 3 + "\ndef broken(:\n    pass\n" + TRICKY
    with pytest.raises(SyntaxError) as whole:
        ast.parse(text)
    with pytest.raises(SyntaxError) as lean:
        lean_parse(text)
    assert (lean.value.msg, lean.value.lineno) == (whole.value.msg, whole.value.lineno)


def test_a_check_of_a_huge_text_reports_what_a_whole_tree_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("unmasked-tail-load/*.py"))
               if not p.name.endswith(("_harness.py", ".fixed.py"))][:12]
    text = "\n".join(sources)
    parsed.parse_text.cache_clear()
    expected = check_source("huge.py", text, Config())
    monkeypatch.setattr(parsed, "LEAN_ABOVE", 1000)
    monkeypatch.setattr(parsed, "_STRETCH", 2000)
    parsed.parse_text.cache_clear()
    assert any(type(node) is KernelStub for node in parsed.parse_text(text).body)
    got = check_source("huge.py", text, Config())
    parsed.parse_text.cache_clear()
    assert expected.diagnostics  # the comparison says something
    assert got.diagnostics == expected.diagnostics
    assert (got.errors, got.crashes) == (expected.errors, expected.crashes)
