"""Sizes a kernel counts one by one in a loop (`for i_t in range(0, T):`, one token an iteration).

Under the interpreter every iteration runs the loop body's tensor operations in Python: a recurrent
kernel's per-token loop at the default size (two of the largest tile, 32) made each launch take seconds
and a finding's six runs its whole time limit. Two iterations show what a loop's stepping does (the
pointer advanced once, then read again), so such a size, when it is not the finding's axis, gets two.
A segment length read from memory (`bos, eos = tl.load(P + i), tl.load(P + i + 1)`, then `T = eos -
bos`) counts too: the loop's count is then the segment's length.
"""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name

LOOP_COUNT = 2  # iterations of a one-by-one loop over a size that is not the finding's axis


def _bound(loop: ast.For) -> str | None:
    """The name a `for ... in range(...)` loop of step 1 ends at, if any."""
    call = loop.iter
    if not (isinstance(call, ast.Call) and call_name(call) == "range" and call.args):
        return None
    if len(call.args) == 3 and not (isinstance(call.args[2], ast.Constant) and call.args[2].value == 1):
        return None  # stepped by a tile: a tile's walk, which needs its partial tile
    end = call.args[0] if len(call.args) == 1 else call.args[1]
    return end.id if isinstance(end, ast.Name) else None


def _assigned(fn: ast.FunctionDef) -> dict[str, list[ast.expr]]:
    """Each local name -> the values assigned to it (a tuple target matched element by element)."""
    out: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                out.setdefault(target.id, []).append(node.value)
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                    and len(target.elts) == len(node.value.elts):
                for t, v in zip(target.elts, node.value.elts):
                    if isinstance(t, ast.Name):
                        out.setdefault(t.id, []).append(v)
    return out


def _loaded_from(value: ast.expr, pointers: set[str]) -> set[str]:
    """The pointer parameters `value` loads through (`tl.load(P + i)` -> P)."""
    out: set[str] = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and call_name(node) == "load" and node.args:
            out |= {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name) and n.id in pointers}
    return out


def loop_counted(fn: ast.FunctionDef, sizes: set[str], segments: dict[str, str]) -> set[str]:
    """The sizes (and segment pseudo sizes, `segments`: pointer -> its name) that a step-1 `range` loop
    of the kernel counts."""
    assigned = _assigned(fn)
    out: set[str] = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.For):
            continue
        end = _bound(node)
        if end is None:
            continue
        if end in sizes:
            out.add(end)
        # `T = eos - bos` with both loaded from a segment pointer: the loop counts the segment.
        for value in assigned.get(end, []):
            names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            for name in names:
                for source in assigned.get(name, []):
                    out |= {segments[p] for p in _loaded_from(source, set(segments))}
    return out
