"""Reading Triton's call syntax: keyword arguments, `range` bounds, `advance` steps, comparisons."""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from tritonlint.source.names import code_of


def strip_casts(node: cst.BaseExpression) -> cst.BaseExpression:
    """`offs_k.to(index_type)` -> `offs_k`, `tl.load(p).to(tl.int64)` -> the load."""
    while type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "to":
        node = node.func.value
    return node


def ordered(comparison: cst.Comparison) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """A single comparison `a < b` (or `b > a`, `<=`, `>=`) as (a, b), the smaller side first;
    None for `==`, `!=`, `in` and the like, which select lanes rather than bound them."""
    target = comparison.comparisons[0]
    kind = type(target.operator)
    if kind is cst.LessThan or kind is cst.LessThanEqual:
        return comparison.left, target.comparator
    if kind is cst.GreaterThan or kind is cst.GreaterThanEqual:
        return target.comparator, comparison.left
    return None


def advance_step(pointer: cst.BaseExpression | None, owner: str, index: int,
                  qualify_tl: Callable[[cst.BaseExpression], str | None]) -> cst.BaseExpression | None:
    """The offset `bp.advance([a, b])` or `tl.advance(bp, (a, b))` moves block pointer `owner`
    by along `index`, when `pointer` is written that way."""
    if not isinstance(pointer, cst.Call):
        return None
    func, args = pointer.func, pointer.args
    if isinstance(func, cst.Attribute) and func.attr.value == "advance" and code_of(func.value) == owner and args:
        steps = args[0].value
    elif qualify_tl(func) == "advance" and len(args) > 1 and code_of(args[0].value) == owner:
        steps = args[1].value
    else:
        return None
    if isinstance(steps, (cst.Tuple, cst.List)) and index < len(steps.elements):
        return steps.elements[index].value
    return None


def range_args(call: cst.Call) -> list[cst.BaseExpression]:
    """start/stop/step of `range(...)` / `tl.range(..., step=BLOCK)`, keywords included."""
    args = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    if len(args) == 2 and "step" in keywords:
        args.append(keywords["step"])
    return args


def loop_range(iterable: cst.BaseExpression | None) -> list[cst.BaseExpression]:
    """start/stop/step of a loop's `range(...)` (any call: `tl.range`, `tl.static_range`; a
    `while` tile loop's equivalent `range`), as `range_args` reads them; empty for anything else."""
    return range_args(iterable) if type(iterable) is cst.Call else []


def pure_offset(node: cst.BaseExpression) -> bool:
    """`offs`, `offs[None, :]`, `tl.arange(0, D)`: offsets with no tile base added."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return isinstance(node, (cst.Name, cst.Call))


def is_boolean_shape(node: cst.BaseExpression) -> bool:
    """`FLAG`, `not FLAG`, `A and B`: values that restate conditions rather than compute data."""
    if isinstance(node, cst.Name):
        return node.value not in ("None", "True", "False")
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    return isinstance(node, cst.BooleanOperation)


def keyword(call: cst.Call, name: str, position: int) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None]
    return positional[position] if position < len(positional) else None


def bound_arguments(function: cst.FunctionDef, call: cst.Call,
                    defaults: bool = False) -> dict[str, cst.BaseExpression] | None:
    """The call's arguments by the parameter of `function` each binds, as Python binds them, or None
    when that cannot be read without running the code: `*args` or `**kwargs` at the call (they shift
    or hide what binds where), more positional arguments than parameters, a keyword the function
    lacks. With `defaults`, a parameter left unbound takes its default, and one with none makes it None
    (the call would fail)."""
    params = function.params.params
    names = [param.name.value for param in params]
    if any(arg.star for arg in call.args):
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if len(positional) > len(names):
        return None
    bound = dict(zip(names, positional))
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in names:
                return None
            bound[arg.keyword.value] = arg.value
    if defaults:
        for param in params:
            if param.name.value not in bound:
                if param.default is None:
                    return None
                bound[param.name.value] = param.default
    return bound


def string_keys(node: cst.BaseExpression) -> set[str]:
    """`args["BLOCK_K"]` -> {"BLOCK_K"}."""
    keys = set()
    for match in re.finditer(r"\[\s*['\"](\w+)['\"]\s*\]", code_of(node)):
        keys.add(match.group(1))
    return keys
