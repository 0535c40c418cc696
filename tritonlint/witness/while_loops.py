"""`while` loops that stand for a `range`: `k = 0`, `while k < N:`, `k += BLOCK` walks what
`for k in range(0, N, BLOCK)` walks. Read as that range, the counter is a loop index like any other:
bounded by what its end reads (`while t < tl.cdiv(N, BLOCK)`: tile t of N, not row t of a
BLOCK-wide table), and its step no row stride."""

from __future__ import annotations

import ast


def while_ranges(fn: ast.FunctionDef) -> dict[str, ast.Call]:
    """Counter -> `range(start, end, step)` for each `while counter < end:` whose body moves the counter
    by one top-level `counter += step` (start: the counter's last plain assignment before the loop, else 0)."""
    out: dict[str, ast.Call] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.While) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                and isinstance(node.test.ops[0], ast.Lt) and isinstance(node.test.left, ast.Name)):
            continue
        counter = node.test.left.id
        steps = [s.value for s in node.body if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add)
                 and isinstance(s.target, ast.Name) and s.target.id == counter]
        if len(steps) != 1:
            continue
        # The counter's last assignment before the loop, in source order (`ast.walk` is breadth-first).
        before = [other for other in ast.walk(fn) if isinstance(other, ast.Assign) and other.lineno < node.lineno
                  and len(other.targets) == 1 and isinstance(other.targets[0], ast.Name)
                  and other.targets[0].id == counter]
        start: ast.expr = max(before, key=lambda a: a.lineno).value if before else ast.Constant(value=0)
        out[counter] = ast.Call(func=ast.Name(id="range", ctx=ast.Load()),
                                args=[start, node.test.comparators[0], steps[0]], keywords=[])
    return out
