"""Tensors the host pads before a launch: a name passed as a pointer argument that holds at least X elements.

The padding idiom reads

    if t.shape[0] < X:
        t_padded = torch.zeros(X, ...)
        t_padded[: t.shape[0]] = t
    else:
        t_padded = t

Every value the name takes before the launch is a one-dimensional allocation of X elements, or the
unpadded tensor itself on the branch where a test has shown it holds X elements already. The kernel
may then read X elements of it whatever the unpadded length: a witness must size that buffer X, or it
reports an over-read the callers never make.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

# Calls that allocate a tensor whose shape is their first argument(s): `torch.zeros(X, ...)`, `t.new_zeros(X)`.
_ALLOCATORS = {"zeros", "empty", "ones", "full", "randn", "rand", "new_zeros", "new_empty", "new_ones", "new_full"}


def _text(node: ast.AST) -> str:
    return re.sub(r"\s+", "", ast.unparse(node))


def _allocated_length(value: ast.expr) -> str | None:
    """X of a one-dimensional allocation `torch.zeros(X, ...)` (`(X,)` too), else None."""
    if not isinstance(value, ast.Call) or not value.args:
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in _ALLOCATORS:
        return None
    first = value.args[0]
    if isinstance(first, (ast.Tuple, ast.List)):
        if len(first.elts) != 1:
            return None
        first = first.elts[0]
    elif name not in ("full", "new_full") and len(value.args) > 1:
        return None  # `torch.zeros(M, N)`: two dimensions
    if isinstance(first, ast.Starred):
        return None
    return _text(first)


def _length_of(node: ast.expr) -> str | None:
    """The tensor whose length `node` reads: `t.shape[0]`, `t.size(0)`, `t.numel()`, `len(t)`."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value in (0, -1):
        return _text(node.value.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "numel" and not node.args:
            return _text(node.func.value)
        if node.func.attr == "size" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value in (0, -1):
            return _text(node.func.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1:
        return _text(node.args[0])
    return None


def _shows_long_enough(test: ast.expr, taken: bool, tensor: str, length: str) -> bool:
    """Whether the branch `taken` of `if test:` is reached only when `tensor` holds `length` elements or more."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if _length_of(left) == tensor and _text(right) == length:
        at_least = isinstance(op, ast.GtE) if taken else isinstance(op, ast.Lt)
        exactly = taken and isinstance(op, ast.Eq)
        return at_least or exactly
    if _length_of(right) == tensor and _text(left) == length:
        at_least = isinstance(op, ast.LtE) if taken else isinstance(op, ast.Gt)
        exactly = taken and isinstance(op, ast.Eq)
        return at_least or exactly
    return False


def _assignments(statements: Sequence[ast.stmt], name: str | None,
                 tests: tuple[tuple[ast.expr, bool], ...] = ()) -> Iterator[tuple[ast.Assign, tuple[tuple[ast.expr, bool], ...]]]:
    """Each `name = ...` of the statements (nested blocks included, not nested functions), with the
    `if` tests it sits under and the side of each (`name` None: each assignment to a name)."""
    for statement in statements:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and (name is None or t.id == name)
                                                     for t in statement.targets):
            yield statement, tests
        if isinstance(statement, ast.If):
            yield from _assignments(statement.body, name, tests + ((statement.test, True),))
            yield from _assignments(statement.orelse, name, tests + ((statement.test, False),))
        elif isinstance(statement, (ast.For, ast.While, ast.With, ast.Try)):
            for block in ("body", "orelse", "finalbody"):
                yield from _assignments(getattr(statement, block, []), name, tests)
            for handler in getattr(statement, "handlers", []):
                yield from _assignments(handler.body, name, tests)


# Name -> each `name = ...` of a body with the tests it sits under, in `_assignments`' order.
Assignments = dict[str, list[tuple[ast.Assign, tuple[tuple[ast.expr, bool], ...]]]]


def assignments(statements: Sequence[ast.stmt]) -> Assignments:
    """Every name's `_assignments` of the statements, from one walk (a scope with many launch
    arguments walked its body once for each)."""
    found: Assignments = {}
    for node, tests in _assignments(statements, None):
        for name in dict.fromkeys(t.id for t in node.targets if isinstance(t, ast.Name)):
            found.setdefault(name, []).append((node, tests))
    return found


def padded_length(statements: Sequence[ast.stmt], name: str, before: int,
                  indexed: Assignments | None = None) -> str | None:
    """The host text X where every value `name` holds before line `before` has at least X elements
    (a one-dimensional allocation of X, or a tensor a test around it has shown that long); else None.
    `indexed`: the statements' `assignments`, when the caller has them."""
    lengths: set[str] = set()
    unproven: list[tuple[ast.Assign, tuple[tuple[ast.expr, bool], ...]]] = []
    found = False
    for node, tests in (indexed.get(name, []) if indexed is not None else _assignments(statements, name)):
        if node.lineno >= before:
            continue
        found = True
        length = _allocated_length(node.value)
        if length is None:
            unproven.append((node, tests))
        else:
            lengths.add(length)
    if not found or len(lengths) != 1:
        return None
    (length,) = lengths
    for node, tests in unproven:
        tensor = _text(node.value)
        if not any(_shows_long_enough(test, taken, tensor, length) for test, taken in tests):
            return None
    return length
