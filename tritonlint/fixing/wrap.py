"""Lines a fix made longer than the line length, split the way black (and ruff's formatter) would.

Only inside brackets, never with a backslash. A logical line is read as tokens and split as black
splits it (its `linegen.py`, reduced to what fixes produce):
- a line inside brackets splits first at its lowest-priority operators at bracket depth 0 (commas,
  then `if`/`else`, `and`/`or`, comparisons, `|`, `^`, `&`, shifts, `+ -`, `* / // % @`), each
  operand on its own line with its operator first; a call split at its commas gets a trailing comma;
- otherwise at its last bracket pair (the right-hand split): `head(`, the body one level deeper,
  `)tail`, omitting trailing pairs (`.to(tl.int64)`) while the head would not fit;
- an assignment's right side is wrapped in parentheses of its own where black would (more than one
  operator of its lowest priority, or no bracket to split at the end).
A comment at the end of the line stays at the end of the last line. Lines that hold a string, a
backslash or a comment elsewhere are left as they are.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import islice

_COMMA, _TERNARY, _LOGIC, _COMPARE = 18, 16, 14, 10
_MATH = {"|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4, "//": 4, "%": 4, "@": 4, "**": 1}
_COMPARATORS = {"<", ">", "==", "!=", "<=", ">=", "in", "is"}
_OPENING, _CLOSING = "([{", ")]}"
_ASSIGNMENTS = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "&=", "|=", "^=", ">>=", "<<=", "**=", "@="}
_STEP = "    "  # black's indentation inside brackets


@dataclass(frozen=True)
class Leaf:
    text: str
    space: str  # the whitespace before it on the line as written (dropped at the start of a line)
    kind: int  # the tokenize type


def _render(leaves: list[Leaf], comment: str) -> str:
    text = "".join(leaf.space + leaf.text if index else leaf.text for index, leaf in enumerate(leaves))
    # `comment` keeps the whitespace written before it (a tab stays a tab); black's two spaces
    # only where it was written against the code.
    return text + (comment if comment[:1].isspace() else f"  {comment}" if comment else "")


def leaves_of(line: str) -> tuple[list[Leaf], str] | None:
    """The tokens of one logical line (without its indentation) and its trailing comment, or None
    where it cannot be split safely (a string, a comment inside, unbalanced brackets)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    leaves: list[Leaf] = []
    comment, end, depth = "", 0, 0
    for token in tokens:
        if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
            continue
        if comment or token.start[0] != 1 or token.end[0] != 1 or token.type == tokenize.ERRORTOKEN \
                or token.type == getattr(tokenize, "FSTRING_START", -1):
            return None  # something after the comment, a second physical line, an f-string
        if token.type == tokenize.COMMENT:
            comment = line[end:token.start[1]] + token.string  # with the whitespace before it
            continue
        if token.string == ";":
            return None  # two statements: black would split them, not their brackets
        depth += (token.string in _OPENING) - (token.string in _CLOSING)
        if depth < 0:
            return None
        leaves.append(Leaf(token.string, line[end:token.start[1]], token.type))
        end = token.end[1]
    return (leaves, comment) if leaves and depth == 0 else None


def wrapped(line: str, indent: str, limit: int, inside_brackets: bool, comma: bool = True) -> list[str]:
    """`line` (one logical line, its indentation `indent`) as black would lay it out within
    `limit` columns; the line itself where it fits or cannot be split. `comma`: whether a trailing
    comma may end it (it ends before a closing bracket), as black adds one to arguments it splits."""
    read = leaves_of(line)
    if read is None:
        return [indent + line]
    leaves, comment = read
    return _transform(leaves, comment, indent, limit, inside_brackets, comma)


