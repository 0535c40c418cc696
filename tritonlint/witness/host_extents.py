"""A grid extent the host names by a local it never passes (`hidden = inp.shape[1]`, then
`grid = (triton.cdiv(hidden, block), ...)` with `inp.stride(0)` passed): the kernel parameter that stands for it.

A contiguous 2-D tensor's row stride is its row length, so the parameter passed `X.stride(0)` holds the
extent `X.shape[1]` (or `X.shape[-1]`) that the grid walks in tiles: that parameter is the size the launch
makes partial. Read from the launching function's own assignments before the launch, in the kernel's file."""

from __future__ import annotations

import ast
import re
from typing import Any


def _launch_line(launch: Any) -> int | None:
    m = re.search(r":(\d+)$", str(getattr(launch, "where", "")))
    return int(m.group(1)) if m else None


def host_locals(text: str, launch: Any) -> dict[str, str]:
    """Name -> the text of its last assignment before the launch, in the function holding the launch
    (a launch in the kernel's own file only)."""
    line = _launch_line(launch)
    if launch is None or line is None or not getattr(launch, "local", False):
        return {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    holders = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
               and f.lineno <= line <= (f.end_lineno or f.lineno)]
    if not holders:
        return {}
    fn = min(holders, key=lambda f: (f.end_lineno or f.lineno) - f.lineno)
    out: dict[str, str] = {}
    for node in sorted((n for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.lineno < line),
                       key=lambda n: n.lineno):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.unparse(node.value)
    return out


def row_stride_for(extent: str, host: dict[str, str], args: dict[str, str], params: list[str]) -> str | None:
    """The kernel parameter passed `X.stride(0)` where the host's `extent` is `X.shape[1]` (or `[-1]`)."""
    value = host.get(extent, "").replace(" ", "")
    m = re.fullmatch(r"([A-Za-z_][\w.]*)\.shape\[(?:1|-1)\]", value)
    if m is None:
        return None
    wanted = f"{m.group(1)}.stride(0)"
    return next((p for p, text in args.items() if text.replace(" ", "") == wanted and p in params), None)
