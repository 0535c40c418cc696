"""Reading libcst trees fast: children from dataclass fields, names read, source-order walks.

libcst's `children` property and its visitors rebuild nodes as they go; reading the fields of
the node dataclasses directly is an order of magnitude faster, and the analysis walks the same
expressions many times. Shared by the kernel model, the fixer and the position index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields

import libcst as cst

_FIELDS: dict[type, tuple[str, ...]] = {}
# Layout fields never hold expressions; skipping them makes the walk several times faster.
_SKIPPED = {"whitespace", "whitespace_before", "whitespace_after", "lpar", "rpar", "comma", "dot",
            "lbracket", "rbracket", "lbrace", "rbrace", "equal", "semicolon", "leading_lines",
            "trailing_whitespace", "header", "footer", "operator", "colon", "lines_after_decorators"}


def _walked(name: str) -> bool:
    """Whether a node field is walked: not a layout field. The many `whitespace_*` fields (after a
    call's name, around `=` and `:`, after each argument and parameter) hold only whitespace,
    newlines and comments, yet were a third of the nodes every walk visited."""
    return name not in _SKIPPED and not name.startswith("whitespace_")


class TypeTest(dict[type, bool]):
    """`isinstance(node, bases)` spelled `TEST[type(node)]`: the answer is cached per type.

    libcst's node classes derive from an ABC, so every isinstance check against one that fails
    runs `ABCMeta.__instancecheck__` (a Python-level call); the walks make over a million.
    A concrete node class has no subclasses, so hot paths test it as `type(node) is cst.Name`.
    """

    def __init__(self, *bases: type) -> None:
        super().__init__()
        self.bases = bases

    def __missing__(self, kind: type) -> bool:
        self[kind] = answer = issubclass(kind, self.bases)
        return answer


IS_NODE = TypeTest(cst.CSTNode)
IS_EXPRESSION = TypeTest(cst.BaseExpression)
# Wrappers whose expressions count as their parent's: `f(x=a)`, `[a, b]`, `{k: v}`, `x[i:j]`, `a < b`.
_IS_WRAPPER = TypeTest(cst.Arg, cst.Element, cst.DictElement, cst.Index, cst.Slice, cst.SubscriptElement,
                       cst.ComparisonTarget, cst.StarredElement)


def child_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Children of a node, read straight from its dataclass fields.

    libcst's `children` and visitors rebuild nodes as they go; reading fields is an order of
    magnitude faster, and the model walks expressions many times.
    """
    names = _FIELDS.get(type(node))
    if names is None:
        names = tuple(f.name for f in fields(node) if _walked(f.name))
        _FIELDS[type(node)] = names
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is list or kind is tuple:
            for item in value:
                if IS_NODE[type(item)]:
                    yield item
        elif IS_NODE[kind]:
            yield value


def terms(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The summands of `a + b - c` (parentheses and all); a non-sum is its own only term."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
        return [*terms(node.left), *terms(node.right)]
    return [node]


def names_in(node: cst.CSTNode | None, skip: Callable[[cst.CSTNode], bool] | None = None) -> list[str]:
    """Variable names an expression reads (`x.to` reads x; keyword names are not variables),
    not looking inside the sub-expressions `skip` picks."""
    if node is None:
        return []
    names: list[str] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if skip is not None and skip(current):
            continue
        if type(current) is cst.Name:  # exact types: see `TypeTest`
            names.append(current.value)
        elif type(current) is cst.Attribute or type(current) is cst.Arg:
            pending.append(current.value)
        else:
            pending.extend(child_nodes(current))
    return names


def expressions_in(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Direct sub-expressions of a node, looking through Arg / Element / Index wrappers."""
    for child in child_nodes(node):
        kind = type(child)
        if IS_EXPRESSION[kind]:
            yield child  # type: ignore[misc]  # an expression: IS_EXPRESSION said so
        elif _IS_WRAPPER[kind]:
            yield from expressions_in(child)


def nodes_under(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under `root`, the root first, depth first, children in source order.

    The dataclass fields follow the source except where a node keeps its parts in another order:
    decorators are stored after the function's body, and `a if c else b` stores the test first.
    """
    pending: list[cst.CSTNode] = [root]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(reversed(ordered_children(node)))


def ordered_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """A node's children in source order (see `nodes_under`)."""
    if type(node) is cst.FunctionDef:
        return [*node.decorators, *(c for c in child_nodes(node) if type(c) is not cst.Decorator)]
    if type(node) is cst.IfExp:
        return [node.body, node.test, node.orelse]
    return list(child_nodes(node))
