"""A `@triton.jit` helper's value at a call site, as one expression of the caller's.

`softcap(x, cap)` with `def softcap(x, cap): return cap * tanh(x / cap)` is `cap * tanh(x / cap)`
with the caller's arguments in place of the parameters: the masked lanes that reach it are followed
through that expression as if the caller had written it. Read only when the helper is a chain of
single assignments ending in one `return` (`y = x / cap`, `return cap * tanh(y)`), its names the
parameters, those locals and the names of the caller's module (a helper of the same file) or the
language (`tl`, an imported helper); anything else is not inlined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.source.imports import imported_helper
from tritonlint.source.syntax import bound_arguments
from tritonlint.source.tree import names_in

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext


class _Substitute(cst.CSTTransformer):
    def __init__(self, bound: dict[str, cst.BaseExpression], origins: dict[int, cst.Call] | None = None) -> None:
        super().__init__()
        self.bound = bound
        self.origins = origins  # each call of the helper's as rewritten -> the helper's own node

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.origins is not None and updated is not original:
            self.origins[id(updated)] = original  # `tl.load(p, mask=m)` of the helper, now `tl.load(X + offs, ...)`
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.bound.get(original.value)
        if value is None:
            return updated
        if isinstance(value, (cst.Name, cst.Call, cst.Subscript, cst.Attribute)) or value.lpar:
            return value  # the caller's own node: a load stays the load the tracks know
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)  # `x.to(...)`: the attribute name is no variable

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)  # `axis=0`: a keyword is no variable


def _function(kernel: KernelContext, name: str) -> tuple[cst.FunctionDef, bool] | None:
    """The helper's definition, and whether it lives in another module."""
    local = kernel.helpers.get(name)
    if local is not None:
        return local.ir.function, False
    if kernel.origin is None:
        return None
    found = imported_helper(name, kernel.origin[1], kernel.origin[0])
    if found is None:
        return None
    kernel.depends.add(str(found[1]))
    return found[0], True


def inlined(kernel: KernelContext, call: cst.Call,
            origins: dict[int, cst.Call] | None = None) -> cst.BaseExpression | None:
    """The helper call's value in the caller's terms, or None where it is not read. `origins`
    receives, for each call of the result rewritten from one of the helper's (its loads), the
    helper's node (by the id of the new one: keep the result alive while reading it)."""
    if type(call.func) is not cst.Name or call.func.value == kernel.ir.function.name.value:
        return None
    found = _function(kernel, call.func.value)
    if found is None:
        return None
    function, imported = found
    bound = bound_arguments(function, call, defaults=True)
    if bound is None:
        return None
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    statements = list(function.body.body)
    if statements and _is_docstring(statements[0]):
        statements = statements[1:]
    local: dict[str, cst.BaseExpression] = {}
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            value = _substituted(small.value, bound, local, imported, origins)
            if value is None:
                return None
            local[small.targets[0].target.value] = value
        elif isinstance(small, cst.Return) and small.value is not None and statement is statements[-1]:
            return _substituted(small.value, bound, local, imported, origins)
        else:
            return None
    return None


def _substituted(node: cst.BaseExpression, bound: dict[str, cst.BaseExpression], local: dict[str, cst.BaseExpression],
                 imported: bool, origins: dict[int, cst.Call] | None) -> cst.BaseExpression | None:
    free = set(names_in(node)) - set(bound) - set(local)
    if imported and free - {"tl", "triton"}:
        return None  # the other module's names mean nothing in the caller's
    result = node.visit(_Substitute({**bound, **local}, origins))
    return result if isinstance(result, cst.BaseExpression) else None


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.SimpleString)
