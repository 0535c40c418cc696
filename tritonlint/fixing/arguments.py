"""A new keyword argument laid out the way the call lays out its others.

- one argument per line (a trailing comma before the closing bracket on a line of its own, or
  every comma ending a line): the new one on a line of its own, indented as the others, with the
  call's trailing comma or none;
- otherwise (one line, or all the arguments on one indented line): after the last one, on its line.
A comment after the last argument stays on that argument's line; comment lines before the closing
bracket stay before it.
"""

from __future__ import annotations

import libcst as cst

_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
_SPACE = cst.SimpleWhitespace(" ")
_NONE = cst.SimpleWhitespace("")


def keyword_argument(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name), equal=_EQUAL)


def appended(call: cst.Call, new: cst.Arg) -> cst.Call:
    """`call` with `new` after its last argument, laid out like the others."""
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    trailing = last.comma if isinstance(last.comma, cst.Comma) else None
    closing = trailing.whitespace_after if trailing is not None else last.whitespace_after_arg
    line = _argument_line(call, args)
    if line is None or not isinstance(closing, cst.ParenthesizedWhitespace) and trailing is not None:
        # On one line (or a trailing comma on it, `f(a, b,)`): after the last, `, ` between.
        if trailing is not None:
            args[-1] = last.with_changes(comma=trailing.with_changes(whitespace_after=_SPACE))
            return call.with_changes(args=[*args, new.with_changes(comma=trailing)])
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=_SPACE), whitespace_after_arg=_NONE)
        return call.with_changes(args=[*args, new.with_changes(whitespace_after_arg=closing)])
    # One per line. The last argument's comma ends its line (its comment kept there) and opens the
    # new argument's, at the others' indentation; what stood before the closing bracket (comment
    # lines, the bracket's own indentation) follows the new argument.
    comment = closing.first_line if isinstance(closing, cst.ParenthesizedWhitespace) else cst.TrailingWhitespace()
    separator = cst.ParenthesizedWhitespace(first_line=comment, empty_lines=(), indent=line.indent,
                                            last_line=line.last_line)
    after: cst.BaseParenthesizableWhitespace = closing
    if isinstance(closing, cst.ParenthesizedWhitespace):
        after = closing.with_changes(first_line=cst.TrailingWhitespace())
    # else `f(a,\n  b)`: the bracket closes on the last argument's line, and still does
    if trailing is not None:
        args[-1] = last.with_changes(comma=trailing.with_changes(whitespace_after=separator))
        return call.with_changes(args=[*args, new.with_changes(comma=trailing.with_changes(whitespace_after=after))])
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=separator), whitespace_after_arg=_NONE)
    return call.with_changes(args=[*args, new.with_changes(whitespace_after_arg=after)])


def _argument_line(call: cst.Call, args: list[cst.Arg]) -> cst.ParenthesizedWhitespace | None:
    """The line break that starts each argument's line when the call puts one per line, else None."""
    separators = [arg.comma.whitespace_after for arg in args[:-1] if isinstance(arg.comma, cst.Comma)]
    if len(separators) < len(args) - 1:
        return None
    if separators:
        breaks = [s for s in separators if isinstance(s, cst.ParenthesizedWhitespace)]
        return breaks[-1] if len(breaks) == len(separators) else None
    # One argument: one per line only with black's trailing comma before a bracket on its own line.
    trailing = args[-1].comma
    opening = call.whitespace_before_args
    if (isinstance(trailing, cst.Comma) and isinstance(trailing.whitespace_after, cst.ParenthesizedWhitespace)
            and isinstance(opening, cst.ParenthesizedWhitespace)):
        return opening
    return None
