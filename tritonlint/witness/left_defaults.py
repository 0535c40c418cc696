"""Constexpr flags the callers leave at the launching function's default: `IS_VARIANT=is_variant`, where
`is_variant: bool = False` is a parameter of the host function that launches the kernel, and every call
of that function in the package passes no other value for it (none, or the default's own literal). Such a
flag is as pinned as a literal at the launch (`IS_VARIANT=False`): a confirmation that needs the other
value is latent (`runner._latent`).

Only bool defaults are read here: an int default (a block size) changes the sizes the witness launches, not
only what it says of them; `tile_defaults` reads those, for a second run where the guessed tiles stayed in bounds. The package is the top-level one holding the launching file (the folders
with an `__init__.py` above it); its files are read as text, never imported. Any use of the function's name
the reading cannot follow (passed as a value, imported under another name, called with `*args` or
`**kwargs`) leaves the parameter unpinned."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

from tritonlint.witness.package_files import package_root, parsed_file


def left_at_default(launch: Any, finding_file: Path) -> dict[str, tuple[str, str]]:
    """Kernel parameter -> (the default's text, where it is said) for the launch's arguments that name a
    bool parameter of the launching function that every call in the package leaves at its default.
    The launch's place names its file as the module's own (`ops.py:41`): it is read beside `finding_file`."""
    where = getattr(launch, "where", "")
    args = getattr(launch, "args", {})
    file_text, _, line_text = where.rpartition(":")
    path = finding_file.parent / Path(file_text).name
    if not line_text.isdigit() or not path.is_file():
        return {}
    function = enclosing_function(path, int(line_text))
    kernel = getattr(launch, "kernel", "")
    if function is None or not kernel or not any(is_named(node, kernel) for node in ast.walk(function)):
        return {}  # no launch of this kernel there: another module of that name holds it
    defaults = _bool_defaults(function)
    wanted = {param: name for param, name in args.items() if name in defaults}
    if not wanted:
        return {}
    reassigned = assigned_names(function)
    out: dict[str, tuple[str, str]] = {}
    for param, name in wanted.items():
        if name in reassigned:
            continue
        index, value, line = defaults[name]
        calls = _calls_leaving(str(package_root(path)), function.name, name, index, value)
        if calls:
            note = f"`{name}={value!r}` at {file_text}:{line}; none of its {calls} call(s) in the package passes another value"
            out[param] = (repr(value), note)
    return out


def assigned_names(function: ast.FunctionDef) -> set[str]:
    """The names the function's body stores to (a parameter reassigned is no longer its default)."""
    return {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def enclosing_function(path: Path, line: int) -> ast.FunctionDef | None:
    """The module-level host function whose body holds `line`."""
    tree = parsed_file(str(path))
    if tree is None:
        return None
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and statement.lineno <= line <= (statement.end_lineno or 0):
            return statement
    return None


def _bool_defaults(function: ast.FunctionDef) -> dict[str, tuple[int | None, bool, int]]:
    """Parameter -> (its position, None for keyword-only; its default; its line) for the bool-defaulted ones."""
    positional = [*function.args.posonlyargs, *function.args.args]
    out: dict[str, tuple[int | None, bool, int]] = {}
    for index, (arg, default) in enumerate(zip(positional[len(positional) - len(function.args.defaults):],
                                               function.args.defaults),
                                           start=len(positional) - len(function.args.defaults)):
        if isinstance(default, ast.Constant) and isinstance(default.value, bool):
            out[arg.arg] = (index, default.value, arg.lineno)
    for arg, kw_default in zip(function.args.kwonlyargs, function.args.kw_defaults):
        if isinstance(kw_default, ast.Constant) and isinstance(kw_default.value, bool):
            out[arg.arg] = (None, kw_default.value, arg.lineno)
    return out


@functools.lru_cache(maxsize=64)
def _calls_leaving(root: str, function: str, param: str, index: int | None, default: bool) -> int:
    """How many calls of `function` the package under `root` makes, when none passes `param` (by name,
    or at position `index`) a value other than the literal `default`, and every use of the name is one
    the reading follows; else 0."""
    named = re.compile(rf"\b{re.escape(function)}\b")
    calls = 0
    for file in sorted(Path(root).rglob("*.py")):
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return 0
        if function not in text or not named.search(text):  # the plain test first: 30x cheaper, and most fail it
            continue
        tree = parsed_file(str(file))
        if tree is None:
            return 0
        found = _calls_in(tree, function, param, index, default)
        if found is None:
            return 0
        calls += found
    return calls


def _calls_in(tree: ast.Module, function: str, param: str, index: int | None, default: bool) -> int | None:
    """The module's calls of `function`, when none passes `param` other than as the literal `default`;
    None when one does, or when the name is used in a way the reading does not follow."""
    called: set[int] = set()
    calls = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and is_named(node.func, function):
            called.add(id(node.func))
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                return None
            given = [k.value for k in node.keywords if k.arg == param]
            given += [node.args[index]] if index is not None and len(node.args) > index else []
            if not all(_is_literal(value, default) for value in given):
                return None
            calls += 1
        elif isinstance(node, (ast.ImportFrom, ast.Import)) and any(
                alias.name.rpartition(".")[2] == function and alias.asname not in (None, function)
                for alias in node.names):
            return None  # called under another name: its calls are not found by this one
    for node in ast.walk(tree):
        if is_named(node, function) and id(node) not in called and isinstance(getattr(node, "ctx", None), ast.Load):
            return None  # passed on as a value: called where this reading cannot see
    return calls


def _is_literal(node: ast.expr, value: bool) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def is_named(node: ast.AST, function: str) -> bool:
    """Whether the node is the name `function` or an attribute of that name (`ops.function`)."""
    return (isinstance(node, ast.Name) and node.id == function) or \
        (isinstance(node, ast.Attribute) and node.attr == function)
