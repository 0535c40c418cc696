"""Jit helpers a module imports, found and read from disk (never imported, never executed).

`from pkg.layout import unswizzle` names a helper in another module of the package: it is read from
the nearest folder above the importing file that holds that module. The semantic core asks when it
follows masked lanes into an imported helper; the fixer asks when it follows a tile through an
unswizzling helper. Files are read once per text (lru caches): many accesses ask about one module.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import libcst as cst

from tritonlint.source.names import dotted
from tritonlint.source.numbers import module_numbers
from tritonlint.source.parsed import parse_text

# What can hold a statement: statements, `except` clauses and `case` blocks.
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)
# The fields through which they hold one (every other field of theirs holds expressions, names or
# patterns, which hold none): `ast.iter_child_nodes` gives their children in `_fields` order.
_STATEMENT_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
MAX_HELPER_FILE = 1 << 21  # bytes: a module larger than this is not read for a helper


def module_constants(text: str) -> dict[str, int]:
    """Top-level `NAME = 128` (or `NAME: tl.constexpr = 128`) of a module."""
    return {name: value for name, value in module_numbers(text).items() if type(value) is int}


def imported_helper(name: str, file_text: str, path: str) -> tuple[cst.FunctionDef, Path, dict[str, int]] | None:
    """The jit function `name` that `path` imports with `from module import name`, read from disk."""
    for node in _imports_from(file_text):
        for alias in node.names:
            if (alias.asname or alias.name) != name:
                continue
            module = _module_file(Path(path), node.module or "", node.level)
            if module is None:
                return None
            return _function_in(module, alias.name)
    return None


@lru_cache(maxsize=16)
def _imports_from(text: str) -> tuple[ast.ImportFrom, ...]:
    """The `from module import name` statements of a module, parsed once per text: each access whose
    tile goes through a helper asks."""
    try:
        tree = parse_text(text)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    return tuple(node for node in statements_breadth_first(tree) if isinstance(node, ast.ImportFrom))


def statements_breadth_first(tree: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk(tree)` in its order (breadth first), without the expressions: they hold no
    statement, and they are most of a module's nodes. (`tree` a module, or any statement.)"""
    pending: deque[ast.AST] = deque([tree])
    while pending:
        node = pending.popleft()
        # Only the fields that hold statements are read: the expressions (most of a module) are
        # never listed, where `ast.iter_child_nodes` listed every child of every statement.
        fields = _statement_fields.get(type(node))
        if fields is None:
            fields = _statement_fields[type(node)] = tuple(name for name in node._fields if name in _STATEMENT_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                pending.extend(child for child in value if isinstance(child, _HOLDS_STATEMENTS))
        yield node


_statement_fields: dict[type[ast.AST], tuple[str, ...]] = {}  # a node class -> its `_STATEMENT_FIELDS`, in order


def _module_file(path: Path, module: str, level: int) -> Path | None:
    parts = [part for part in module.split(".") if part]
    try:
        folder = path.resolve().parent
    except OSError:
        return None
    if level:
        for _ in range(level - 1):
            folder = folder.parent
        bases = [folder]
    else:
        bases = [folder, *folder.parents]  # the nearest folder holding the top-level package
    for base in bases:
        candidate = base.joinpath(*parts)
        for file in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            if parts and file.is_file():
                return file
    return None


def _function_in(file: Path, name: str) -> tuple[cst.FunctionDef, Path, dict[str, int]] | None:
    try:
        if file.stat().st_size > MAX_HELPER_FILE:
            return None
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    module = _helper_module(text)
    if module is None:
        return None
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name and any(
                "jit" in (dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
                for d in statement.decorators):
            return statement, file, module_constants(text)
    return None


@lru_cache(maxsize=4)  # whole syntax trees: few kept (a file's helpers come from one or two modules)
def _helper_module(text: str) -> cst.Module | None:
    """A module holding imported helpers, parsed once per text (the whole module: each access through
    one of its helpers asked again); None where it does not parse."""
    try:
        return cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return None