def _transform(leaves: list[Leaf], comment: str, indent: str, limit: int, inside: bool,
               comma: bool = True) -> list[str]:
    text = indent + _render(leaves, comment)
    if len(text) <= limit:
        return [text]
    if inside:
        parts = _delimiter_split(leaves, comma)
        if parts is not None:
            out: list[str] = []
            for index, part in enumerate(parts):
                out.extend(_transform(part, comment if index == len(parts) - 1 else "", indent, limit, True,
                                      comma=index < len(parts) - 1 or comma))
            return out
    split = _right_hand_split(leaves, indent, limit, inside)
    if split is None:
        return [text]
    head, body, tail = split
    step = "\t" if "\t" in indent else _STEP  # a tab-indented file gets a tab, not four spaces
    return (_transform(head, "", indent, limit, inside) + _transform(body, "", indent + step, limit, True)
            + _transform(tail, comment, indent, limit, inside))


def _matching(leaves: list[Leaf]) -> dict[int, int]:
    """Closing bracket index -> its opening bracket's index."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for index, leaf in enumerate(leaves):
        if leaf.text in _OPENING:
            stack.append(index)
        elif leaf.text in _CLOSING and stack:  # a split line's tail closes what its head opened
            pairs[index] = stack.pop()
    return pairs


def _delimiters(leaves: list[Leaf]) -> dict[int, int]:
    """Index of the leaf a line may be split before (after, for a comma) -> its priority, at depth 0."""
    found: dict[int, int] = {}
    depth = 0
    for index, leaf in enumerate(leaves):
        if leaf.text in _CLOSING:
            depth -= 1
        if depth == 0 and index > 0:
            previous = leaves[index - 1]
            operand_before = previous.text in _CLOSING or (previous.kind in (tokenize.NAME, tokenize.NUMBER)
                                                            and previous.text not in _KEYWORDS)
            if leaf.text == ",":
                found[index] = _COMMA
            elif leaf.text in ("if", "else"):
                found[index] = _TERNARY
            elif leaf.text in ("and", "or"):
                found[index] = _LOGIC
            elif operand_before and (leaf.text in _COMPARATORS or (leaf.text == "not" and index + 1 < len(leaves)
                                                                   and leaves[index + 1].text == "in")):
                found[index] = _COMPARE
            elif operand_before and leaf.text in _MATH:
                found[index] = _MATH[leaf.text]
        if leaf.text in _OPENING:
            depth += 1
    return found


_KEYWORDS = {"if", "else", "and", "or", "not", "in", "is", "lambda", "return", "for", "None", "True", "False"}
_KEYWORDS -= {"None", "True", "False"}


def _delimiter_split(leaves: list[Leaf], comma: bool = True) -> list[list[Leaf]] | None:
    trailing = leaves[-1].text == ","
    found = {i: p for i, p in _delimiters(leaves).items() if not (trailing and i == len(leaves) - 1)}
    if not found or any(leaf.text in ("lambda", "for") for leaf in leaves):
        return None
    top = max(found.values())
    parts: list[list[Leaf]] = [[]]
    for index, leaf in enumerate(leaves):
        if found.get(index) == top and top != _COMMA and parts[-1]:
            parts.append([])
        parts[-1].append(leaf)
        if found.get(index) == top and top == _COMMA:
            parts.append([])
    parts = [part for part in parts if part]
    if top == _COMMA and comma and parts[-1][-1].text != "," and not any(leaf.text in ("*", "**") and i == 0
                                                               for part in parts for i, leaf in enumerate(part)):
        parts[-1] = [*parts[-1], Leaf(",", "", tokenize.OP)]  # black's trailing comma
    return parts if len(parts) > 1 else None


def _right_hand_split(leaves: list[Leaf], indent: str, limit: int,
                      inside: bool) -> tuple[list[Leaf], list[Leaf], list[Leaf]] | None:
    """(head, body, tail) at the last bracket pair, or at the parentheses an assignment's right side
    is given; the first of the trailing pairs (`f(...).to(...)`) whose head line fits."""
    pairs = _matching(leaves)
    balanced = _depth_at(leaves, len(leaves)) == 0 and len(pairs) * 2 == sum(
        leaf.text in _OPENING + _CLOSING for leaf in leaves)
    assignment = None if not balanced or inside else next((i for i, leaf in enumerate(leaves) if leaf.text in _ASSIGNMENTS and _depth_at(leaves, i) == 0),
                      None)
    candidates = _trailing_pairs(leaves, pairs, assignment)
    if assignment is not None and assignment + 1 < len(leaves):
        right = leaves[assignment + 1:]
        if not candidates or not _omit_parentheses(right, leaves, assignment, candidates[0], indent, limit):
            opening = Leaf("(", right[0].space, tokenize.OP)
            return leaves[:assignment + 1] + [opening], [replace(right[0], space=""), *right[1:]], \
                [Leaf(")", "", tokenize.OP)]
    splits = [(leaves[:open_ + 1], leaves[open_ + 1:close], leaves[close:]) for open_, close in candidates
              if close > open_ + 1]
    if not splits:
        return None
    for split in splits:
        if len(indent + _render(split[0], "")) <= limit:
            return split
    return splits[0]


def _depth_at(leaves: list[Leaf], index: int) -> int:
    depth = 0
    for leaf in leaves[:index]:
        depth += (leaf.text in _OPENING) - (leaf.text in _CLOSING)
    return depth


def _trailing_pairs(leaves: list[Leaf], pairs: dict[int, int], after: int | None) -> list[tuple[int, int]]:
    """The bracket pairs that end the line and the trailers before them, last first: for
    `x = f(a).to(b)`, `(b)` then `f(a)`'s."""
    found: list[tuple[int, int]] = []
    index = len(leaves) - 1
    while index >= 0 and index not in pairs:  # black: what follows the last closing bracket is the tail
        index -= 1
    while index >= 0 and index in pairs:
        opening = pairs[index]
        if after is not None and opening <= after:
            break
        found.append((opening, index))
        index = opening - 1
        if index >= 1 and leaves[index].kind == tokenize.NAME and leaves[index - 1].text == ".":
            index -= 2  # `.to(` : keep walking the chain
        elif index >= 0 and leaves[index].kind == tokenize.NAME:
            break
    return found


