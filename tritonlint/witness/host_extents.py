"""Grids over a host extent the kernel never receives: `kernel[(triton.cdiv(n_rows * n_cols, unroll),)](x,
out, unroll)` walks `pid * unroll + arange(0, unroll)` unmasked, and only the host knows how far. The
synthesizer makes that extent a pseudo size, partial like any, and the tensors the axis walks hold
exactly that many elements, as the host's tensors the extent counts do."""

from __future__ import annotations

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
