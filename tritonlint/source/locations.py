"""Where libcst nodes of a kernel sit in the file, read from the stdlib `ast` outline.

libcst computes positions with `PositionProvider`, a full code-generation pass over the kernel that
costs about as much as parsing it. The `ast` tree of the file, which the outline has already built,
carries positions on every node for free. The two trees hold the same calls, comparisons and loops
in the same source order, so the n-th `Call` of a kernel's libcst tree is the n-th `ast.Call` of
its `ast` function: matching by rank gives a node's position without a second pass.

A node whose kind is not indexed here, or a kernel where the two trees disagree (a count differs,
a matched call names another function), is answered with None; the caller then falls back to
`PositionProvider`, so a mismatch costs time, never a wrong position.

In the editor, an edited kernel's tree shares every statement the edit left alone with its previous
tree (`kernel_splice`), and an unedited kernel's tree is the same tree: while `reusing_ranks` is on,
the ranked nodes under each statement are kept by the statement node (an immutable subtree) and
only the statements an edit made are walked again.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import libcst as cst

from tritonlint.source.imports import statements_breadth_first
from tritonlint.source.names import dotted
from tritonlint.source.parsed import ast_dotted
from tritonlint.source.tree import ordered_children

# libcst node type -> the ast node type that spells the same source.
_KINDS: dict[type[cst.CSTNode], type[ast.AST]] = {
    cst.Call: ast.Call,
    cst.Comparison: ast.Compare,
    cst.For: ast.For,
    cst.While: ast.While,
}
_AST_KINDS = tuple(_KINDS.values())


class StatementRanks:
    """The calls, comparisons and loops under each statement node, in source order, kept from one
    check of a buffer to the next (only those of the statements the last check ranked)."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[cst.BaseStatement, list[cst.CSTNode]]] = {}
        self._used: dict[int, tuple[cst.BaseStatement, list[cst.CSTNode]]] = {}

    def under(self, statement: cst.BaseStatement) -> list[cst.CSTNode]:
        key = id(statement)
        entry = self._used.get(key) or self._kept.get(key)
        if entry is None or entry[0] is not statement:  # the node holds its id while it is kept
            entry = (statement, _ranked_nodes(statement, self))
        self._used[key] = entry
        return entry[1]

    def turn(self) -> None:
        """A check is over: keep what it used, let the rest (replaced statements) go."""
        self._kept, self._used = self._used, {}


_reused: StatementRanks | None = None


@contextmanager
def reusing_ranks(ranks: StatementRanks) -> Iterator[None]:
    """Rank the kernels' nodes through `ranks` while the block runs (one thread: the editor's
    analysis thread), then keep only the statements this check ranked."""
    global _reused
    previous, _reused = _reused, ranks
    try:
        yield
    finally:
        _reused = previous
        ranks.turn()


def _ranked_nodes(root: cst.CSTNode, ranks: StatementRanks | None) -> list[cst.CSTNode]:
    """The nodes of the ranked kinds under `root` (itself included), in `nodes_under`'s order:
    depth first, so a statement's are one run of the list, taken whole from `ranks`."""
    found: list[cst.CSTNode] = []
    pending: list[cst.CSTNode] = [root]
    while pending:
        node = pending.pop()
        if ranks is not None and node is not root and isinstance(node, cst.BaseStatement):
            found.extend(ranks.under(node))
            continue
        if type(node) in _KINDS:
            found.append(node)
        pending.extend(reversed(ordered_children(node)))
    return found


def _bare_chain(node: cst.CSTNode) -> bool:
    """`a.b.c` with no parentheses anywhere in it."""
    while type(node) is cst.Attribute:
        if node.lpar:
            return False
        node = node.value
    return type(node) is cst.Name and not node.lpar


@dataclass(frozen=True)
class Span:
    """A node's place in the file: 1-based lines, 0-based character columns."""

    line: int
    column: int
    end_line: int
    end_column: int


