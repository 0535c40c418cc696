"""An autotune pruner that builds every config it returns with `BLOCK_N = min(tile, N)` (and a flag
`LOOP_N = BLOCK_N < N` choosing the looped path) never runs a block wider than `N`: a confirmation
that needs `N < BLOCK_N` (the unlooped path's unmasked load of one whole block) is latent."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from witness_cli import witness_json

SCALE_ROWS = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    def split_tiles(configs, named_args, **kwargs):
        n = kwargs["N"] if "N" in kwargs else named_args["N"]
        built = []
        for config in configs:
            tile = config.kwargs["TILE"]
            block_n = min(tile, n)
            built.append(triton.Config({"BLOCK_M": triton.cdiv(tile, block_n), "BLOCK_N": block_n,
                                        "LOOP_N": block_n < n}, num_warps=1))
        return built


    @triton.autotune(
        configs=[triton.Config({"TILE": 256}, num_warps=1), triton.Config({"TILE": 1024}, num_warps=1)],
        key=["M", "N"],
        prune_configs_by={"early_config_prune": split_tiles},
    )
    @triton.jit
    def scale_rows(A, S, Out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, LOOP_N: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        if LOOP_N:
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                s = tl.load(S + cols, mask=cols < N)
                mask = (rows[:, None] < M) & (cols[None, :] < N)
                a = tl.load(A + rows[:, None] * N + cols[None, :], mask=mask)
                tl.store(Out + rows[:, None] * N + cols[None, :], a * s[None, :], mask=mask)
        else:
            cols = tl.arange(0, BLOCK_N)
            s = tl.load(S + cols)
            mask = (rows[:, None] < M) & (cols[None, :] < N)
            a = tl.load(A + rows[:, None] * N + cols[None, :], mask=mask)
            tl.store(Out + rows[:, None] * N + cols[None, :], a * s[None, :], mask=mask)


    def scale(a, s):
        m, n = a.shape
        out = torch.empty_like(a)
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]),)
        scale_rows[grid](a, s, out, m, n)
        return out
""")


def _witness(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "scale.py"
    path.write_text(text)
    witnessed = witness_json(path)
    found = witnessed
    assert len(found) == 1, found
    witness: dict[str, Any] = found[0]["witness"]
    return witness


def test_a_block_wider_than_the_size_the_pruner_allows_is_latent(tmp_path: Path) -> None:
    w = _witness(tmp_path, SCALE_ROWS)
    assert w["status"] == "confirmed", w
    assert w["evidence"]["latent"] and "BLOCK_N <= N" in w["evidence"]["latent"], w["evidence"]
    assert "split_tiles" in w["evidence"]["latent"]


def test_a_pruner_that_keeps_the_tile_marks_nothing(tmp_path: Path) -> None:
    # The block is the tile itself, whatever N is: a narrow N over-reads at every launch.
    w = _witness(tmp_path, SCALE_ROWS.replace("block_n = min(tile, n)", "block_n = tile"))
    assert w["status"] == "confirmed", w
    assert not w["evidence"]["latent"], w["evidence"]
