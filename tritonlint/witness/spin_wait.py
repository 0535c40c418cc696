"""Spin-waits for other programs to arrive (a grid barrier: `while tl.atomic_add(counter, 0) <
num_programs: pass`). Compiled, all programs run at once and the last to arrive lets the others go;
Triton's interpreter runs programs one after another, so the first one waits for programs that never
start and the run only ends at the witness's timeout. Such a kernel is not launched.

Only a poll compared with a count that is no literal is one: a lock (`while tl.atomic_cas(lock, 0, 1)
== 1`) is released by each program before the next runs, and a wait for an earlier program's flag
(`while tl.load(flag, volatile=True) == 0`) finds it set, so both run under the interpreter.
"""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name
from tritonlint.witness.extract import Kernel

# Reads that see another program's writes while the loop spins.
# (Not `atomic_cas` and `atomic_xchg`: a lock's acquisition, see above.)
_ATOMICS = {"atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor"}


def _shared_read(node: ast.AST) -> bool:
    """Whether `node` reads memory through an atomic or a volatile load."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            name = call_name(n)
            if name in _ATOMICS:
                return True
            if name == "load" and any(k.arg == "volatile" and isinstance(k.value, ast.Constant) and k.value.value
                                      for k in n.keywords):
                return True
    return False


def _spins(loop: ast.While) -> bool:
    """A `while` whose test compares shared memory (read there, or by a name the body sets from such a
    read) with a count that is no literal."""
    polled = {t.id for stmt in ast.walk(ast.Module(body=loop.body, type_ignores=[]))
              if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None
              and _shared_read(stmt.value)
              for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]) if isinstance(t, ast.Name)}

    def polls(side: ast.AST) -> bool:
        return _shared_read(side) or any(isinstance(n, ast.Name) and n.id in polled for n in ast.walk(side))

    for test in ast.walk(loop.test):
        if isinstance(test, ast.Compare) and len(test.comparators) == 1:
            left, right = test.left, test.comparators[0]
            for poll, count in ((left, right), (right, left)):
                if polls(poll) and not polls(count) and not isinstance(count, ast.Constant):
                    return True
    return False


def spin_wait(kernel: Kernel, helpers: dict[str, Kernel]) -> str | None:
    """Where `kernel`, or a jit function it calls, spins on shared memory: `name` and line, else None."""
    seen: set[str] = set()
    todo = [kernel]
    while todo:
        fn = todo.pop()
        if fn.name in seen:
            continue
        seen.add(fn.name)
        for node in ast.walk(fn.node):
            if isinstance(node, ast.While) and _spins(node):
                return f"`{fn.name}`, line {node.lineno}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
                todo.append(helpers[node.func.id])
    return None
