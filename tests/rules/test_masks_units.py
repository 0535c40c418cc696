"""TL104 (sufficiency.py) and TL105 (lanes.py) one decision at a time, on small kernels written for
the survivors of the `masks` group of scripts/mutation.sh (docs/testing/mutation.md). Each test
also asserts the exit status: an internal error in a rule prints to stderr, exits 2 and leaves the
JSON list empty, which a test that expects no finding would otherwise take for a pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonlint.cli import main

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _check(tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str], code: str
           ) -> tuple[int, list[dict[str, object]]]:
    path = tmp_path / "k.py"
    path.write_text(HEADER + body)
    status = main(["check", "--no-cache", "--select", code, "--output-format", "json", str(path)])
    captured = capsys.readouterr()
    assert status != 2, captured.err  # a rule raised: "internal error in TL10x ..."
    found: list[dict[str, object]] = json.loads(captured.out)
    return status, found


def _lines(status: int, found: list[dict[str, object]]) -> list[int]:
    assert status == (1 if found else 0), status
    return [int(str(f["line"])) for f in found]


def _fix(finding: dict[str, object]) -> dict[str, object]:
    fix = finding["fix"]
    assert isinstance(fix, dict)
    return fix


# ---------------------------------------------------------------------- TL104 (sufficiency.py)

def test_a_mask_cast_after_its_comparisons_is_read_for_its_axes(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # `(...).to(tl.int1)` is no axis move: the swapped broadcasts inside are read (`_mask_slices`).
    status, found = _check(tmp_path, """\
def transpose(X, Y, M, N, stride_xm, stride_yn, BLOCK: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs_n = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs_m[:, None] * stride_xm + offs_n[None, :])
    tl.store(Y + offs_n[:, None] * stride_yn + offs_m[None, :], tl.trans(x),
             mask=((offs_m[:, None] < M) & (offs_n[None, :] < N)).to(tl.int1))
""", capsys, "TL104")
    assert _lines(status, found) == [10]
    assert found[0]["message"] == "the mask of tl.store bounds `offs_m` on another axis than the pointer walks it"


def test_a_broadcast_written_with_an_empty_step_is_read_as_a_plain_one(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # `offs_m[::, None]` is `offs_m[:, None]` (`_slice_text`): the same axes hazard and the same words.
    status, found = _check(tmp_path, """\
def transpose(X, Y, M, N, stride_xm, stride_yn, BLOCK: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs_n = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs_m[:, None] * stride_xm + offs_n[None, :])
    tl.store(Y + offs_n[:, None] * stride_yn + offs_m[None, :], tl.trans(x),
             mask=(offs_m[::, None] < M) & (offs_n[None, ::] < N))
""", capsys, "TL104")
    assert _lines(status, found) == [10]
    assert "the mask bounds it along `[:, None]` (axis 1 from the last)" in " ".join(map(str, found[0]["notes"]))


def test_a_bound_kept_in_a_local_is_added_to_the_mask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The load's `offs < n` is not written in the call: the store's bound is `&`-ed to `m`
    # (`sufficiency_fix`'s "Add the bound", with its edit).
    status, found = _check(tmp_path, """\
def scale(X, Y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    X += pid * BLOCK
    Y += pid * BLOCK
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m, other=0.0)
    tl.store(Y + offs, x, mask=offs < n - pid * BLOCK)
""", capsys, "TL104")
    assert _lines(status, found) == [12]
    fix = _fix(found[0])
    assert fix["title"] == "Add the bound `offs < n - pid * BLOCK` to the mask (the mask of the tl.store at line 13)"
    assert fix["applicability"] == "safe"
    edits = fix["edits"]
    assert isinstance(edits, list) and [e["content"] for e in edits] == [" & (offs < n - pid * BLOCK)"]  # after `m`


SHIFTED = """\
def add_chunk(X, Y, T, N, seq_offset, BT: tl.constexpr):
    i_t = tl.program_id(0)
    o_t = i_t * BT + tl.arange(0, BT)
    m_t = o_t < T
    o_cs = o_t + seq_offset
    x = tl.load(X + o_cs, mask=m_t, other=0.0)
    tl.store(Y + o_t, x, mask=m_t & (seq_offset + o_t < N))


def add(x, y, seq_offset, BT=16):
    n = y.numel()
    add_chunk[(triton.cdiv(n, BT),)](x, y, n, x.numel(), seq_offset, BT=BT)
