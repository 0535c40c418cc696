"""Locals defined on several constexpr branches, read on the side the launch takes.

`if PER_HEAD: ptrs = b + h * stride + offs; mask = offs < n` / `else: ptrs = b + offs; mask = None`:
the flagged `tl.load(ptrs, mask=mask)` is unmasked only on the `else` side, so that side is the one to
reach (`none_mask_reach`), and there the tensor is laid out by the `else` definition of `ptrs`
(`taken_first`), not by the first one written."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tritonlint.witness.call_names import call_name
from tritonlint.witness.uses import Uses


def none_mask_reach(fn: ast.FunctionDef, uses: Uses, line: int,
                    reaching: Callable[[ast.FunctionDef, int], list[Any]]) -> list[Any]:
    """The branch tests over the `mask = None` definition of the local the flagged access is masked by."""
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and call_name(node) in ("load", "store") and node.args
                and node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        at = 1 if call_name(node) == "load" else 2
        mask = next((k.value for k in node.keywords if k.arg == "mask"), node.args[at] if len(node.args) > at else None)
        if not isinstance(mask, ast.Name):
            continue
        values = uses.defs.get(mask.id, ())
        unmasked = [v for v in values if isinstance(v, ast.Constant) and v.value is None]
        if len(values) > 1 and unmasked:
            return reaching(fn, unmasked[0].lineno)
    return []


@contextmanager
def taken_first(uses: Uses, expr: ast.expr, not_taken: Callable[[ast.expr], bool]) -> Iterator[None]:
    """While inside, each local `expr` reads whose first definition is on a branch the launch does not take
    reads first a definition that is on one."""
    saved: dict[str, list[ast.expr]] = {}
    for name in uses.reached(Uses._names(expr), depth=4):
        values = uses.defs.get(name, [])
        if len(values) < 2 or name in uses.params or not not_taken(values[0]):
            continue
        taken = next((i for i, v in enumerate(values) if not not_taken(v)), None)
        if taken is not None:
            saved[name] = values
            uses.defs[name] = [values[taken], *values[:taken], *values[taken + 1:]]
    try:
        yield
    finally:
        uses.defs.update(saved)
