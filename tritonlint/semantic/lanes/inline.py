"""A `@triton.jit` helper's value at a call site, as one expression of the caller's.

`softcap(x, cap)` with `def softcap(x, cap): return cap * tanh(x / cap)` is `cap * tanh(x / cap)`
with the caller's arguments in place of the parameters: the masked lanes that reach it are followed
through that expression as if the caller had written it. Read only when the helper is a chain of
single assignments ending in one `return` (`y = x / cap`, `return cap * tanh(y)`), its names the
parameters, those locals and the names of the caller's module (a helper of the same file) or the
language (`tl`, an imported helper); anything else is not inlined.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.source.imports import imported_helper
from tritonlint.source.syntax import bound_arguments
from tritonlint.source.tree import names_in

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext


# The child fields of each node class, in declaration order (libcst nodes are slotted dataclasses).
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}
# The leaves a libcst transformer gives back as they are (their `_visit_and_replace_children`
# returns the node itself); every other node it rebuilds.
_KEPT_LEAVES = (cst.SimpleWhitespace, cst.Newline, cst.Comment, cst.ImportStar)


class _Substitution:
    """A fresh copy of a helper's expression with the parameters and locals replaced: what a
    libcst transformer (`leave_Name` and friends) gives, built without libcst's visitor, whose
    dispatch and validating constructors cost ten times the copy (inlining was most of an edit
    of a file of helpers). Every node of the result is new, as a transformer's are (the memos of
    the caller's reading key nodes by id, so no node of the helper's own tree may appear in it),
    except the whitespace leaves (as a transformer keeps them), the attribute names and argument
    keywords, kept as the helper's (no variables), and the caller's nodes put in for the names."""

    def __init__(self, bound: dict[str, cst.BaseExpression], origins: dict[int, cst.Call] | None) -> None:
        self.bound = bound
        self.origins = origins  # each call of the helper's as rewritten -> the helper's own node

    def copy(self, node: cst.CSTNode) -> cst.CSTNode:
        cls = type(node)
        if cls is cst.Name:
            value = self.bound.get(node.value)  # type: ignore[attr-defined]
            if value is not None:
                if isinstance(value, (cst.Name, cst.Call, cst.Subscript, cst.Attribute)) or value.lpar:
                    return value  # the caller's own node: a load stays the load the tracks know
                return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if cls in _KEPT_LEAVES:
            return node
        fields = _FIELDS.get(cls)
        if fields is None:
            fields = _FIELDS[cls] = tuple(field.name for field in dataclasses.fields(cls))
        fresh = object.__new__(cls)
        for name in fields:
            child: object = getattr(node, name)
            if isinstance(child, cst.CSTNode):
                if (cls is cst.Attribute and name == "attr") or (cls is cst.Arg and name == "keyword"):
                    pass  # `x.to(...)`, `axis=0`: a name that is no variable, kept as it is
                else:
                    child = self.copy(child)
            elif isinstance(child, (tuple, list)):
                child = tuple(self.copy(item) if isinstance(item, cst.CSTNode) else item for item in child)
            object.__setattr__(fresh, name, child)
        if cls is cst.Call and self.origins is not None:
            self.origins[id(fresh)] = node  # type: ignore[assignment]  # `tl.load(p, mask=m)` of the helper, now `tl.load(X + offs, ...)`
        return fresh


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
    result = _Substitution({**bound, **local}, origins).copy(node)
    return result if isinstance(result, cst.BaseExpression) else None


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) and isinstance(statement.body[0].value, cst.SimpleString)
