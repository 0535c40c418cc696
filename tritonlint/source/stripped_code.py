"""An expression's source with all whitespace removed, read from the node's fields.

`code_of` keys expressions by their text without whitespace. libcst prints a node through its code
generator (a state object, a context manager per node, a token list), which on a file of kernels
was a twentieth of a check. The expressions it is asked about are names, attributes, arithmetic,
calls, comparisons and subscripts: those are spelled here token by token, in the code generator's
order. Whitespace is dropped, so only the tokens matter; any whitespace that may hold more than
spaces (a comment inside parentheses, a backslash continuation) and any other kind of node gives
None, and the caller prints the node with libcst as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst


class _Unsure(Exception):
    """The node holds something this module does not spell: libcst must print it."""


def stripped_code(node: cst.CSTNode) -> str | None:
    """The tokens of `node` joined without whitespace (string literals as written, their spaces
    included), or None where libcst's printer is needed."""
    out: list[str] = []
    try:
        _emit(node, out)
    except _Unsure:
        return None
    return "".join(out)


def _quiet(whitespace: object) -> None:
    """Whitespace that prints as blanks only (no comment, no backslash); else the printer is needed."""
    if type(whitespace) is not cst.SimpleWhitespace or "\\" in whitespace.value:
        raise _Unsure


def _emit(node: cst.CSTNode, out: list[str]) -> None:
    spell = _SPELLERS.get(type(node))
    if spell is None:
        raise _Unsure
    lpar: Sequence[cst.LeftParen] = node.lpar  # type: ignore[attr-defined]  # every speller's node has them
    for opening in lpar:
        _quiet(opening.whitespace_after)
        out.append("(")
    spell(node, out)
    rpar: Sequence[cst.RightParen] = node.rpar  # type: ignore[attr-defined]
    for closing in rpar:
        _quiet(closing.whitespace_before)
        out.append(")")


def _value(node: cst.CSTNode, out: list[str]) -> None:
    out.append(node.value)  # type: ignore[attr-defined]  # Name, Integer, Float, Imaginary, SimpleString


def _one_token(operator: cst.CSTNode, out: list[str]) -> None:
    """An operator of one token (`+`, `.`, `=`, `,`, `:`, `<`) or two (`not in`, `is not`)."""
    _quiet(operator.whitespace_before)  # type: ignore[attr-defined]
    if isinstance(operator, (cst.NotIn, cst.IsNot)):
        _quiet(operator.whitespace_between)
        out.extend(operator._get_tokens())
    else:
        out.append(operator._get_token())  # type: ignore[attr-defined]
    _quiet(operator.whitespace_after)  # type: ignore[attr-defined]


def _attribute(node: cst.Attribute, out: list[str]) -> None:
    _emit(node.value, out)
    _one_token(node.dot, out)
    _emit(node.attr, out)


def _binary(node: cst.BinaryOperation | cst.BooleanOperation, out: list[str]) -> None:
    _emit(node.left, out)
    _one_token(node.operator, out)
    _emit(node.right, out)


def _unary(node: cst.UnaryOperation, out: list[str]) -> None:
    out.append(node.operator._get_token())
    _quiet(node.operator.whitespace_after)
    _emit(node.expression, out)


def _comparison(node: cst.Comparison, out: list[str]) -> None:
    _emit(node.left, out)
    for target in node.comparisons:
        _one_token(target.operator, out)
        _emit(target.comparator, out)


def _comma(comma: object, default: bool, out: list[str]) -> None:
    """A list item's comma: written, or the one the printer adds between items (`default`)."""
    if comma is cst.MaybeSentinel.DEFAULT:
        if default:
            out.append(",")
    else:
        _one_token(comma, out)  # type: ignore[arg-type]


def _call(node: cst.Call, out: list[str]) -> None:
    _emit(node.func, out)
    _quiet(node.whitespace_after_func)
    out.append("(")
    _quiet(node.whitespace_before_args)
    last = len(node.args) - 1
    for number, arg in enumerate(node.args):
        out.append(arg.star)
        _quiet(arg.whitespace_after_star)
        if arg.keyword is not None:
            _emit(arg.keyword, out)
        if arg.equal is cst.MaybeSentinel.DEFAULT:
            if arg.keyword is not None:
                out.append("=")
        else:
            _one_token(arg.equal, out)
        _emit(arg.value, out)
        _comma(arg.comma, number != last, out)
        _quiet(arg.whitespace_after_arg)
    out.append(")")


def _subscript(node: cst.Subscript, out: list[str]) -> None:
    _emit(node.value, out)
    _quiet(node.whitespace_after_value)
    _quiet(node.lbracket.whitespace_after)
    out.append("[")
    last = len(node.slice) - 1
    for number, element in enumerate(node.slice):
        part = element.slice
        if type(part) is cst.Index:
            if part.star is not None:
                out.append(part.star)
            if part.whitespace_after_star is not None:
                _quiet(part.whitespace_after_star)
            _emit(part.value, out)
        elif type(part) is cst.Slice:
            if part.lower is not None:
                _emit(part.lower, out)
            _one_token(part.first_colon, out)
            if part.upper is not None:
                _emit(part.upper, out)
            if part.second_colon is cst.MaybeSentinel.DEFAULT:
                if part.step is not None:
                    out.append(":")
            else:
                _one_token(part.second_colon, out)
            if part.step is not None:
                _emit(part.step, out)
        else:
            raise _Unsure
        _comma(element.comma, number != last, out)
    _quiet(node.rbracket.whitespace_before)
    out.append("]")


_SPELLERS: dict[type, Callable[..., None]] = {
    cst.Name: _value, cst.Integer: _value, cst.Float: _value, cst.Imaginary: _value, cst.SimpleString: _value,
    cst.Attribute: _attribute, cst.BinaryOperation: _binary, cst.BooleanOperation: _binary,
    cst.UnaryOperation: _unary, cst.Comparison: _comparison, cst.Call: _call, cst.Subscript: _subscript,
}