class Locator:
    """Positions of one kernel's calls, comparisons and loops, by rank in source order."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, text: str, starts: Sequence[int]) -> None:
        self._function = function
        self._text = text
        self._starts = starts
        self._ranks: dict[int, tuple[type[ast.AST], int]] | None = None  # built on first use
        # The callee of each ranked call written without parentheses (`tl.exp` of `tl.exp(x)`), by
        # the call's rank: a rule names the line of a callee whose call the model rebuilt.
        self._callees: dict[int, int] = {}
        self._ast: dict[type[ast.AST], list[ast.AST]] = {}
        self._agrees = True
        self._simple: list[tuple[ast.stmt, tuple[int, ...], tuple[int, ...]]] | None = None  # built on first use

    def span(self, root: cst.CSTNode, node: cst.CSTNode) -> Span | None:
        """Where `node` (somewhere under `root`, the kernel's libcst function) sits; None if unknown."""
        target = self._match(root, node)
        return None if target is None else self._span_of(target)

    def statement_start(self, root: cst.CSTNode, call: cst.Call, kind: str) -> tuple[int, int] | None:
        """(line, column) where the simple statement holding `call` starts, when it is the only
        statement of its line and its ast class is named `kind` (`Assign`, `Expr`); None if unknown.

        A statement alone on its line starts where its first token does, which is where ast puts it.
        """
        target = self._match(root, call)
        if target is None:
            return None
        # Simple statements do not nest, so at most one holds the call.
        if self._simple is None:
            # (a walk of the statements only: the expressions, most of the nodes, hold none)
            self._simple = [(node, _source_order(node)[:2], _end(node))
                            for node in statements_breadth_first(self._function)
                            if isinstance(node, ast.stmt) and not hasattr(node, "body")
                            and not hasattr(node, "cases")]
        where, end = _source_order(target)[:2], _end(target)
        holder = next((node for node, start, stop in self._simple if start <= where and stop >= end), None)
        if holder is None or type(holder).__name__ != kind:
            return None
        return holder.lineno, self._column(holder.lineno, holder.col_offset)

    def _match(self, root: cst.CSTNode, node: cst.CSTNode) -> ast.AST | None:
        """The ast node spelling the same source as `node`; None if unknown."""
        if self._ranks is None:
            self._ranks = self._rank(root)
        found = self._ranks.get(id(node)) if self._agrees else None
        if found is None:
            return self._callee(node) if self._agrees else None
        kind, rank = found
        target = self._ast[kind][rank]
        if isinstance(node, cst.Call) and isinstance(target, ast.Call) and \
                dotted(node.func) != ast_dotted(target.func):
            return None
        return target

    def _rank(self, root: cst.CSTNode) -> dict[int, tuple[type[ast.AST], int]]:
        found: dict[type[ast.AST], list[ast.AST]] = {kind: [] for kind in _AST_KINDS}
        for node in _ast_ranked_nodes(self._function):
            found[type(node)].append(node)
        # Source order: by start; an enclosing node (a call whose callee is a call) before the
        # nested one that starts at the same place, as in a pre-order walk of the libcst tree.
        self._ast = {kind: sorted(nodes, key=_source_order) for kind, nodes in found.items()}
        counts = {kind: 0 for kind in _AST_KINDS}
        ranks: dict[int, tuple[type[ast.AST], int]] = {}
        for cst_node in _ranked_nodes(root, _reused):
            kind = _KINDS[type(cst_node)]
            ranks[id(cst_node)] = (kind, counts[kind])
            if kind is ast.Call:
                func = cst_node.func  # type: ignore[attr-defined]  # a cst.Call: _KINDS said so
                if _bare_chain(func):
                    self._callees[id(func)] = counts[kind]
            counts[kind] += 1
        self._agrees = all(counts[kind] == len(self._ast[kind]) for kind in _AST_KINDS)
        return ranks

    def _callee(self, node: cst.CSTNode) -> ast.AST | None:
        """The ast callee spelling the same source as `node`, the unparenthesized callee of a ranked
        call (ast and libcst place a name or an attribute chain alike); None if unknown."""
        rank = self._callees.get(id(node))
        if rank is None:
            return None
        target = self._ast[ast.Call][rank]
        assert isinstance(target, ast.Call)
        if dotted(node) != ast_dotted(target.func):  # type: ignore[arg-type]  # a Name or an Attribute
            return None
        return target.func

    def _span_of(self, node: ast.AST) -> Span | None:
        line, end_line = node.lineno, node.end_lineno  # type: ignore[attr-defined]
        if end_line is None or end_line > len(self._starts):
            return None
        column = self._column(line, node.col_offset)  # type: ignore[attr-defined]
        end_column = self._column(end_line, node.end_col_offset)  # type: ignore[attr-defined]
        return Span(line, column, end_line, end_column)

    def _column(self, line: int, byte_offset: int) -> int:
        return char_column(self._text, self._starts, line, byte_offset)


# ast nodes that hold no node of the ranked kinds (names, constants, contexts, operators), and the
# fields that hold only such nodes: not walked.
_AST_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop,
               ast.alias)
_AST_SKIPPED = {"ctx", "op", "ops", "type_comment"}
_AST_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _ast_ranked_nodes(function: ast.AST) -> list[ast.AST]:
    """The ast nodes of the ranked kinds under `function`, in no particular order: `ast.walk`
    without its generators and without the leaves (a third of a kernel's nodes are `Load()`s
    and names), four times faster."""
    found: list[ast.AST] = []
    pending = [function]
    while pending:
        node = pending.pop()
        if isinstance(node, _AST_KINDS):
            found.append(node)
        kind = type(node)
        names = _AST_FIELDS.get(kind)
        if names is None:
            names = _AST_FIELDS[kind] = tuple(name for name in kind._fields if name not in _AST_SKIPPED)
        for name in names:
            value = getattr(node, name, None)
            if type(value) is list:
                pending.extend(item for item in value if isinstance(item, ast.AST) and not isinstance(item, _AST_LEAVES))
            elif isinstance(value, ast.AST) and not isinstance(value, _AST_LEAVES):
                pending.append(value)
    return found


def char_column(text: str, starts: Sequence[int], line: int, byte_offset: int) -> int:
    """ast columns count UTF-8 bytes; the file's text counts characters."""
    end = starts[line] if line < len(starts) else len(text)
    written = text[starts[line - 1]:end]
    if written.isascii():
        return byte_offset
    return len(written.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno or 0, node.end_col_offset or 0  # type: ignore[attr-defined]


def _source_order(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset,  # type: ignore[attr-defined]
            -(node.end_lineno or 0), -(node.end_col_offset or 0))  # type: ignore[attr-defined]