def _omit_parentheses(right: list[Leaf], leaves: list[Leaf], assignment: int, last: tuple[int, int], indent: str,
                      limit: int) -> bool:
    """Whether black splits an assignment's right side at its own last bracket rather than wrapping
    it in parentheses (its `can_omit_invisible_parens`)."""
    found = _delimiters(right)
    if not found:
        return True  # black: no operator, parentheses of its own would split nothing
    if found:
        top = max(found.values())
        if list(found.values()).count(top) > 1:
            return False
    opening, closing = last
    if closing != len(leaves) - 1:
        return False  # the line does not end with that bracket
    if opening == assignment + 1 and closing == len(leaves) - 1:
        return True  # the right side is one bracketed atom
    before = leaves[assignment + 1:opening]
    if any(leaf.text in _OPENING for leaf in before):
        return True  # black: other brackets open before the last one
    return len(indent + _render(leaves[:opening + 1], "")) <= limit


def wrap_region(text: str, start: int, end: int, limit: int) -> tuple[str, int]:
    """`text` with every line from the one holding offset `start` to the one holding `end` that runs
    past `limit` laid out as black would; `start` must begin a statement (bracket depth 0).

    A line is re-laid out when it is a whole logical line, or a whole stretch of arguments inside
    brackets (it follows an opening bracket or a comma and ends with a comma or before the closing
    bracket). Each result is checked to mean what the line meant (the stdlib `ast` of both), else
    the line is kept as it was. Also returns where the statement holding `end` ends in `text`:
    nothing after it changes."""
    region = laid_region(text, start, end, limit)
    if region.laid is None:
        return text, end
    tail = "\n" + text[region.read:] if region.read <= len(text) else ""
    return text[:region.begin] + region.laid + tail, region.end


@dataclass(frozen=True)
class Region:
    """What `laid_region` read and wrote: the lines from offset `begin` up to `read` (just past the
    newline of the last line read; one more than the text's length when that line ran to its end),
    laid out (None: nothing can be laid out, the text stays as it is), and where the statement holding
    the edit ends (`wrap_region`'s second result)."""

    begin: int
    read: int
    laid: str | None
    end: int


