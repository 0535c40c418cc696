"""A kernel jitted by assignment with its decorators applied as calls,
`k = triton.autotune(...)(triton.heuristics({...})(triton.jit(k)))`, is a kernel the witness launches:
the heuristics of the assignment set its flag in the generated module as they do in the package. Before,
only a bare `k = triton.jit(k)` counted, and the finding was "in no jit function" (cannot-synthesize)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_cli import witness_json

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    def row_sums(X, Y, K, stride, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_K], dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            if EVEN_K:
                x = tl.load(X + row * stride + k + offs)
            else:
                x = tl.load(X + row * stride + k + offs, mask=k + offs < K, other=0.0)
            acc += x
        tl.store(Y + row, tl.sum(acc, axis=0))


    row_sums = triton.autotune(configs=[triton.Config({"BLOCK_K": 64})], key=["K"])(
        triton.heuristics({"EVEN_K": lambda args: args["K"] % 8 == 0})(triton.jit(row_sums))
    )
""")


def test_a_kernel_jitted_by_assignment_with_heuristics_is_launched(tmp_path: Path) -> None:
    path = tmp_path / "assigned_kernel.py"
    path.write_text(KERNEL)
    found = witness_json(path, "--select", "TL101", "--timeout", "120")
    finding = next(d for d in found if d["code"] == "TL101" and d["line"] == 11)
    witness = finding["witness"]
    assert witness["status"] == "confirmed", witness["reason"]  # cannot-synthesize before
    assert "past the end of `X`" in witness["evidence"] or "past the end of `X`" in witness["reason"], witness
