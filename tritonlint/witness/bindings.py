"""A name the kernel binds only under constexpr branches must be bound where it is read.

`if HAS_CU: start = tl.load(...)` and `if ROWS: start = row * n` bind `start` on one side each: the
launch must take one of them wherever `start` is read, or the run fails on the name (`UnboundLocalError`)
and proves nothing. Each read becomes a constraint: under the branches around the read, one of the
bindings' branch sets holds. Runtime tests stay unknown and ask for nothing (`constraints.holds`)."""

from __future__ import annotations

import ast

from tritonlint.witness.constraints import Constraint
from tritonlint.witness.uses import params_of

Guards = tuple[ast.expr, ...]


def _all(guards: Guards) -> ast.expr:
    return guards[0] if len(guards) == 1 else ast.BoolOp(op=ast.And(), values=list(guards))


def bound_where_read(fn: ast.FunctionDef) -> list[Constraint]:
    """One constraint per (name, branches around a read) for names bound only under branches."""
    binds: dict[str, list[Guards]] = {}
    reads: dict[str, list[Guards]] = {}

    def names(node: ast.AST, g: Guards) -> None:
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                (reads if isinstance(n.ctx, ast.Load) else binds).setdefault(n.id, []).append(g)

    def visit(stmts: list[ast.stmt], g: Guards) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                names(stmt.test, g)
                visit(stmt.body, (*g, stmt.test))
                visit(stmt.orelse, (*g, ast.UnaryOp(op=ast.Not(), operand=stmt.test)))
            elif isinstance(stmt, ast.For):
                names(stmt.target, g)
                names(stmt.iter, g)
                visit(stmt.body, g)
                visit(stmt.orelse, g)
            elif isinstance(stmt, (ast.While, ast.With)):
                names(stmt.test if isinstance(stmt, ast.While) else
                      ast.Tuple(elts=[i.context_expr for i in stmt.items], ctx=ast.Load()), g)
                visit(stmt.body, g)
                visit(getattr(stmt, "orelse", []), g)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                names(stmt, g)

    visit(fn.body, ())
    params = {a.arg for a in params_of(fn)}
    out: list[Constraint] = []
    for name, where in binds.items():
        if name in params or name not in reads or any(not g for g in where):
            continue  # a parameter, never read, or bound unconditionally somewhere
        one_of = ast.BoolOp(op=ast.Or(), values=[_all(g) for g in where]) if len(where) > 1 else _all(where[0])
        seen: set[str] = set()
        for g in reads[name]:
            key = ast.dump(ast.Tuple(elts=list(g), ctx=ast.Load()))
            if key not in seen:
                seen.add(key)
                out.append(Constraint(one_of, g, f"`{name}` bound where it is read"))
    return out
