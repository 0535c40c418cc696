"""An edited kernel's libcst tree from its previous tree: only the edited statements parsed again.

Parsing a 400-line kernel with libcst takes about 40 ms, a third of an edit in the editor. An
edit changes a few lines; the statements holding them are parsed alone and spliced into the
previous tree, which shares every other node (libcst trees are immutable).

The statements are found with the stdlib `ast` of both texts (the outline already has them):
the innermost run of sibling statements whose lines hold every changed line. Their new text is
parsed inside a wrapper that repeats the enclosing blocks' indentation (`if 1:` headers, one per
level), so that every whitespace token, continuation lines included, is what a parse of the
whole kernel gives. Where libcst's placement of comment lines (a statement's `leading_lines`
against a block's `footer`) could depend on what surrounds the run, the run must begin and end
with a line of code, or the splice is refused; so is anything the wrapper does not give back as
statements of its innermost block. A refusal tries the enclosing statement, and at the function
body gives up: the caller parses the whole kernel (`None`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from tritonlint.source.outline import KernelSource

# A line as ast and libcst count them (`str.splitlines` also breaks at form feeds and the like).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
# Compound statements whose `body` block an edit is looked for in (the rest are replaced whole).
_DESCENDED = (cst.If, cst.For, cst.While, cst.With)


@dataclass(frozen=True)
class _Level:
    """One block on the way from the function body to the edited statements."""

    block: cst.IndentedBlock
    statements: list[tuple[cst.BaseStatement, int, int]]  # each with its first and last line of code (0-based)
    holder: int  # index in the enclosing level's statements of the statement owning `block` (-1: the function)


def spliced(old: KernelSource, old_tree: cst.Module, new: KernelSource) -> cst.Module | None:
    """The libcst module of `new.text` built from `old_tree` (the module of `old.text`), or None
    when the edit cannot be spliced safely (then parse `new.text`)."""
    if old.indented or new.indented or old.function is None or new.function is None:
        return None
    if len(old_tree.body) != 1 or not isinstance(old_tree.body[0], cst.FunctionDef):
        return None
    function = old_tree.body[0]
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    old_lines = _LINE.findall(old.text)
    new_lines = _LINE.findall(new.text)
    shortest = min(len(old_lines), len(new_lines))
    first = 0
    while first < shortest and old_lines[first] == new_lines[first]:
        first += 1
    tail = 0
    while tail < shortest - first and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    if first == len(old_lines) == len(new_lines):
        return old_tree
    changed = (first, len(old_lines) - tail)  # old lines [begin, end) replaced
    delta = len(new_lines) - len(old_lines)
    levels = _levels(function.body, old.function.body, old.first_line, changed)
    if levels is None:
        return None
    for depth in range(len(levels) - 1, -1, -1):
        tree = _splice_at(old_tree, levels, depth, changed, old_lines, new_lines, delta)
        if tree is not None:
            return tree
    return None


def _levels(body: cst.IndentedBlock, statements: Sequence[ast.stmt], base: int,
            changed: tuple[int, int]) -> list[_Level] | None:
    """The blocks holding the changed lines, outermost first (None if libcst and ast disagree)."""
    begin, end = changed
    levels: list[_Level] = []
    holder = -1
    block: cst.IndentedBlock | None = body
    nodes: Sequence[ast.stmt] = statements
    while block is not None:
        aligned = _aligned(block, nodes, base)
        if aligned is None:
            return None if not levels else levels
        levels.append(_Level(block, aligned, holder))
        block = None
        for index, (statement, start, _) in enumerate(aligned):
            if not isinstance(statement, _DESCENDED) or not isinstance(statement.body, cst.IndentedBlock):
                continue
            inner = _ast_of(nodes, aligned, index)
            if not inner:
                continue
            body_start = _first_line(inner[0]) - base
            body_end = (inner[-1].end_lineno or 0) - base
            if start < begin and body_start <= begin and end <= body_end + 1:
                block, nodes, holder = statement.body, inner, index
                break
    return levels


def _ast_of(nodes: Sequence[ast.stmt], aligned: list[tuple[cst.BaseStatement, int, int]],
            index: int) -> list[ast.stmt] | None:
    """The body of the ast statement of the compound libcst statement `aligned[index]`."""
    position = sum(_small_count(s) for s, _, _ in aligned[:index])
    node = nodes[position] if position < len(nodes) else None
    body = getattr(node, "body", None)
    return body if isinstance(body, list) else None


def _small_count(statement: cst.BaseStatement) -> int:
    """How many ast statements a libcst statement is (`a; b` on one line: two)."""
    return len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1


def _aligned(block: cst.IndentedBlock, nodes: Sequence[ast.stmt],
             base: int) -> list[tuple[cst.BaseStatement, int, int]] | None:
    """Each libcst statement of `block` with its first and last line of code, read from `nodes`
    (the same block's ast statements: a libcst line of `a; b` is two of them). None on mismatch."""
    aligned = []
    position = 0
    for statement in block.body:
        simple = isinstance(statement, cst.SimpleStatementLine)
        count = _small_count(statement)
        group = nodes[position:position + count]
        position += count
        if len(group) != count or any(hasattr(node, "body") or hasattr(node, "cases") for node in group) != (not simple):
            return None
        aligned.append((statement, _first_line(group[0]) - base, (group[-1].end_lineno or 0) - base))
    return aligned if position == len(nodes) else None


def _first_line(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(decorator.lineno for decorator in decorators)])


