"""Two constexpr flags the launch derives from one test (`USE_STARTS=starts is not None`,
`ROW_STARTS=starts is None`) are never equal at the callers: the witness keeps them complementary.
Both off (each guessed False), the kernel binds `start` on neither branch and the run fails on it
(`UnboundLocalError`), an error where the finding is there to confirm."""

from __future__ import annotations

import textwrap
from pathlib import Path

from witness_cli import witness_json

from tritonlint.witness.complementary import complementary

SRC = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def copy_rows(X, Starts, Out, n_cols, BLOCK: tl.constexpr, USE_STARTS: tl.constexpr,
                  ROW_STARTS: tl.constexpr):
        row = tl.program_id(0)
        if USE_STARTS:
            start = tl.load(Starts + row)
        if ROW_STARTS:
            start = row * n_cols
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + start + offs)
        tl.store(Out + row * n_cols + offs, x, mask=offs < n_cols)


    def copy(x, starts=None):
        rows, n = x.shape
        out = torch.empty_like(x)
        copy_rows[(rows,)](x, starts, out, n, BLOCK=triton.next_power_of_2(n),
                           USE_STARTS=starts is not None, ROW_STARTS=starts is None)
        return out
""")


def test_flags_of_one_test_are_read_as_never_equal() -> None:
    found = complementary({"A": "x is None", "B": "x is not None", "C": "not y", "D": "y", "E": "16", "F": "z"},
                          {"A", "B", "C", "D", "E", "F"})
    assert sorted(c.what.split(":")[0] for c in found) == ["A=x is None and B=x is not None", "C=not y and D=y"]


def test_complementary_flags_are_never_both_off(tmp_path: Path) -> None:
    path = tmp_path / "rows.py"
    path.write_text(SRC)
    witnessed = witness_json(path)
    found = [f for f in witnessed if f["line"] == 15]
    assert len(found) == 1, witnessed
    w = found[0]["witness"]
    assert "UnboundLocalError" not in w["reason"], w
    args = {a["name"]: a["value"] for a in w["launch"]["args"]}
    assert args["USE_STARTS"] != args["ROW_STARTS"], args


def test_a_name_bound_only_under_branches_is_bound_where_read(tmp_path: Path) -> None:
    # No launch read (the host passes the flags through an object the launch reader does not follow):
    # the kernel itself says that `start` needs one of its two branches taken.
    host = SRC.index("\n\ndef copy(")
    path = tmp_path / "rows.py"
    path.write_text(SRC[:host] + "\n")
    witnessed = witness_json(path)
    found = [f for f in witnessed if f["line"] == 15]
    assert len(found) == 1, witnessed
    w = found[0]["witness"]
    assert "UnboundLocalError" not in w["reason"], w
    args = {a["name"]: a["value"] for a in w["launch"]["args"]}
    assert args["USE_STARTS"] or args["ROW_STARTS"], args
