"""A row's unmasked last tile (`z + i_bh * T * K + o_k`, `o_k` past K) over-reads into the next row, and
leaves the tensor only at the last row when the row is short: T = 1 (a single step), which real callers
pass. Where the first candidates stay in bounds, the witness runs once more with the sizes that scale the
flagged row's start at 1 (`single_rows.py`); sizes a grid axis walks keep their values."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from witness_cli import witness_json

from tritonlint.witness.single_rows import row_scale_sizes
from tritonlint.witness.uses import ACCESS

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def running_sum_kernel(z_ptr, out_ptr, T, K: tl.constexpr, BK: tl.constexpr, BT: tl.constexpr,
                           NT: tl.constexpr):
        i_k, i_bh = tl.program_id(0).to(tl.int64), tl.program_id(1).to(tl.int64)
        o_k = i_k * BK + tl.arange(0, BK)
        p_z0 = z_ptr + i_bh * T * K + o_k
        b_acc = tl.load(p_z0).to(tl.float32)
        for i_t in range(NT):
            o_t = i_t * BT + tl.arange(0, BT)
            m = (o_t[:, None] < T) & (o_k[None, :] < K)
            b_z = tl.load(z_ptr + i_bh * T * K + o_t[:, None] * K + o_k[None, :], mask=m, other=0.0)
            b_acc += tl.sum(b_z, axis=0)
        tl.store(out_ptr + i_bh * T * K + o_k, b_acc, mask=o_k < K)


    def running_sums(z):
        B, H, T, K = z.shape
        out = torch.zeros_like(z, dtype=torch.float32)
        BK = min(32, triton.next_power_of_2(K))
        BT = 16
        running_sum_kernel[(triton.cdiv(K, BK), B * H)](z, out, T, K=K, BK=BK, BT=BT, NT=triton.cdiv(T, BT))
        return out
""")
LOAD_LINE = 12


def test_a_rows_over_read_leaves_the_tensor_at_a_single_step(tmp_path: Path) -> None:
    path = tmp_path / "running_sums.py"
    path.write_text(KERNEL)
    found = [f for f in witness_json(path) if f["line"] == LOAD_LINE]
    assert found, found
    witness = found[0]["witness"]
    assert witness["status"] == "confirmed", witness
    assert "past the end of `z_ptr`" in witness["reason"] and "T=1" in witness["reason"], witness["reason"]


def test_the_sizes_that_scale_the_rows_start() -> None:
    fn = next(n for n in ast.parse(KERNEL).body if isinstance(n, ast.FunctionDef))
    defs: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            defs.setdefault(node.targets[0].id, []).append(node.value)
    # Read through the local `p_z0`; a literal factor (`2 * T`) scales no row.
    assert row_scale_sizes(fn, LOAD_LINE, ACCESS, {"T", "K"}, defs) == {"T", "K"}
    twice = ast.parse("def f(z, T):\n    tl.load(z + 2 * T)\n").body[0]
    assert isinstance(twice, ast.FunctionDef)
    assert row_scale_sizes(twice, 2, ACCESS, {"T"}, {}) == set()
