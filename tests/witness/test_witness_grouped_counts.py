"""A MoE-style GEMM: a row count in memory checked against a swizzled tile index, the columns wrapped
`% N`, and the weight pointer defined under one of two constexpr branches.

Before: the count was filled as an index (0): `pid_m * BLOCK_M >= num_rows` returned every program, as
`pid_m` is computed from the program id (no bare `program_id(0) * BLOCK_M`); with both flags guessed
False, `b_ptrs` was never defined; and `(pid_n * BLOCK_N + arange) % N` was bounded by the grid (two
columns), so the weight's rows overlapped; and the weight was laid out by the branch not taken too (K rows
an expert where the packed side holds K // 2) (vLLM and flag-gems `fused_moe_kernel_gptq_awq`)."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses, scalar_counts

MOE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def expert_gemm(a_ptr, b_ptr, c_ptr, expert_ids_ptr, num_rows_ptr, N, K, stride_am, stride_be, stride_bk, stride_bn,
                    stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_M: tl.constexpr, PACKED: tl.constexpr, WIDE: tl.constexpr):
        pid = tl.program_id(0)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        group = pid // (GROUP_M * num_pid_n)
        first_m = group * GROUP_M
        pid_m = first_m + (pid % GROUP_M)
        pid_n = (pid % (GROUP_M * num_pid_n)) // GROUP_M
        num_rows = tl.load(num_rows_ptr)
        if pid_m * BLOCK_M >= num_rows:
            return
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        expert = tl.load(expert_ids_ptr + pid_m)
        offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        if PACKED:
            b_ptrs = b_ptr + expert * stride_be + (offs_k[:, None] // 2) * stride_bk + offs_n[None, :] * stride_bn
        elif WIDE:
            b_ptrs = b_ptr + expert * stride_be + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs)
            acc += tl.dot(a, b.to(tl.float32))
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * stride_bk
        tl.store(c_ptr + rows[:, None] * stride_cm + offs_n[None, :], acc)
""")


def _uses() -> Uses:
    extracted = extract(Path("moe.py"), MOE, "expert_gemm")
    return Uses(extracted.kernel, extracted.helpers)


def test_a_count_compared_with_a_swizzled_tile_start_is_a_count() -> None:
    assert scalar_counts(_uses()) == {"num_rows_ptr": (0, "BLOCK_M")}


def test_columns_wrapped_by_a_size_are_bounded_by_it() -> None:
    assert _uses().bound(ast.Name(id="offs_n", ctx=ast.Load()), {"N", "K"}) == ("size", "N")


def test_the_weight_load_is_confirmed_and_its_fix_validated(tmp_path: Path) -> None:
    path = tmp_path / "moe.py"
    path.write_text(MOE)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    line = MOE.splitlines().index("        b = tl.load(b_ptrs)") + 1
    d = next(d for d in checked.diagnostics if d.line == line)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "b_ptr"
    args = {a["name"]: a for a in (w.launch or {})["args"]}
    assert args["num_rows_ptr"]["fill"] == "count"
    assert args["PACKED"]["value"] is True  # the first definition's branch, so `b_ptrs` is defined
    # Laid out by the packed definition the launch takes (K // 2 rows an expert), not the `elif WIDE:`
    # one (K rows), which would leave the tail inside the allocation: two experts, no more.
    assert args["b_ptr"]["numel"] == 2 * args["stride_be"]["value"]
    assert args["stride_be"]["value"] == -(-(w.launch or {})["sizes"]["K"] // 2) * args["stride_bk"]["value"]
    assert w.validation is not None and w.validation["status"] == "validated", w.validation
