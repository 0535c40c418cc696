"""What a jit helper hands back to a tuple target: `i_c, i_h = chunk_and_head(NH)`, where the helper is
`pid = tl.program_id(0).to(tl.int64); return pid // NH, pid % NH`. Each target is bound to the returned
element in the caller's names: the helper's parameters replaced by the call's arguments, its locals
(assigned once) by their values. A program id split inside a helper then reads as the caller's own split.

Only a helper with one `return` of a tuple as long as the target, whose elements reach no name the
substitution leaves behind (a local assigned twice, a loop variable)."""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping

_DEPTH = 4  # locals substituted within locals, at most


def returned_parts(call: ast.Call, helper: ast.FunctionDef, count: int) -> list[ast.expr] | None:
    """The helper's returned elements in the caller's names, or None where they cannot be read so."""
    returns = [n for n in ast.walk(helper) if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Tuple) or len(returns[0].value.elts) != count:
        return None
    params = [a.arg for a in [*helper.args.posonlyargs, *helper.args.args]]
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    given: dict[str, ast.expr] = dict(zip(params, call.args))
    given.update({k.arg: k.value for k in call.keywords if k.arg is not None})
    stores: dict[str, int] = {}  # every store (a loop variable, a tuple target, an augmented assignment)
    values: dict[str, ast.expr] = {}
    for node in ast.walk(helper):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    once = {name: value for name, value in values.items() if stores.get(name) == 1}
    unreadable = set(stores) - set(once) - set(given)
    parts = [_substituted(element, given, once, unreadable, _DEPTH) for element in returns[0].value.elts]
    return None if any(p is None for p in parts) else [p for p in parts if p is not None]


def _substituted(node: ast.expr, given: Mapping[str, ast.expr], once: Mapping[str, ast.expr],
                 unreadable: set[str], depth: int) -> ast.expr | None:
    """`node` with the helper's parameters and single-assignment locals replaced, in the caller's names;
    None where it reaches a local stored more than once, or locals nest deeper than `depth`."""
    failed = False

    class _Replace(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            nonlocal failed
            if name.id in given:
                return copy.deepcopy(given[name.id])  # the caller's own expression: not substituted again
            if name.id in once:
                inner = _substituted(once[name.id], given, once, unreadable, depth - 1) if depth > 0 else None
                failed = failed or inner is None
                return inner if inner is not None else name
            failed = failed or name.id in unreadable
            return name

    out = _Replace().visit(copy.deepcopy(node))
    return None if failed or not isinstance(out, ast.expr) else out
