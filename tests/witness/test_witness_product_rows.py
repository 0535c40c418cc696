"""Row lengths spelled as products of parameters: tokens of `H` heads of `D` features each
(`rows[:, None] * (H * D)`), and per-program pages of `T` rows of `V` (`pid_b * T*V`).

Before: the synthesizer took the first size of the product as the row length (rows of `H`, pages
of `T`), so every launch it tried, the full-tile control included, read past its tensors: "no launch
tried matches the kernel's indexing: ... out of bounds at full tiles too"."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

HEADS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def head_scores(X, Scale, Out, H, T, D: tl.constexpr, BLOCK: tl.constexpr):
        pid_t = tl.program_id(0)
        pid_h = tl.program_id(1)
        rows = pid_t * BLOCK + tl.arange(0, BLOCK)
        cols = tl.arange(0, D)
        scale = tl.load(Scale + pid_h + rows * H, mask=rows < T, other=0.0)
        x = tl.load(X + pid_h * D + rows[:, None] * (H * D) + cols[None, :])
        tl.store(Out + pid_h + rows * H, tl.sum(x, axis=1) * scale, mask=rows < T)
""")

PAGES = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def page_sums(Z, Out, T, V, BT: tl.constexpr, BV: tl.constexpr):
        pid_v = tl.program_id(0)
        pid_b = tl.program_id(1)
        o_v = pid_v * BV + tl.arange(0, BV)
        acc = tl.zeros([BV], dtype=tl.float32)
        for i_t in range(0, tl.cdiv(T, BT)):
            o_t = i_t * BT + tl.arange(0, BT)
            z = tl.load(Z + pid_b * T*V + o_t[:, None] * V + o_v[None, :], mask=(o_t < T)[:, None], other=0.0)
            acc += tl.sum(z, axis=0)
        tl.store(Out + pid_b * V + o_v, acc, mask=o_v < V)
""")


def _witness(tmp_path: Path, text: str, marker: str) -> object:
    path = tmp_path / "kernels.py"
    path.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if marker in t)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line)
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=120)


def test_rows_of_heads_times_features(tmp_path: Path) -> None:
    w = _witness(tmp_path, HEADS, "x = tl.load(")
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    assert w.evidence["tensor"] == "X"  # type: ignore[attr-defined]


def test_pages_of_rows_times_columns(tmp_path: Path) -> None:
    w = _witness(tmp_path, PAGES, "z = tl.load(")
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    assert w.evidence["tensor"] == "Z"  # type: ignore[attr-defined]


HEAD_ROWS_ONLY = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def head_rows(X, Out, H, T, D: tl.constexpr, BLOCK: tl.constexpr):
        pid_t = tl.program_id(0)
        pid_h = tl.program_id(1)
        rows = pid_t * BLOCK + tl.arange(0, BLOCK)
        cols = tl.arange(0, D)
        x = tl.load(X + pid_h * D + rows[:, None] * (H * D) + cols[None, :])
        tl.store(Out + pid_h * D + rows[:, None] * (H * D) + cols[None, :], x * 2, mask=(rows < T)[:, None])
""")


def test_a_factor_only_the_product_uses_takes_the_rows_length(tmp_path: Path) -> None:
    # `H` is read nowhere but in `H * D`: the layout gives the product its length, and `H` the value
    # that makes `H * D` that long, so the launch's heads fit in a row (not H=1 with two head programs).
    w = _witness(tmp_path, HEAD_ROWS_ONLY, "x = tl.load(")
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    args = {a["name"]: a for a in w.launch["args"]}  # type: ignore[attr-defined]
    heads = w.launch["grid"][1]  # type: ignore[attr-defined]
    assert args["H"]["value"] >= heads, (args["H"], w.launch["grid"])  # type: ignore[attr-defined]
