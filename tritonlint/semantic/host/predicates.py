"""Capability predicates a host test calls: `if gemv_supported(x, w):` around a launch, or
`if not gemv_supported(x, w): raise` before it, where `gemv_supported` is a plain function that
returns a boolean test (`... and k % block_k == 0`).

Such a call is read as its returned test, with the predicate's locals inlined and its parameters
replaced by the call's arguments: the divisibility conjuncts then speak of the caller's own
values, as if written at the call. A predicate is "plain" when its body is assignments (and a
docstring or asserts) ending in one `return <test>`; it is found among the launching module's own
functions, or, through `from .module import name`, in a module of the same package that the
caller hands over (`imported`). Its module's integer constants are read as their values: its
`_BLOCK_K` is not the caller's.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from tritonlint.semantic.host.host_guards import Body, inline

# A predicate found elsewhere: its function and that module's integer constants.
Imported = Callable[[str], "tuple[ast.FunctionDef, Mapping[str, int]] | None"]


class Predicates:
    """Expands calls of plain boolean predicates in host tests (see the module's docstring)."""

    def __init__(self, functions: Mapping[str, ast.FunctionDef], constants: Mapping[str, int],
                 imported: Imported | None = None) -> None:
        self.functions, self.constants, self.imported = functions, constants, imported

    def expand(self, test: ast.expr, depth: int = 2) -> ast.expr:
        """`test` with each predicate call among its conjuncts (or under a `not`) replaced by the
        predicate's returned test in the call's terms; `test` itself when it calls none."""
        if isinstance(test, ast.BoolOp):
            return ast.BoolOp(test.op, [self.expand(value, depth) for value in test.values])
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return ast.UnaryOp(test.op, self.expand(test.operand, depth))
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and depth > 0:
            found = self._predicate(test.func.id)
            if found is not None:
                returned = _returned_test(found[0], test, found[1])
                if returned is not None:
                    return self.expand(returned, depth - 1)
        return test

    def _predicate(self, name: str) -> tuple[ast.FunctionDef, Mapping[str, int]] | None:
        if name in self.functions:
            return self.functions[name], self.constants
        return self.imported(name) if self.imported is not None else None


def _returned_test(function: ast.FunctionDef, call: ast.Call, constants: Mapping[str, int]) -> ast.expr | None:
    """What `function` returns for `call`, in the call's arguments; None when it is not plain."""
    statements = list(function.body)
    if statements and isinstance(statements[0], ast.Expr) and isinstance(statements[0].value, ast.Constant):
        statements = statements[1:]  # the docstring
    if not statements or not isinstance(statements[-1], ast.Return) or statements[-1].value is None:
        return None
    if not all(isinstance(s, (ast.Assign, ast.AnnAssign, ast.Assert)) for s in statements[:-1]):
        return None
    args = function.args
    if args.vararg is not None or args.kwarg is not None:
        return None
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) \
            or len(call.args) > len(args.posonlyargs) + len(args.args):
        return None
    bound: dict[str, ast.expr] = dict(zip(params, call.args))
    bound |= {k.arg: k.value for k in call.keywords if k.arg is not None}
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    for param in params:
        if param not in bound:
            if param not in defaults:
                return None
            bound[param] = defaults[param]
    returned = inline(statements[-1].value, Body(statements[:-1]), statements[-1].lineno)
    result = _Substitute(bound, constants).visit(returned)
    return result if isinstance(result, ast.expr) else None


class _Substitute(ast.NodeTransformer):
    """The predicate's parameters as the call's arguments, its module's constants as their values."""

    def __init__(self, bound: Mapping[str, ast.expr], constants: Mapping[str, int]) -> None:
        self.bound, self.constants = bound, constants

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.bound:
            return self.bound[node.id]
        if node.id in self.constants:
            return ast.Constant(self.constants[node.id])
        return node
