"""A size that only splits a program id into indices (`off_b = off_hb // nheads`, `off_h = off_hb % nheads`),
in the pattern of flash attention's forward kernel: the launch gives it as many rows as the grid runs.

Before: it took the default size of two of the largest tile (256 beside tiles of 128), so every buffer
holding all the heads was 128 times larger than any program reads (flash attention's Q: 42 million
elements per launch), and the runs ran past their time limit under the interpreter."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import enclosing_kernel, extract
from tritonlint.witness.pinned import reaching_first
from tritonlint.witness.runner import witness
from tritonlint.witness.synth import facts_from, synthesize

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def head_rows(Q, Out, stride_qb, stride_qh, stride_qm, stride_ob, stride_oh, stride_om, nheads, seqlen,
                  HEADDIM: tl.constexpr, BLOCK_M: tl.constexpr):
        start_m = tl.program_id(0)
        off_hb = tl.program_id(1)
        off_b = off_hb // nheads
        off_h = off_hb % nheads
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, HEADDIM)
        q = tl.load(Q + off_b * stride_qb + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :])
        tl.store(Out + off_b * stride_ob + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
                 q * 2.0, mask=offs_m[:, None] < seqlen)


    def heads(q: torch.Tensor) -> torch.Tensor:
        batch, seqlen, nheads, d = q.shape
        out = torch.empty_like(q)
        grid = lambda META: (triton.cdiv(seqlen, META["BLOCK_M"]), batch * nheads)
        head_rows[grid](q, out, q.stride(0), q.stride(2), q.stride(1), out.stride(0), out.stride(2),
                        out.stride(1), nheads, seqlen, HEADDIM=d, BLOCK_M=128)
        return out
""")
LINE = 15


def _checked(tmp_path: Path) -> analysis.CheckedFile:
    path = tmp_path / "head_rows.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    return files[0]


def test_a_head_count_gets_as_many_rows_as_the_grid_runs(tmp_path: Path) -> None:
    checked = _checked(tmp_path)
    d = next(d for d in checked.diagnostics if d.line == LINE)
    [name] = enclosing_kernel(checked.text, d.line)
    extracted = extract(checked.path, checked.text, name)
    facts = facts_from(d, reaching_first(extracted, d.line, checked.launches.get(name, [])), {}, {})
    # A launch that makes the head count itself partial gives it its own value.
    pairs = [(c, k) for c, k in synthesize(extracted, facts) if c.axis != "nheads"]
    assert pairs
    for cand, control in pairs:
        for launch in (cand, control):
            assert launch.sizes["nheads"] == 2, launch.sizes
            q = next(a for a in launch.args if a.name == "Q")
            assert q.numel <= 2 * 2 * 384 * 16, (q.numel, launch.label)  # batch, heads, rows, head dim


def test_the_finding_is_still_confirmed(tmp_path: Path) -> None:
    checked = _checked(tmp_path)
    d = next(d for d in checked.diagnostics if d.line == LINE)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "Q"


def test_only_divisors_of_a_program_id_count() -> None:
    """A divisor of offsets (`offs // group_size`) shapes what each lane reads: it keeps its size."""
    import ast

    from tritonlint.witness.index_sizes import index_only_sizes

    fn = ast.parse(textwrap.dedent("""\
        def k(X, num_groups, group_size, BLOCK: tl.constexpr):
            pid = tl.program_id(0).to(tl.int64)
            group = pid % num_groups
            offs = tl.arange(0, BLOCK)
            col = offs // group_size
            tl.store(X + group * BLOCK + col, 1.0)
    """)).body[0]
    assert isinstance(fn, ast.FunctionDef)
    assert index_only_sizes(fn, {"num_groups", "group_size"}) == {"num_groups"}