def laid_region(text: str, start: int, end: int, limit: int) -> Region:
    """`wrap_region`'s work on the lines it reads: the text from `begin` to `read` is replaced by
    `laid` (without the newline that ends the last line read). Reads only from the line holding
    `start` to the line after the statement holding `end`: a caller may pass a window of a huge
    file, and trust the result where `read` is within the window (every line read was whole)."""
    begin = text.rfind("\n", 0, start) + 1
    last = text.count("\n", begin, end)
    # Only the lines up to the statement's end, and the one after (the layout looks ahead to it),
    # are split and read: the rest of the text is kept as it is (splitting it all was a pass over
    # the rest of the file for each wrapped fix, quadratic on a huge file).
    source = _lines_from(text, begin)
    lines: list[str] = []
    depths = _line_depths(source, last, lines)
    if depths is None:
        return Region(begin, begin + sum(len(line) + 1 for line in lines), None, end)
    lines.extend(islice(source, 1))
    read = begin + sum(len(line) + 1 for line in lines)  # where the first line not read starts
    # The last line of the statement holding `end` (depths holds one more entry than lines read).
    final_line = max(last, len(depths) - 2)
    region_end = begin + sum(len(line) + 1 for line in lines[:final_line + 1]) - 1
    out: list[str] = []
    emitted: dict[int, int] = {}  # line number -> where its text begins in `out`
    number = 0
    while number < len(lines):
        emitted[number] = len(out)
        line = lines[number]
        body = line.rstrip("\r")
        if number > last or len(body) <= limit or number + 1 >= len(depths):
            out.append(line)
            number += 1
            continue
        before, after = depths[number], depths[number + 1]
        content = body.strip(" \t")
        indent = body[:len(body) - len(body.lstrip(" \t"))]
        newline = "\r" if line.endswith("\r") else ""
        # A whole stretch inside brackets: arguments after `(` or `,` up to `,` or `)`, or an operand
        # between operators (`tl.load(...)` before `if FLAG` in a conditional over lines).
        closes = _code(content).endswith(",") or _starts_closing(lines, number + 1)
        stretch = (before > 0 and after == before and number > 0
                   and (_ends_open(lines[number - 1]) or _starts_operator(content))
                   and (closes or _starts_operator(lines[number + 1] if number + 1 < len(lines) else "")))
        if before == 0 and after == 0 or stretch:
            laid = wrapped(content, indent, limit, inside_brackets=stretch, comma=closes)
            if len(laid) > 1 and (_same_tokens(content, laid) if stretch else _same_meaning(content, laid)):
                out.extend(part + newline for part in laid)
            else:
                out.append(line)
            number += 1
            continue
        # Part of a statement over several lines: the whole statement joined and laid out again, as
        # black would, where joining loses nothing (no comment but at its end, no trailing comma).
        first = number
        while first > 0 and depths[first] > 0:
            first -= 1
        final = number
        while final + 1 < len(depths) - 1 and depths[final + 1] > 0:
            final += 1
        joined = _joined(lines[first:final + 1])
        if joined is not None:
            top = lines[first].rstrip("\r")
            indent = top[:len(top) - len(top.lstrip(" \t"))]
            laid = wrapped(joined, indent, limit, inside_brackets=False)
            if _same_meaning(joined, laid):
                del out[emitted[first]:]
                out.extend(part + newline for part in laid)
                number = final + 1
                continue
        out.append(line)
        number += 1
    return Region(begin, read, "\n".join(out), region_end)


def _lines_from(text: str, begin: int) -> Iterator[str]:
    """The lines of `text` from offset `begin` (split at `\\n`, as `str.split` would), one at a time."""
    position = begin
    while True:
        newline = text.find("\n", position)
        if newline < 0:
            yield text[position:]
            return
        yield text[position:newline]
        position = newline + 1


