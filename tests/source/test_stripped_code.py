"""`stripped_code` spells an expression exactly as libcst prints it, less whitespace, or declines."""

from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from tritonlint.source.names import code_of
from tritonlint.source.stripped_code import stripped_code
from tritonlint.source.tree import nodes_under

ROOT = Path(__file__).resolve().parents[2]
_SPACE = re.compile(r"\s+")


def printed(node: cst.CSTNode) -> str:
    return _SPACE.sub("", cst.Module(body=[]).code_for_node(node))


KERNEL = '''
@triton.jit
def kernel(X, Y, N, stride, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    rows = offs[:, None] * stride + tl.arange(0, BLOCK)[None, :]
    x = tl.load(X + rows, mask=(offs[:, None] < N) & (rows >= 0), other=float("-inf"),)
    y = tl.load(X + offs[::2], mask=not EVEN and offs not in N, other=-1.5e3)
    z = tl.load(Y + offs[1:], mask=offs is not None, other = 0)
    s = tl.where(x > 0, x, -x) ** 2 // 3 % 4 @ y
    tl.store(Y + (offs), (x + 1.0j), mask=offs < N)
    t = tl.load(X + offs,  # the tail is masked
                mask=offs < N)
    u = X + \\
        offs
    v = f(*args, **kwargs, key='a b')[offs:N:2, ..., None]
'''


def test_every_expression_of_a_kernel_reads_as_libcst_prints_it() -> None:
    module = cst.parse_module(KERNEL)
    spelled = 0
    for node in nodes_under(module):
        if isinstance(node, cst.BaseExpression):
            got = stripped_code(node)
            if got is not None:
                spelled += 1
                assert _SPACE.sub("", got) == printed(node), printed(node)
            assert code_of(node) == printed(node)
    assert spelled > 100


def test_a_comment_or_a_continuation_is_left_to_libcst() -> None:
    module = cst.parse_module(KERNEL)
    calls = {printed(node): node for node in nodes_under(module) if isinstance(node, cst.Call)}
    commented = next(node for text, node in calls.items() if "#" in text)
    assert stripped_code(commented) is None
    assert code_of(commented) == "tl.load(X+offs,#thetailismaskedmask=offs<N)"
    continued = next(node for node in nodes_under(module) if isinstance(node, cst.BinaryOperation)
                     and "\\" in printed(node))
    assert stripped_code(continued) is None
    assert code_of(continued) == "X+\\offs"


def test_built_nodes_get_the_commas_and_equals_the_printer_adds() -> None:
    call = cst.Call(func=cst.Attribute(cst.Name("tl"), cst.Name("load")),
                    args=[cst.Arg(cst.Name("p")), cst.Arg(cst.Name("m"), keyword=cst.Name("mask")),
                          cst.Arg(cst.Integer("0"), keyword=cst.Name("other"))])
    subscript = cst.Subscript(cst.Name("a"), [cst.SubscriptElement(cst.Slice(lower=None, upper=None)),
                                              cst.SubscriptElement(cst.Index(cst.Name("None"))),
                                              cst.SubscriptElement(cst.Slice(None, None, step=cst.Integer("2")))])
    for node in (call, subscript):
        assert stripped_code(node) == printed(node)
    assert stripped_code(call) == "tl.load(p,mask=m,other=0)"
    assert stripped_code(subscript) == "a[:,None,::2]"


@pytest.mark.parametrize("path", sorted(ROOT.glob("fixtures/*/*.py"))[:40], ids=lambda p: p.name)
def test_our_fixtures_read_as_libcst_prints_them(path: Path) -> None:
    try:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
    except cst.ParserSyntaxError:
        pytest.skip("not Python")
    for node in nodes_under(module):
        if isinstance(node, cst.BaseExpression):
            got = stripped_code(node)
            assert got is None or _SPACE.sub("", got) == printed(node)
