"""The stdlib `ast` of a file's text, parsed once for everyone who reads it.

The outline (kernels, imports), the module's numbers and the imported helpers each read the same
text's syntax tree; a check of one file used to parse it up to three times. The trees are only read
(nothing here or in the analysis writes to an `ast` node), so one tree serves them all.

A huge text (over `LEAN_ABOVE` characters) is parsed a stretch of top-level statements at a time,
and each top-level function decorated with `triton.jit` is kept as a `KernelStub`: its name,
parameters, decorators and place, with `pass` for a body. The whole tree of a 5 MB file of kernels
is 560 MB; the kernels' bodies are then parsed again from their text, one group at a time, when the
analysis needs their positions (`kernel_syntax`). What a stub loses is what the outline would have
read inside a kernel's body (an import, a nested function, `f = triton.jit(f)`): none is valid
Triton in a kernel.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterator

from tritonlint.source.names import ImportMap, is_jit_decorator

LEAN_ABOVE = 1_000_000  # characters
_STRETCH = 200_000  # characters of statements parsed at once, at least
# Where a top-level statement may start: a line that starts with neither a blank, a comment, a
# closing bracket, a backslash nor a clause of a compound statement. A stretch cut anywhere else
# (inside brackets or a string, between a decorator and its function) does not parse, and is read
# on to the next such place.
_STATEMENT_START = re.compile(r"^(?!(?:else|elif|except|finally)\b)[^\s#)\]}\\]", re.MULTILINE)
_NEWLINE = re.compile(r"\n")


class KernelStub(ast.FunctionDef):
    """A top-level jit function of a lean tree, without its body (see the module's docstring)."""


# A text whose tree is known without parsing it (`seed_blanked`): the editor's buffer with its
# unchanged kernels blanked out, whose tree is the buffer's without them.
_seeded: dict[str, ast.Module] = {}


def seed_blanked(text: str, blanked: str, removed: list[ast.stmt]) -> None:
    """Make `parse_text(blanked)` the tree of `text` without the top-level statements `removed`:
    `blanked` is `text` with exactly those statements' lines turned into blank ones (every other
    offset and line where it was), so `ast.parse(blanked)` gives that tree, at the same positions.
    Only the last seed is kept."""
    _seeded.clear()
    if blanked == text:
        return
    gone = {id(node) for node in removed}
    tree = parse_text(text)
    if not gone <= {id(node) for node in tree.body}:
        return  # not statements of this text's tree: parsed when asked
    _seeded[blanked] = ast.Module(body=[node for node in tree.body if id(node) not in gone],
                                  type_ignores=tree.type_ignores)


# The last few texts parsed and their trees: a check reads its file and the modules its helpers are
# imported from; the editor's incremental check reads the buffer, then the buffer with its
# unchanged kernels blanked out (seeded).
@functools.lru_cache(maxsize=4)
def parse_text(text: str) -> ast.Module:
    """`ast.parse(text)` (lean for a huge text), remembered for the last texts asked. Raises what
    `ast.parse` raises."""
    seeded = _seeded.pop(text, None)
    if seeded is not None:
        return seeded
    # `\r` line ends and the one future import that changes the grammar: the whole text at once.
    if len(text) <= LEAN_ABOVE or "\r" in text or "barry_as_FLUFL" in text:
        return ast.parse(text)
    return lean_parse(text)


def lean_parse(text: str) -> ast.Module:
    """The text's tree with its top-level jit functions as stubs, parsed a stretch at a time (the
    whole text's tree never exists at once). Where a stretch does not parse on its own up to the end
    of the text, the whole text is parsed as `ast.parse` would (its error is the text's error)."""
    places = [match.start() for match in _STATEMENT_START.finditer(text)] + [len(text)]
    starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]  # where each line starts
    body: list[ast.stmt] = []
    imports = ImportMap()
    stubs: list[tuple[int, int, int]] = []  # (index in body, first line, end offset) of each stub
    begin, line = 0, 0  # the stretch's first offset, and the lines before it
    while begin < len(text):
        size = _STRETCH
        while True:
            at = bisect.bisect_left(places, begin + size)
            end = places[min(at, len(places) - 1)]
            try:
                tree = ast.parse("\n" * line + text[begin:end])  # blank lines: the file's line numbers
                break
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                if end >= len(text):
                    return ast.parse(text)
                size *= 2
        for node in tree.body:
            _add_imports(node, imports)
            if type(node) is ast.FunctionDef and node.decorator_list:
                first = min(decorator.lineno for decorator in node.decorator_list)
                last = node.end_lineno or node.lineno
                stubs.append((len(body), first, starts[last] if last < len(starts) else len(text)))
                node = _stub(node)
            body.append(node)
        line += text.count("\n", begin, end)
        begin = end
    # A decorated function that is no kernel (its decorators read with every import of the file)
    # is host code, read whole: parsed again from its text.
    for index, first, stop in stubs:
        stub = body[index]
        assert isinstance(stub, ast.FunctionDef)
        if not any(is_jit(decorator, imports) for decorator in stub.decorator_list):
            body[index] = ast.parse("\n" * (first - 1) + text[starts[first - 1]:stop]).body[0]
    return ast.Module(body=body, type_ignores=[])


def kernel_syntax(function: ast.FunctionDef | ast.AsyncFunctionDef, text: str, first_line: int
                  ) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """A jit function's whole tree: `function` itself, or, for a stub, its text (starting at line
    `first_line` of the file) parsed again, at the file's lines."""
    if type(function) is not KernelStub:
        return function
    parsed = ast.parse("\n" * (first_line - 1) + text).body[0]
    assert isinstance(parsed, ast.FunctionDef)
    return parsed


def _stub(node: ast.FunctionDef) -> KernelStub:
    fields = {name: getattr(node, name) for name in node._fields if name != "body"}
    stub = KernelStub(**fields, body=[ast.Pass(lineno=node.lineno, col_offset=node.col_offset,
                                               end_lineno=node.lineno, end_col_offset=node.col_offset)])
    ast.copy_location(stub, node)
    return stub


def _add_imports(node: ast.stmt, imports: ImportMap) -> None:
    """The imports of a top-level statement and of every statement nested in it (the outline's)."""
    for statement in statements([node]):
        read_import(statement, imports)


def read_import(statement: ast.stmt, imports: ImportMap) -> bool:
    """Add what an `import` or `from ... import` statement binds; whether it was one."""
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            imports.add_import(alias.name, alias.asname)
        return True
    if isinstance(statement, ast.ImportFrom) and statement.module:
        for alias in statement.names:
            imports.add_from(statement.module, alias.name, alias.asname)
        return True
    return False


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones included, without visiting expressions: imports and function
    definitions are statements, and expressions are most of a file's nodes."""
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        yield statement
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                pending.extend(reversed(inner))
        for handler in getattr(statement, "handlers", ()):
            pending.extend(reversed(handler.body))
        for case in getattr(statement, "cases", ()):
            pending.extend(reversed(case.body))


def is_jit(decorator: ast.expr, imports: ImportMap) -> bool:
    """Whether a decorator (`@triton.jit`, `@jit(...)` imported from triton) makes a jit function."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return is_jit_decorator(imports.qualify_dotted(ast_dotted(target)))


def ast_dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = ast_dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
