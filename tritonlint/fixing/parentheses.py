"""Parentheses a fix's mask needs and no more: `m & (offs < n)`, not `(m) & (offs < n)`.

Masks are assembled from pieces of text (`(old) & (new)`, `(n + 1) - i`); each piece is wrapped to be
safe. Here the parsed result loses every pair that precedence does not need. Parentheses are not in
Python's syntax tree, so what the expression means cannot change: `without_redundant_parentheses`
checks that it did not (the stdlib `ast` of both) and keeps the original otherwise.
"""

from __future__ import annotations

import ast

import libcst as cst

from tritonlint.source.tree import nodes_under

# Python's operator precedence, lowest first (the language reference's table).
_LAMBDA, _IF, _OR, _AND, _NOT, _COMPARE = 0, 1, 2, 3, 4, 5
_BINARY = {cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9, cst.Add: 10,
           cst.Subtract: 10, cst.Multiply: 11, cst.Divide: 11, cst.FloorDivide: 11, cst.Modulo: 11,
           cst.MatrixMultiply: 11, cst.Power: 13}
_UNARY, _AWAIT, _ATOM = 12, 14, 15


def precedence(node: cst.BaseExpression) -> int:
    """How tightly `node` binds, as written without its own parentheses."""
    if isinstance(node, cst.Lambda):
        return _LAMBDA
    if isinstance(node, cst.IfExp):
        return _IF
    if isinstance(node, cst.BooleanOperation):
        return _OR if isinstance(node.operator, cst.Or) else _AND
    if isinstance(node, cst.UnaryOperation):
        return _NOT if isinstance(node.operator, cst.Not) else _UNARY
    if isinstance(node, cst.Comparison):
        return _COMPARE
    if isinstance(node, cst.BinaryOperation):
        return _BINARY[type(node.operator)]
    if isinstance(node, cst.Await):
        return _AWAIT
    if isinstance(node, (cst.NamedExpr, cst.Yield, cst.StarredElement)):
        return -1  # never without its parentheses
    return _ATOM


def _needed(child: cst.BaseExpression, parent: cst.CSTNode | None, field: str) -> bool:
    """Whether `child`, written as `parent`'s `field`, needs parentheses around it."""
    own = precedence(child)
    if own < 0 or isinstance(child, (cst.Tuple, cst.GeneratorExp)):
        return True  # the parentheses are part of what it is
    if parent is None:  # an argument's value, a mask named on a line of its own
        return False
    if isinstance(parent, cst.BinaryOperation):
        level = _BINARY[type(parent.operator)]
        if isinstance(parent.operator, cst.Power):  # right-associative, and `-x ** y` is `-(x ** y)`
            return own <= level if field == "left" else own < _UNARY
        # `a - (b - c)` is not `a - b - c`; `a & (b & c)` is, but is another tree (and reads as written).
        if own == level and field == "left" and level == _BINARY[cst.Multiply]:
            return type(child.operator) is not type(parent.operator)  # type: ignore[attr-defined]  # `(a // 2) % 2`
        return own < level or (own == level and field == "right")
    if isinstance(parent, cst.UnaryOperation):  # `-(a ** 2)` kept: `-a ** 2` reads as `(-a) ** 2`
        return own < (_NOT if isinstance(parent.operator, cst.Not) else _AWAIT)
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
        return own <= _COMPARE  # `(a < b) < c` is no chain
    if isinstance(parent, cst.BooleanOperation):
        level = precedence(parent)
        return own < level or (own == level and field == "right")
    if isinstance(parent, cst.IfExp):
        return own <= _IF if field in ("body", "test") else own < _IF
    if isinstance(parent, (cst.Attribute, cst.Subscript, cst.Call)) and field in ("value", "func"):
        return own < _ATOM or isinstance(child, (cst.Integer, cst.Float, cst.Imaginary))  # `(1).real`
    return True  # anywhere else (a slice, a lambda's body...): leave what was written


class _Strip(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self._parents: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self._parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        self._parents.pop()
        if not isinstance(updated_node, cst.BaseExpression) or not getattr(updated_node, "lpar", ()):
            return updated_node
        parent = self._parents[-1] if self._parents else None
        field = next((name for name in _FIELDS if getattr(parent, name, None) is original_node), "") if parent else ""
        if parent is not None and not field:
            return updated_node
        if _has_comment(updated_node.lpar) or _has_comment(updated_node.rpar):
            return updated_node
        if _needed(updated_node, parent, field):  # one pair is enough: `((a < b)) & c`
            return updated_node.with_changes(lpar=updated_node.lpar[-1:], rpar=updated_node.rpar[:1])
        return updated_node.with_changes(lpar=(), rpar=())


_FIELDS = ("left", "right", "expression", "body", "test", "orelse", "value", "func", "comparator")


def _has_comment(parens: object) -> bool:
    return "#" in "".join(cst.Module(body=[]).code_for_node(p) for p in parens)  # type: ignore[attr-defined]


def without_redundant_parentheses(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` without the parentheses precedence does not need (its own outer pair included), or
    `node` itself where that would read differently to Python (never expected: a safety net)."""
    if not any(getattr(each, "lpar", ()) for each in nodes_under(node)):
        return node  # no pair to strip (most masks): libcst's transformer would rebuild it all the same
    stripped = node.visit(_Strip())
    assert isinstance(stripped, cst.BaseExpression)
    if stripped is node or stripped.deep_equals(node):
        return node
    try:
        same = _tree(stripped) == _tree(node)
    except SyntaxError:
        same = False
    return stripped if same else node


def _tree(node: cst.BaseExpression) -> str:
    code = cst.Module(body=[]).code_for_node(node)
    return ast.dump(ast.parse(f"(\n{code}\n)", mode="eval"))


class _Spaced(cst.CSTTransformer):
    """`a//b` -> `a // b`: one space around binary and comparison operators written without any (mask
    text assembled from names the analysis read without spaces), as black writes them; `**` is left
    hugging its operands, as black leaves simple ones."""

    def leave_BinaryOperation(self, original_node: cst.BinaryOperation,
                              updated_node: cst.BinaryOperation) -> cst.BaseExpression:
        if isinstance(updated_node.operator, cst.Power):
            return updated_node
        return updated_node.with_changes(operator=_space(updated_node.operator))

    def leave_ComparisonTarget(self, original_node: cst.ComparisonTarget,
                               updated_node: cst.ComparisonTarget) -> cst.ComparisonTarget:
        return updated_node.with_changes(operator=_space(updated_node.operator))


def _unspaced(node: cst.CSTNode) -> bool:
    """Whether `_Spaced` changes this node: an operator it spaces, written without a space on a side."""
    if (isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.Power)) or \
            isinstance(node, cst.ComparisonTarget):
        return _space(node.operator) is not node.operator
    return False


def _space(operator: cst.CSTNode) -> cst.CSTNode:
    changes = {name: cst.SimpleWhitespace(" ") for name in ("whitespace_before", "whitespace_after")
               if isinstance(getattr(operator, name, None), cst.SimpleWhitespace)
               and getattr(operator, name).value == ""}
    return operator.with_changes(**changes) if changes else operator


def spaced(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` with a space on each side of its operators where it had none."""
    if not any(_unspaced(each) for each in nodes_under(node)):
        return node  # nothing to space (most masks): libcst's transformer would rebuild it all the same
    result = node.visit(_Spaced())
    assert isinstance(result, cst.BaseExpression)
    return result
