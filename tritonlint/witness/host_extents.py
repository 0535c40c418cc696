"""Grid extents the kernel never receives, read from the host.

- A grid over a host extent that is no argument: `kernel[(triton.cdiv(n_rows * n_cols, unroll),)](x, out,
  unroll)` walks `pid * unroll + arange(0, unroll)` unmasked, and only the host knows how far
  (`host_extents`). The synthesizer makes that extent a pseudo size, partial like any, and the tensors the
  axis walks hold exactly that many elements, as the host's tensors the extent counts do.
- A grid extent the host names by a local it never passes (`hidden = inp.shape[1]`, then
  `grid = (triton.cdiv(hidden, block), ...)` with `inp.stride(0)` passed): the kernel parameter that stands
  for it (`host_locals`, `row_stride_for`). A contiguous 2-D tensor's row stride is its row length, so the
  parameter passed `X.stride(0)` holds the extent `X.shape[1]` (or `X.shape[-1]`) that the grid walks in
  tiles: that parameter is the size the launch makes partial. Read from the launching function's own
  assignments before the launch, in the kernel's file.
"""

from __future__ import annotations

import ast
import re
from typing import Any


def host_extents(launch: Any, params: list[str]) -> dict[int, tuple[str, str]]:
    """Program axis -> (host extent text, tile parameter) for a rounded-up grid whose extent is no
    argument of the launch (`triton.cdiv(n_rows * n_cols, unroll)`)."""
    out: dict[int, tuple[str, str]] = {}
    if launch is None:
        return out
    for i, axis in enumerate(launch.grid):
        if axis.kind != "partial" or not axis.extent or axis.extent in launch.args.values():
            continue
        tiles = [axis.meta_key] if axis.meta_key else [p for p, text in launch.args.items() if text == axis.size]
        if tiles and tiles[0] in params:
            out[i] = (axis.extent, tiles[0])
    return out


def launch_line(launch: Any) -> int | None:
    """The launch site's line, from its `where` (`path:line`)."""
    m = re.search(r":(\d+)$", str(getattr(launch, "where", "")))
    return int(m.group(1)) if m else None


def innermost_function(tree: ast.Module, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function of `tree` whose lines hold `line` (a nested one before its outer one)."""
    holders = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
               and f.lineno <= line <= (f.end_lineno or f.lineno)]
    return min(holders, key=lambda f: (f.end_lineno or f.lineno) - f.lineno) if holders else None


def launching_function(text: str, launch: Any
                       ) -> tuple[ast.Module, ast.FunctionDef | ast.AsyncFunctionDef, int] | None:
    """(the parsed file, the innermost function holding the launch, the launch's line) for a launch in the
    kernel's own file; None for a launch elsewhere, a file that does not parse, or a module-level launch."""
    line = launch_line(launch)
    if launch is None or line is None or not getattr(launch, "local", False):
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    fn = innermost_function(tree, line)
    return (tree, fn, line) if fn is not None else None


def host_locals(text: str, launch: Any) -> dict[str, str]:
    """Name -> the text of its last assignment before the launch, in the function holding the launch
    (a launch in the kernel's own file only)."""
    found = launching_function(text, launch)
    if found is None:
        return {}
    _, fn, line = found
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
