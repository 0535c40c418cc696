"""A jit helper inlined at a call site (tritonlint/semantic/lanes/inline.py) is the tree a libcst
transformer gives: the names replaced by the caller's nodes, every other node new (the caller's
memos key nodes by id), attribute names and keywords kept as the helper's, and each call of the
result known by the helper's call it was copied from. The inliner copies without libcst's visitor
(ten times faster); the reference here is the transformer it replaced."""

from __future__ import annotations

import libcst as cst

from tritonlint import engine
from tritonlint.config import Config
from tritonlint.semantic.lanes.inline import inlined

TEXT = '''import triton
import triton.language as tl


@triton.jit
def helper(x, cap, P, offs, n: tl.constexpr = 4):
    """A docstring."""
    y = x / cap
    z = tl.load(P + offs, mask=offs < n, other=0.0).to(tl.float32)
    w = tl.where(y > 0, (y + z) * 2, -y)
    return tl.sum(w * cap + tl.exp(z), axis=0) + x.to(tl.float32) + [a for a in (y, z)][0]


@triton.jit
def kernel(X, P, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(X + offs, mask=offs < N, other=0.0)
    out = helper(v, 1.5 + N, P, offs)
    tl.store(X + offs, out, mask=offs < N)
'''


class _Reference(cst.CSTTransformer):
    """The libcst transformer the inliner used to be."""

    def __init__(self, bound: dict[str, cst.BaseExpression], origins: dict[int, cst.Call]) -> None:
        super().__init__()
        self.bound, self.origins = bound, origins

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if updated is not original:
            self.origins[id(updated)] = original
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.bound.get(original.value)
        if value is None:
            return updated
        if isinstance(value, (cst.Name, cst.Call, cst.Subscript, cst.Attribute)) or value.lpar:
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


def _reference(function: cst.FunctionDef, call: cst.Call,
               origins: dict[int, cst.Call]) -> cst.BaseExpression:
    bound: dict[str, cst.BaseExpression] = {}
    params = function.params.params
    for param, arg in zip(params, call.args):
        bound[param.name.value] = arg.value
    for param in params[len(call.args):]:
        assert param.default is not None
        bound[param.name.value] = param.default
    assert isinstance(function.body, cst.IndentedBlock)
    result: cst.BaseExpression | None = None
    for statement in function.body.body[1:]:
        assert isinstance(statement, cst.SimpleStatementLine)
        small = statement.body[0]
        value = small.value
        assert value is not None
        visited = value.visit(_Reference(dict(bound), origins))
        assert isinstance(visited, cst.BaseExpression)
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            assert isinstance(target, cst.Name)
            bound[target.value] = visited
        else:
            result = visited
    assert result is not None
    return result


def _nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    found = [node]
    for child in node.children:
        found.extend(_nodes(child))
    return found


def _shape(node: cst.CSTNode, origins: dict[int, cst.Call], outside: set[int]) -> list[object]:
    """Each node's class, whether it is one of the given trees' own nodes, and, for a call, the
    helper's call it was copied from: what the identity of the nodes means to the analysis."""
    return [(type(n).__name__, id(n) in outside, id(origins[id(n)]) if id(n) in origins else None)
            for n in _nodes(node)]


def test_inlined_helper_is_the_transformers_copy() -> None:
    found, kernels = engine.parse_file(TEXT)
    models, helpers, _ = engine.build_contexts("k.py", TEXT, found, kernels, Config(), None, strict=True)
    try:
        kernel = next(context for _, context in models if context.ir.function.name.value == "kernel")
        function = kernel.helpers["helper"].ir.function
        call = next(n for n in _nodes(kernel.ir.function)
                    if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "helper")
        origins: dict[int, cst.Call] = {}
        result = inlined(kernel, call, origins)
        expected_origins: dict[int, cst.Call] = {}
        expected = _reference(function, call, expected_origins)
        assert result is not None
        assert result.deep_equals(expected)
        assert cst.Module([]).code_for_node(result) == cst.Module([]).code_for_node(expected)
        # Nodes shared with the helper's or the caller's tree are the same ones in both copies.
        trees = {id(n) for n in _nodes(function)} | {id(n) for n in _nodes(kernel.ir.function)}
        assert _shape(result, origins, trees) == _shape(expected, expected_origins, trees)
        assert len(origins) == len(expected_origins) == 6  # load, to, where, sum, exp, to
        # The caller's load reaches the copy as the caller's node, not a copy of it.
        assert any(n is call.args[0].value for n in _nodes(result))
    finally:
        helpers.clear()
