"""Sizes a kernel only uses to split a program id into indices (`off_b = off_hb // nheads`,
`off_h = off_hb % nheads`): a count of rows, never an extent an offset is compared with.

The launch's grid already decides how many such rows run (a row axis gets a couple of programs), so a
large value buys no coverage; it only multiplies every buffer that holds all the rows (`nheads` 256
made flash attention's Q 42 million elements per launch, and every run ran past its time limit).
"""

from __future__ import annotations

import ast

ROW_COUNT = 2  # as many rows as a row axis runs programs (synth.ROW_PROGRAMS)


def index_only_sizes(fn: ast.FunctionDef, sizes: set[str]) -> set[str]:
    """The sizes whose every read in `fn` divides a program id (`pid // n` or `pid % n`, the program id
    read directly or through a local holding it): never a divisor of offsets (`offs // group_size`),
    whose value shapes what each lane reads."""
    pids = _program_id_locals(fn)
    divisors: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod)) \
                and isinstance(node.right, ast.Name) and node.right.id in sizes and _is_program_id(node.left, pids):
            divisors.add(id(node.right))
    out: set[str] = set()
    for name in sizes:
        reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if reads and all(id(n) in divisors for n in reads):
            out.add(name)
    return out


def _is_program_id(node: ast.expr, pids: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in pids
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "program_id":
            return True
        if node.func.attr == "to":  # `tl.program_id(1).to(tl.int64)`
            return _is_program_id(node.func.value, pids)
    return False


def _program_id_locals(fn: ast.FunctionDef) -> set[str]:
    """Locals assigned a program id and nothing else (`off_hb = tl.program_id(1)`, tuples included)."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) \
                    and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts) \
                    else [(target, node.value)]
                for t, v in pairs:
                    if isinstance(t, ast.Name):
                        values.setdefault(t.id, []).append(v)
    return {name for name, vs in values.items() if all(_is_program_id(v, set()) for v in vs)}
