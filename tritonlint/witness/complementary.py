"""Constexpr flags a launch derives from one test, each the other's negation (`HAS_CU=cu is None`,
`HAS_USED=cu is not None`; `A=a`, `B=not a`): the callers never pass them equal, so no candidate may.
Both set off, a kernel binds a name on neither branch and the run fails on it (`UnboundLocalError`),
proving nothing about the finding."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from tritonlint.witness.constraints import Constraint


def _test(text: str) -> tuple[str, bool] | None:
    """The test a launch argument is and whether it is negated: `x is None` -> ("x is None", False),
    `x is not None` -> ("x is None", True), `not a` -> ("a", True), `a` -> ("a", False)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    negated = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node, negated = node.operand, not negated
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        if isinstance(node.ops[0], ast.IsNot):
            negated = not negated
        node = ast.Compare(left=node.left, ops=[ast.Is()], comparators=node.comparators)
    elif not isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Compare, ast.BoolOp)):
        return None  # a literal or arithmetic: no test
    return ast.unparse(node), negated


def launch_tests(launch: Any) -> dict[str, str]:
    """The launch's argument texts, tests as the host spells them (`args` holds them without spaces,
    `starts is None` as `startsisNone`; `predicates` keeps each test's own text)."""
    if launch is None:
        return {}
    texts = dict(launch.args)
    texts.update({p: text for p, (text, _place) in launch.predicates.items()})
    return texts


def complementary(launch_args: Mapping[str, str], constexprs: set[str]) -> list[Constraint]:
    """`A != B` for each pair of constexpr parameters the launch passes one test and its negation."""
    tests = {p: t for p, text in launch_args.items() if p in constexprs and (t := _test(text)) is not None}
    out: list[Constraint] = []
    names = sorted(tests)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if tests[a][0] == tests[b][0] and tests[a][1] != tests[b][1]:
                test = ast.Compare(left=ast.Name(id=a, ctx=ast.Load()), ops=[ast.NotEq()],
                                   comparators=[ast.Name(id=b, ctx=ast.Load())])
                out.append(Constraint(test, (), f"{a}={launch_args[a]} and {b}={launch_args[b]}: never equal"))
    return out
