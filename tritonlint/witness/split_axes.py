"""Program axes that split a size's walk between programs (split-K): one program per part, not per tile.

`rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)` reads as tiles of K along axis 2, one program per tile;
but a loop `for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K))` stepping the pointers by
`BLOCK_K * SPLIT_K` makes each program walk every SPLIT_K-th tile, and the launch runs SPLIT_K
programs on that axis (the tutorial's `grid = (..., SPLIT_K)`). With one program per tile, the
programs past SPLIT_K walk past the end at whole tiles too, and the launch matches no caller's.
"""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name


def split_axes(fn: ast.FunctionDef, axes: dict[int, tuple[str | None, str | None]]) -> dict[int, str]:
    """Program axis -> the factor F of the loops that walk its size S in steps of `T * F`, T its tile:
    `range(tl.cdiv(S, T * F))`, `range(0, S, T * F)`."""
    out: dict[int, str] = {}
    for loop in ast.walk(fn):
        if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and call_name(loop.iter) == "range"):
            continue
        args = loop.iter.args
        walks: list[tuple[ast.expr, ast.expr]] = []  # (size, step)
        if len(args) == 3:
            walks.append((args[1], args[2]))
        if args and isinstance(args[-1], ast.Call) and call_name(args[-1]) == "cdiv" and len(args[-1].args) == 2:
            walks.append((args[-1].args[0], args[-1].args[1]))
        for size, step in walks:
            factors = _factors(step)
            if not isinstance(size, ast.Name) or factors is None or len(factors) != 2:
                continue
            for dim, (walked, tile) in axes.items():
                if walked == size.id and tile in factors:
                    other = factors[1] if factors[0] == tile else factors[0]
                    out.setdefault(dim, other)
    return out


def _factors(node: ast.expr) -> list[str] | None:
    """`A`, `B` of `A * B` (names or literals); None for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _factors(node.left), _factors(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return [str(node.value)]
    return None
