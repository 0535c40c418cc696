"""A kernel local defined once per constexpr branch (`elif SWIZZLE == "HOPPER": PACKED: tl.constexpr =
BLOCK_K // 32 * 32`): its value on the branches a launch takes.

`locals_of` keeps only locals assigned once; a tile size defined on each side of a mode switch is
assigned several times, and a finding that walks it (`arange(0, PACKED)`) needs its value to make
the tail partial against the tile the kernel really walks, not a default."""

from __future__ import annotations

import ast
from typing import Any

from tritonlint.witness.constraints import Unknown, branch_not_taken, evaluate


def taken_value(fn: ast.FunctionDef, name: str, env: dict[str, Any], local: dict[str, ast.expr]) -> Any:
    """The value of local `name` under `env`, where exactly one of its definitions sits on the branches
    `env` takes; None where there is none, several, or it does not evaluate."""
    values = [node.value for node in ast.walk(fn)
              if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id == name)
              or (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name)]
    taken = [v for v in values if v is not None and not branch_not_taken(fn, v, env, local)]
    if len(taken) != 1 or taken[0] is None:
        return None
    try:
        return evaluate(taken[0], env, local)
    except (Unknown, ArithmeticError, TypeError, ValueError):
        return None
