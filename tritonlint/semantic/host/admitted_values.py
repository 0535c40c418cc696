"""Sizes the host admits only from a literal table: `if (hidden, experts) not in SUPPORTED_SHAPES: raise`
where `SUPPORTED_SHAPES = frozenset({(3072, 256), (4096, 8)})` is a module constant.

Read before the launch, in the launching function's body or in a module function it calls there as a
statement with its own values (`_validate(x, w)`, the test read with the call's arguments for the
parameters): an `assert v in TABLE`, an `if ... v not in TABLE ...: raise` (one disjunct of the
test is enough: the raise leaves every disjunct false; in the launching function a `return` too, never
in the validator, whose return the launch still follows), or an `if v in TABLE:` around the launch.
`v` is a value or a tuple of values (`shape = (x.shape[1], w.shape[0])`), read element by element
against the table's tuples. A kernel argument whose host text names an element (`K=hidden_size`
with `hidden_size = x.shape[1]`) takes only the table's values there.

Witness-only (`Launch.admitted`): the witness marks a confirmation at a size outside the table latent.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator, Mapping, Sequence

from tritonlint.semantic.host.host_guards import (
    Body,
    aliases,
    compact_text,
    inline,
    parameter_names,
)

# kernel parameter -> (the values the host admits, the test that says so, for notes)
Admitted = dict[str, tuple[tuple[int, ...], str]]
Table = tuple[tuple[int, ...], ...]


def literal_tables(tree: ast.Module) -> dict[str, Table]:
    """Module constants bound once to a literal collection of integers or of tuples of integers
    (`frozenset({(3072, 256), ...})`, `{16, 32}`, `(128, 256)`), each entry as a tuple."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for bound in ast.walk(target):
                    if isinstance(bound, ast.Name):
                        counts[bound.id] = counts.get(bound.id, 0) + 1
                if isinstance(target, ast.Name) and statement.value is not None:
                    values[target.id] = statement.value
    tables: dict[str, Table] = {}
    for name, value in values.items():
        table = _table(value) if counts.get(name) == 1 else None
        if table:
            tables[name] = table
    return tables


def _table(value: ast.expr) -> Table | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in ("frozenset", "set", "tuple", "list") and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if not isinstance(value, (ast.Set, ast.Tuple, ast.List)):
        return None
    entries: list[tuple[int, ...]] = []
    for element in value.elts:
        items = element.elts if isinstance(element, ast.Tuple) else [element]
        if not all(isinstance(i, ast.Constant) and type(i.value) is int for i in items):
            return None
        entries.append(tuple(i.value for i in items if isinstance(i, ast.Constant) and type(i.value) is int))
    if not entries or len({len(e) for e in entries}) != 1:
        return None
    return tuple(entries)


def _memberships(test: ast.expr, holds: bool) -> Iterator[ast.Compare]:
    """The `v in T` comparisons that hold when `test` is `holds`: a conjunct of a test that holds, a
    disjunct of one that fails (`v not in T` read as `v in T` when it fails)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or) \
        else [test]
    for part in parts:
        if isinstance(part, ast.Compare) and len(part.ops) == 1 \
                and isinstance(part.ops[0], ast.In if holds else ast.NotIn):
            yield part


def _tests(statements: Sequence[ast.stmt], ifs: Sequence[tuple[ast.expr, bool]], line: int,
           exits: tuple[type[ast.stmt], ...]) -> Iterator[tuple[ast.Compare, ast.stmt | ast.expr]]:
    """(`v in T`, the statement or test stating it) for the top-level statements before `line` and the
    `if`s around it; `exits`: the statements ending an `if` that keep the launch from running."""
    for test, side in ifs:
        for found in _memberships(test, side):
            yield found, test
    for statement in statements:
        if statement.lineno >= line:
            break
        if isinstance(statement, ast.Assert):
            for found in _memberships(statement.test, True):
                yield found, statement
        elif isinstance(statement, ast.If) and not statement.orelse and statement.body \
                and isinstance(statement.body[-1], exits):
            for found in _memberships(statement.test, False):
                yield found, statement


class _Arguments(ast.NodeTransformer):
    """A callee's expression in the caller's terms: each parameter becomes the call's argument."""

    def __init__(self, bound: Mapping[str, ast.expr]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.bound[node.id]) if node.id in self.bound else node


def _called(function: ast.FunctionDef, call: ast.Call) -> dict[str, ast.expr] | None:
    params = parameter_names(function)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) \
            or len(call.args) > len(params):
        return None
    bound = dict(zip(params, call.args))
    bound |= {k.arg: k.value for k in call.keywords if k.arg is not None}
    return bound


def _elements(value: ast.expr, width: int) -> list[ast.expr] | None:
    if width == 1 and not isinstance(value, ast.Tuple):
        return [value]
    if isinstance(value, ast.Tuple) and len(value.elts) == width:
        return list(value.elts)
    return None


def admitted_values(statements: Sequence[ast.stmt], ifs: Sequence[tuple[ast.expr, bool]], body: Body, line: int,
                    args: Mapping[str, str], functions: Mapping[str, ast.FunctionDef], tables: Mapping[str, Table],
                    display: str) -> Admitted:
    """Kernel parameter -> the values a literal table admits for it (see the module's docstring)."""
    if not tables:
        return {}
    # (element in the launching body's terms, the values its table column holds, where)
    columns: list[tuple[str, tuple[int, ...], str]] = []

    def read(found: ast.Compare, where: str, own: Body, at: int, bound: Mapping[str, ast.expr]) -> None:
        table_name = found.comparators[0]
        if not isinstance(table_name, ast.Name) or table_name.id not in tables:
            return
        table = tables[table_name.id]
        value = _Arguments(bound).visit(inline(found.left, own, at)) if bound else inline(found.left, own, at)
        elements = _elements(value, len(table[0]))
        if elements is None:
            return
        for index, element in enumerate(elements):
            column = tuple(sorted({entry[index] for entry in table}))
            columns.append((compact_text(element), column, where))

    for found, stated in _tests(statements, ifs, line, (ast.Raise, ast.Return)):
        what = "assert" if isinstance(stated, ast.Assert) else "if"
        read(found, f"`{what} {ast.unparse(found)}` at {display}:{stated.lineno}", body, line, {})
    for statement in statements:  # a validator called as a statement before the launch
        if statement.lineno >= line:
            break
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.func.id not in functions:
            continue
        callee = functions[call.func.id]
        bound = _called(callee, call)
        if bound is None:
            continue
        own = Body(callee.body)
        for found, stated in _tests(callee.body, (), callee.end_lineno or callee.lineno, (ast.Raise,)):
            read(found, f"`{ast.unparse(found)}` raises in `{callee.name}` at {display}:{stated.lineno}, "
                        f"called at {display}:{statement.lineno}", own, stated.lineno, bound)
    admitted: Admitted = {}
    for param, text in args.items():
        names = aliases(text, body, line)
        for element, column, where in columns:
            if element in names and param not in admitted:
                admitted[param] = (column, where)
    return admitted
