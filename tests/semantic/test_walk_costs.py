"""What the walks over a kernel's trees leave out or do once (their answers unchanged)."""

from __future__ import annotations

import textwrap
from collections import Counter

import libcst as cst
import pytest

from tritonlint.config import Config
from tritonlint.engine import build_model, check_source, parse_kernels
from tritonlint.semantic import dataflow
from tritonlint.source import tree_caches
from tritonlint.source.outline import line_starts
from tritonlint.source.tree import child_nodes, expressions_in, names_in, nodes_under

_LAYOUT = (cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.EmptyLine,
           cst.Newline, cst.Comment)


def test_walks_skip_the_layout_between_tokens() -> None:
    # Whitespace after a call's name, around `=`, after each argument, a line broken inside the
    # call with a comment: none of it is a node a walk meets; every name and expression still is.
    call = cst.parse_expression("f ( a ,  # why\n  b = c [ i ] , * d )")
    walked = list(nodes_under(call))
    assert not [node for node in walked if isinstance(node, _LAYOUT)]
    assert sorted(names_in(call)) == ["a", "c", "d", "f", "i"]
    assert [cst.Module([]).code_for_node(e) for e in expressions_in(call)] == ["f", "a", "c [ i ]", "b", "d"]
    assert all(not isinstance(child, _LAYOUT) for node in walked for child in child_nodes(node))


KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def k(X, Y, Z, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid * BLOCK
    offs = base + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
    y = tl.load(Y + offs, mask=offs < n)
    tl.store(Z + offs, x + y, mask=offs < n)
"""


def test_pointer_chains_walk_each_assignment_once(monkeypatch: pytest.MonkeyPatch) -> None:
    imports, kernels = parse_kernels(textwrap.dedent(KERNEL))
    (kernel, module), = kernels
    model = build_model(kernel, module, imports, Config(), KERNEL, line_starts(KERNEL))
    walked: Counter[int] = Counter()

    def counted(node: cst.CSTNode | None, skip: object = None) -> list[str]:
        walked[id(node)] += 1
        return names_in(node, skip)  # type: ignore[arg-type]

    monkeypatch.setattr(dataflow, "names_in", counted)
    flow = dataflow.Dataflow(model.ir)
    chains = [flow.build_chain(access.pointer, access.order, access.path, access.loops) for access in model.accesses]
    # The three pointers share `offs = base + ...` and `base = pid * BLOCK`: read once each.
    assert len(model.accesses) == 3
    assert max(walked.values()) == 1
    assert [set(chain) for chain in chains] == [{"BLOCK", "base", "offs", "pid", "tl", pointer} for pointer in "XYZ"]


UNMASKED = """\
import triton
import triton.language as tl


@triton.jit
def k(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x * 2, mask=offs < n)
"""


def test_a_check_lets_go_of_the_caches_of_its_trees() -> None:
    # The walks' caches hold nodes, and so the file's trees: a command-line check empties them
    # when it is done, so that the collector never scans trees that are not asked again.
    report = check_source("k.py", UNMASKED, Config(), strict=True)
    assert [d.code for d in report.diagnostics] == ["TL101"]  # a fix built: the fixers' caches were used
    assert [cache.cache_info().currsize for cache in tree_caches._CACHES] == [0] * len(tree_caches._CACHES)
    assert len(tree_caches._CACHES) >= 6