"""


def test_a_late_offset_with_no_comparison_of_the_shifted_name_has_a_display_only_fix(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The store compares `seq_offset + o_t`, not the name `o_cs` (`_shifted_bound` passes over a
    # compared sum): no bound to add, the fix only says what to compare (`_bound_fix`).
    status, found = _check(tmp_path, SHIFTED, capsys, "TL104")
    assert _lines(status, found) == [11]
    fix = _fix(found[0])
    assert fix["applicability"] == "display-only" and fix["edits"] == []
    assert str(fix["title"]).startswith("no comparison of `o_cs` says where the tensor it walks ends")


# ---------------------------------------------------------------------- TL105 (lanes.py)

SPANS = """\
def row_max(X, Y, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask={mask})
    tl.store(Y, tl.max(x, axis=0))


def run(x, y):
    row_max[(1,)](x, y, D=128, BLOCK=128)
"""


@pytest.mark.parametrize("mask", ["offs < D", "D > offs"])
def test_a_bound_written_on_the_left_spans_the_tile_too(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        mask: str) -> None:
    # `D > offs` is `offs < D` (`_tile_bounds`): the launch sets both to 128, no lane is off.
    assert _lines(*_check(tmp_path, SPANS.format(mask=mask), capsys, "TL105")) == []


DOT = """\
def k(A, B, C, K, BK: tl.constexpr):
    offs_m = tl.arange(0, 16)
    offs_k = tl.arange(0, BK)
    a = tl.load(A + offs_m[:, None] * K + offs_k[None, :], mask=offs_k[None, :] < K, other=0.0)
    b = tl.load(B + offs_k[:, None] * 16 + offs_m[None, :], mask=offs_k[:, None] < K, other=0.0){shift}
    tl.store(C + offs_m[:, None] * 16 + offs_m[None, :], tl.dot(tl.exp(a), b))
"""


@pytest.mark.parametrize(("shift", "lines"), [
    ("", []),          # exp(0) = 1 in A's padded K lanes, times B's exact zeros there (`_partner_zero`)
    (" + 1.0", [9, 10]),  # B's padded lanes are 1 there (`_padding` reads them through the sum): both reported
])
def test_a_dot_partner_padded_with_zeros_cancels_the_lanes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           shift: str, lines: list[int]) -> None:
    assert _lines(*_check(tmp_path, DOT.format(shift=shift), capsys, "TL105")) == lines


def test_an_other_that_is_no_constant_is_data_in_the_lanes(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # `other=fill`, a parameter: the lanes hold data (`_loaded`), which a sum adds.
    status, found = _check(tmp_path, """\
def k(X, Y, n, fill, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n, other=fill)
    tl.store(Y, tl.sum(x, axis=0))
""", capsys, "TL105")
    assert _lines(status, found) == [8]
    assert found[0]["message"] == ("the lanes the mask of tl.load switches off reach `tl.sum` at line 9 as nonzero "
                                   "data, not its identity 0")


def test_padded_lanes_times_a_loaded_scale_are_data_in_a_max(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # exp(0) * s: the lanes hold the scale, data that need not win the max: not judged (`_combine`
    # keeps a product exact only where one side is an exact 0).
    assert _lines(*_check(tmp_path, """\
def k(X, S, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n, other=0.0)
    s = tl.load(S)
    tl.store(Y, tl.max(tl.exp(x) * s, axis=0))
""", capsys, "TL105")) == []


def test_a_tile_along_the_same_axis_behind_a_reshape_is_legitimate_data(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # `w` is loaded over `cols` (`_along` reads the load's pointer, under the reshape that `_axes`
    # cannot read): exp(0) * w is w's own lanes, not data the padded lanes add.
    assert _lines(*_check(tmp_path, """\
def k(X, W, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n, other=0.0)
    w = tl.reshape(tl.load(W + cols), (BLOCK,))
    tl.store(Y, tl.sum(tl.exp(x) * w, axis=0))