def _joined(lines: list[str]) -> str | None:
    """The physical lines of one statement as one line (the spacing black gives a joined line), or
    None where that would lose something: a comment before the last line, a trailing comma black
    keeps exploded, a string, a backslash, two statements (`a; b`)."""
    parts: list[str] = []
    for index, line in enumerate(lines):
        code = line.rstrip("\r").strip(" \t")
        if _line_tokens(code) is None or ";" in _code(code) or (_code(code) != code and index < len(lines) - 1):
            return None
        if parts and code[:1] in _CLOSING and parts[-1].endswith(","):
            return None  # a magic trailing comma
        glue = "" if not parts or parts[-1][-1:] in _OPENING or code[:1] in _CLOSING else " "
        parts.append(glue + code)
    return "".join(parts)


def _line_depths(source: Iterator[str], last: int, lines: list[str]) -> list[int] | None:
    """Bracket depth at the start of each line, up to the end of the statement holding line `last`;
    each line read from `source` is appended to `lines`."""
    depths = [0]
    depth = 0
    for number, line in enumerate(source):
        lines.append(line)
        read = _tokens(line)
        if read is None:
            return None
        for token in read:
            depth += (token in _OPENING) - (token in _CLOSING)
        if depth < 0:
            return None
        depths.append(depth)
        if number >= last and depth == 0:
            return depths
    return depths


def _line_tokens(line: str) -> list[tokenize.TokenInfo] | None:
    """The tokens of one physical line read alone (brackets it leaves open are fine), None where
    it cannot be read alone (a string running onto the next line, a backslash)."""
    found: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(line + "\n").readline):
            found.append(token)  # noqa: PERF402 (kept up to a bracket left open at the end)
    except tokenize.TokenError as error:
        if "statement" not in str(error):  # "EOF in multi-line statement": only brackets left open
            return None
    except (SyntaxError, IndentationError):
        return None
    if line.rstrip().endswith("\\") or any(t.type == tokenize.ERRORTOKEN for t in found):
        return None
    return found


def _tokens(line: str) -> list[str] | None:
    """The brackets of one physical line, None where the line cannot be read alone."""
    found = _line_tokens(line)
    if found is None:
        return None
    return [t.string for t in found if t.type == tokenize.OP and t.string in _OPENING + _CLOSING]


def _code(line: str) -> str:
    """The line without its comment (read as tokens: a `#` in a string is no comment)."""
    found = _line_tokens(line) or []
    comment = next((t for t in found if t.type == tokenize.COMMENT), None)
    return line[:comment.start[1]].rstrip() if comment is not None else line.rstrip()


def _ends_open(line: str) -> bool:
    code = _code(line).strip()
    return code.endswith(",") or (bool(code) and code[-1] in _OPENING)


def _starts_closing(lines: list[str], number: int) -> bool:
    return number < len(lines) and lines[number].strip()[:1] in tuple(_CLOSING)


def _starts_operator(line: str) -> bool:
    found = _line_tokens(line.strip())
    first = next((t.string for t in found or () if t.type in (tokenize.OP, tokenize.NAME)), "")
    return first in _MATH or first in _COMPARATORS or first in ("if", "else", "and", "or", "not")


def _same_meaning(line: str, laid: list[str]) -> bool:
    """Whether the statement `line` and its wrapped lines are one syntax tree."""
    try:
        return ast.dump(ast.parse(textwrap.dedent(line))) == ast.dump(ast.parse(textwrap.dedent("\n".join(laid))))
    except SyntaxError:
        return False


def _same_tokens(line: str, laid: list[str]) -> bool:
    """Whether a stretch of a statement and its wrapped lines are the same tokens, but for line
    breaks, comments and the trailing commas black adds before a closing bracket."""
    def significant(lines: list[str]) -> list[str] | None:
        found: list[str] = []
        for part in lines:
            tokens = _line_tokens(part.strip())
            if tokens is None:
                return None
            found += [t.string for t in tokens if t.type not in _LAYOUT]
        return [t for i, t in enumerate(found) if t != "," or (i + 1 < len(found) and found[i + 1] not in _CLOSING)]
    before, after = significant([line]), significant(laid)
    return before is not None and before == after


_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
