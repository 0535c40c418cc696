"""Fix validation on padded rows: where the original's over-read of a row's partial tail lands in the
next row (packed rows, inside the tensor), its outputs are no oracle at a zero fill; on rows padded
past their length (zero bits for the original, poison for the fixed kernel) they are."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness_launches
from tritonlint.witness.synth import Arg, Launch

ROW_SUMS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_sums(X, Out, stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            acc += tl.load(X + row * stride + cols)
        tl.store(Out + row, tl.sum(acc, axis=0))
""")
LOAD = "tl.load(X + row * stride + cols)"


def _launch(n: int) -> Launch:
    args = [Arg("X", "tensor", numel=2 * n), Arg("Out", "tensor", numel=2, fill="zeros"),
            Arg("stride", "int", value=n), Arg("n_cols", "int", value=n), Arg("BLOCK", "constexpr", value=16)]
    return Launch("row_sums", args, [2], "n_cols", {"n_cols": n}, f"n_cols={n}")


def _validation(tmp_path: Path, mask: str) -> dict[str, str]:
    path = tmp_path / "row_sums.py"
    path.write_text(ROW_SUMS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == 11)
    fixed = ROW_SUMS.replace(LOAD, LOAD[:-1] + f", mask={mask}, other=0.0)")
    w = witness_launches(path, checked.text, d, [(_launch(40), _launch(48))], fixed, timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.validation is not None
    return w.validation


def test_the_right_fix_is_validated_on_padded_rows(tmp_path: Path) -> None:
    # Packed rows: row 0's tail reads row 1's head, so the original's sum is not the masked one.
    v = _validation(tmp_path, "cols < n_cols")
    assert v["status"] == "validated", v
    assert "padded" in v["reason"], v


def test_a_fix_too_narrow_still_fails(tmp_path: Path) -> None:
    v = _validation(tmp_path, "cols < n_cols - 1")
    assert v["status"] == "failed", v


def test_a_fix_that_reads_past_its_row_fails_on_the_poisoned_padding(tmp_path: Path) -> None:
    # In bounds at the plain launch (row 0 reads 4 of row 1's elements, the last row none past the
    # tensor); on padded rows those 4 lanes read the poisoned padding: zeros would have let it pass.
    v = _validation(tmp_path, "cols < n_cols + 4 * (row == 0)")
    assert v["status"] == "failed", v
