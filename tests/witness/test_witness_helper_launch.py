"""A finding in a jit helper that only a kernel calls, with block values (`keys` from a `tl.load`, an
accumulator from `tl.zeros`): launching the helper alone makes those parameters Python floats, and
`tl.dot(keys, ...)` stopped it ("'float' object has no attribute 'shape'"). That error was reported
over the verdict of the launched kernel. And a kernel that walks one size in tiles of two blocks (a
diagonal phase of `BLOCK // STEP` steps of STEP rows from `pid * BLOCK`) overruns at whole STEP tiles
too: the controls are then made whole in the largest tile as well."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.synth import Facts, synthesize

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def _accumulate_rows(acc, keys, Grad, Scale, stride_row, n_rows, start, num_steps, STEP: tl.constexpr,
                         D: tl.constexpr):
        offs_d = tl.arange(0, D)
        row = start
        for _ in range(num_steps):
            offs_r = row + tl.arange(0, STEP)
            row_mask = offs_r < n_rows
            scale = tl.load(Scale + offs_r, mask=row_mask, other=0.0)
            grad = tl.load(Grad + offs_r[:, None] * stride_row + offs_d[None, :])
            p = tl.dot(keys, tl.trans(grad)) * scale[None, :]
            acc += tl.dot(p, grad)
            row += STEP
        return acc


    @triton.jit
    def diagonal_grads(Keys, Grad, Scale, Out, stride_batch, stride_row, n_rows, STEP: tl.constexpr,
                       BLOCK: tl.constexpr, D: tl.constexpr):
        pid = tl.program_id(0)
        batch = tl.program_id(1)
        Keys += batch * stride_batch
        Grad += batch * stride_batch
        Out += batch * stride_batch
        Scale += batch * n_rows
        start = pid * BLOCK
        offs_n = start + tl.arange(0, BLOCK)
        offs_d = tl.arange(0, D)
        keys = tl.load(Keys + offs_n[:, None] * stride_row + offs_d[None, :], mask=offs_n[:, None] < n_rows,
                       other=0.0)
        acc = tl.zeros([BLOCK, D], dtype=tl.float32)
        acc = _accumulate_rows(acc, keys, Grad, Scale, stride_row, n_rows, start, BLOCK // STEP, STEP, D)
        tl.store(Out + offs_n[:, None] * D + offs_d[None, :], acc, mask=offs_n[:, None] < n_rows)
""")

FLAGGED = 14  # the unmasked `grad` load in the helper


def test_the_kernel_calling_the_helper_is_what_is_judged(tmp_path: Path) -> None:
    path = tmp_path / "diagonal_grads.py"
    path.write_text(KERNEL)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == FLAGGED)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    # Before: `error` ("'float' object has no attribute 'shape'"), the helper launched as the kernel.
    assert w.status != "error", w.reason
    assert w.launch is not None and w.launch["kernel"] == "diagonal_grads", w.launch


def test_controls_whole_in_the_largest_tile() -> None:
    extracted = extract(Path("diagonal_grads.py"), KERNEL, "diagonal_grads")
    facts = Facts(line=FLAGGED, code="TL101", flags_off={}, walk="offs_r", tile="STEP", axis_hints=["n_rows"],
                  launch_args={}, multiples=set(), even_flags={})
    sizes = {a.name: a.value for a in synthesize(extracted, facts)[0][1].args}
    block = sizes["BLOCK"]
    assert isinstance(block, int) and block > sizes["STEP"], sizes
    assert sizes["n_rows"] % block != 0, sizes  # whole in STEP only, as before
    for cand, control in synthesize(extracted, facts, whole_tiles=True):
        values = {a.name: a.value for a in control.args}
        partial = {a.name: a.value for a in cand.args}
        assert values["n_rows"] % block == 0, (control.label, values)
        assert partial["n_rows"] % values["STEP"] != 0, (cand.label, partial)