""", capsys, "TL105")) == []


TRANSPOSED = """\
def k(X, W, Y, n, R: tl.constexpr, C: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(X + rows[:, None] * C + cols[None, :], mask=cols[None, :] < n, other=0.0)
    w = tl.load(W + rows)
    t = {t}
    tl.store(Y + rows, tl.sum(tl.exp(x) * t, axis=1))
"""


@pytest.mark.parametrize("t", [
    "tl.trans(w[None, :])",        # `_axes` through the transpose: w's values vary along the rows
    "tl.trans(helper(w)[None, :])",  # a helper inside: unreadable, taken as data
])
def test_a_transposed_row_vector_is_data_along_the_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           t: str) -> None:
    # exp(0) = 1 times a value that does not vary along the padded columns: data in every lane.
    status, found = _check(tmp_path, TRANSPOSED.format(t=t), capsys, "TL105")
    assert _lines(status, found) == [9]


def test_a_dot_of_row_tiles_is_data_along_the_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `_axes` of a dot: the rows of `p`, the columns of `q`; `q` is loaded along `d`, not the
    # tracked `cols`, and its values are read through its name.
    status, found = _check(tmp_path, """\
def k(X, P, Q, Y, n, R: tl.constexpr, C: tl.constexpr, D: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    d = tl.arange(0, D)
    x = tl.load(X + rows[:, None] * C + cols[None, :], mask=cols[None, :] < n, other=0.0)
    p = tl.load(P + rows[:, None] * D + d[None, :])
    q = tl.load(Q + d[:, None] * D + d[None, :])
    t = tl.dot(p, q)
    tl.store(Y + rows, tl.sum(tl.exp(x) * t, axis=1))
""", capsys, "TL105")
    assert _lines(status, found) == [10]


def test_the_accumulator_of_a_dot_carries_the_lanes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `tl.dot(p, q, acc)`: the padded columns of exp(x) are in the dot's result (`_through_reduction`).
    status, found = _check(tmp_path, """\
def k(X, P, Q, Y, n, R: tl.constexpr, C: tl.constexpr, D: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    d = tl.arange(0, D)
    x = tl.load(X + rows[:, None] * C + cols[None, :], mask=cols[None, :] < n, other=0.0)
    p = tl.load(P + rows[:, None] * D + d[None, :])
    q = tl.load(Q + d[:, None] * C + cols[None, :])
    y = tl.dot(p, q, tl.exp(x))
    tl.store(Y + rows, tl.sum(y, axis=1))
""", capsys, "TL105")
    assert _lines(status, found) == [10]
    assert "reach `tl.sum` at line 14 as 1, not its identity 0" in str(found[0]["message"])


def test_a_row_reduced_along_the_columns_keeps_its_lanes_on_the_remaining_axis(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Rows padded with 0, summed along the columns: the row sums are 0 there, on axis 0 of the
    # 1-D result (`_after_reduction`), and a max over it sees them.
    status, found = _check(tmp_path, """\
def k(X, Y, m, R: tl.constexpr, C: tl.constexpr):
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(X + rows[:, None] * C + cols[None, :], mask=rows[:, None] < m)
    s = tl.sum(x, axis=1)
    tl.store(Y, tl.max(s, axis=0))
""", capsys, "TL105")
    assert _lines(status, found) == [9]
    assert "reach `tl.max` at line 11 as 0, not its identity -inf" in str(found[0]["message"])


def test_a_dot_keeps_its_operands_lanes_beside_an_accumulator_padded_alike(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # exp(0) = 1 in x's padded rows makes the dot's rows data; `z`, masked on the same rows, adds its
    # zeros there (`tl.dot(a, b, acc)` is `acc + a @ b`). The sum over the rows is reported at x's
    # load, and at z's, whose lanes reach it holding x's padding: one missing `tl.where`, reported
    # at each load whose lanes reach the reduction (as the rule's known problems say).
    status, found = _check(tmp_path, """\
def k(X, Q, Z, Y, m, R: tl.constexpr, K: tl.constexpr, D: tl.constexpr):
    rows = tl.arange(0, R)
    kk = tl.arange(0, K)
    d = tl.arange(0, D)
    x = tl.load(X + rows[:, None] * K + kk[None, :], mask=rows[:, None] < m, other=0.0)
    z = tl.load(Z + rows[:, None] * D + d[None, :], mask=rows[:, None] < m, other=0.0)
    q = tl.load(Q + kk[:, None] * D + d[None, :])
    y = tl.dot(tl.exp(x), q, z)
    tl.store(Y + d, tl.sum(y, axis=0))
""", capsys, "TL105")
    assert _lines(status, found) == [10, 11]
    assert "reach `tl.sum` at line 14 as 1, not its identity 0" in str(found[0]["message"])


def test_a_dot_adds_its_accumulator_lane_by_lane(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # x's padded rows give the dot zero rows; z, padded alike with -inf, is added to them: the rows
    # reach the sum as 0 + -inf, not as "0 or -inf" (two paths).
    status, found = _check(tmp_path, """\
def k(X, Q, Z, Y, m, R: tl.constexpr, K: tl.constexpr, D: tl.constexpr):
    rows = tl.arange(0, R)
    kk = tl.arange(0, K)
    d = tl.arange(0, D)
    x = tl.load(X + rows[:, None] * K + kk[None, :], mask=rows[:, None] < m, other=0.0)
    z = tl.load(Z + rows[:, None] * D + d[None, :], mask=rows[:, None] < m, other=float("-inf"))
    q = tl.load(Q + kk[:, None] * D + d[None, :])
    y = tl.dot(x, q, z)
    tl.store(Y + d, tl.sum(y, axis=0))
""", capsys, "TL105")
    assert _lines(status, found) == [10, 11]
    assert all("at line 14 as -inf, not its identity 0" in str(f["message"]) for f in found), found