def _splice_at(tree: cst.Module, levels: list[_Level], depth: int, changed: tuple[int, int],
               old_lines: list[str], new_lines: list[str], delta: int) -> cst.Module | None:
    """`tree` with the smallest run of statements of `levels[depth]` holding the changed lines
    parsed again from `new_lines`; None if that is not safe."""
    begin, end = changed
    statements = levels[depth].statements
    starts = [index for index, (_, start, _) in enumerate(statements) if start <= begin]
    if not starts:
        return None
    i = starts[-1]
    ends = [index for index in range(i, len(statements)) if statements[index][2] + 1 >= end]
    if not ends:
        return None
    j = ends[0]
    run_start, run_end = statements[i][1], statements[j][2] + 1  # old lines [run_start, run_end)
    if run_end + delta <= run_start:
        return None  # the statements deleted: the lines around them change owner
    text = new_lines[run_start:run_end + delta]
    if not (_is_code(text[0]) and _is_code(text[-1]) and text[-1].endswith(("\n", "\r"))):
        return None
    indent = _indentation(text[0])
    if indent != _indentation(old_lines[run_start]):
        return None
    after = run_end + delta
    follows_code = after >= len(new_lines) or _is_code(new_lines[after])
    replaced = [statement for statement, _, _ in statements[i:j + 1]]
    wrapper_indents = [_indentation(old_lines[level.statements[0][1]]) for level in levels[:depth + 1]]
    if wrapper_indents[-1] != indent:
        return None
    fresh = _parsed_run(text, wrapper_indents, tree)
    if fresh is None:
        return None
    if not follows_code and not all(isinstance(s, cst.SimpleStatementLine) for s in (replaced[-1], fresh[-1])):
        return None  # comment lines after a compound statement may belong to its block's footer
    fresh[0] = fresh[0].with_changes(leading_lines=_leading(replaced[0]))
    block = levels[depth].block
    body = [*block.body[:i], *fresh, *block.body[j + 1:]]
    return _rebuilt(tree, levels, depth, block.with_changes(body=body))


def _parsed_run(text: list[str], indents: list[str], tree: cst.Module) -> list[cst.BaseStatement] | None:
    """The statements `text` (lines at `indents[-1]`) parses to inside blocks indented as
    `indents`: the wrapper `if 1:` headers stand for the blocks enclosing them in the kernel."""
    newline = tree.default_newline
    headers = [f"{outer}if 1:{newline}" for outer in ["", *indents[:-1]]]
    try:
        wrapper = cst.parse_module("".join([*headers, *text]))
    except (cst.ParserSyntaxError, RecursionError):
        return None
    if wrapper.default_indent != tree.default_indent or wrapper.default_newline != tree.default_newline \
            or wrapper.footer or wrapper.header:
        return None
    body: Sequence[cst.BaseStatement] = wrapper.body
    for _ in headers:
        if len(body) != 1 or not isinstance(body[0], cst.If) or body[0].orelse is not None \
                or not isinstance(body[0].body, cst.IndentedBlock) or body[0].body.footer:
            return None
        body = body[0].body.body
    if not body or _leading(body[0]):
        return None
    return list(body)


def _rebuilt(tree: cst.Module, levels: list[_Level], depth: int, block: cst.IndentedBlock) -> cst.Module:
    """`tree` with `levels[depth]`'s block replaced by `block`, every block above it rebuilt."""
    for level in range(depth, 0, -1):
        outer = levels[level - 1]
        holder = outer.statements[levels[level].holder][0]
        assert isinstance(holder, _DESCENDED)
        changed = holder.with_changes(body=block)
        body = list(outer.block.body)
        body[levels[level].holder] = changed
        block = outer.block.with_changes(body=body)
    function = tree.body[0]
    assert isinstance(function, cst.FunctionDef)
    return tree.with_changes(body=[function.with_changes(body=block)])


def _leading(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The comment and blank lines a statement owns above it."""
    assert isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return statement.leading_lines


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _indentation(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]
