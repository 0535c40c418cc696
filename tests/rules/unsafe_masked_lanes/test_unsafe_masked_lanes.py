"""TL105 on small kernels, one behaviour each: what the switched-off lanes hold when they reach a
reduction, and the `other=` the fix picks (or why it offers none)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonlint.cli import main

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _findings(tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    path = tmp_path / "k.py"
    path.write_text(HEADER + body)
    status = main(["check", "--no-cache", "--select", "TL105", "--output-format", "json", str(path)])
    captured = capsys.readouterr()
    assert status in (0, 1), captured.err  # 2: the rule crashed (an internal error), which no test expects
    found: list[dict[str, object]] = json.loads(captured.out)
    return found


def _fix(finding: dict[str, object]) -> dict[str, object]:
    fix = finding["fix"]
    assert isinstance(fix, dict)
    return fix


ROW = """\
def k(X, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n{other})
{body}
"""


def _row(other: str, body: str) -> str:
    return ROW.format(other=other, body=body)


@pytest.mark.parametrize(("other", "body", "flagged"), [
    # exp of the padded lanes is 1 with other=0.0, 0 with -inf
    (", other=0.0", "    tl.store(Y, tl.sum(tl.exp(x), axis=0))", True),
    (", other=float('-inf')", "    tl.store(Y, tl.sum(tl.exp(x), axis=0))", False),
    # no other: Triton fills 0, right for a sum, wrong for a max
    ("", "    tl.store(Y, tl.sum(x, axis=0))", False),
    ("", "    tl.store(Y, tl.max(x, axis=0))", True),
    # the max of a value that is never negative does not lose to a padded 0
    (", other=0.0", "    tl.store(Y, tl.max(tl.abs(x), axis=0))", False),
    # integer data: 0 and -1 are conventions of a range the checker cannot read
    (", other=0", "    tl.store(Y, tl.max(x, axis=0))", False),
    # a finite stand-in for -inf
    (", other=-1e30", "    tl.store(Y, tl.max(x, axis=0))", False),
    # x - mean makes the padded lanes -mean
    (", other=0.0", "    mean = tl.sum(x, axis=0) / n\n    tl.store(Y, tl.sum((x - mean) * (x - mean), axis=0))", True),
    # ... unless they are cleaned with a where on the same bound
    (", other=0.0", "    mean = tl.sum(x, axis=0) / n\n    c = tl.where(cols < n, x - mean, 0.0)\n"
                    "    tl.store(Y, tl.sum(c * c, axis=0))", False),
    # a where on loaded data says nothing about which lanes are padded
    (", other=0.0", "    e = tl.where(x > 100.0, 0.0, tl.exp(x))\n    tl.store(Y, tl.sum(e, axis=0))", False),
    # a softcap turns -inf into a finite value
    (", other=float('-inf')", "    c = 30.0 * tl.tanh(x / 30.0)\n    tl.store(Y, tl.sum(tl.exp(c), axis=0))", True),
    # the lanes are only stored: no reduction reached
    (", other=0.0", "    tl.store(Y + cols, tl.exp(x), mask=cols < n)", False),
])
def test_lanes_reaching_a_reduction(tmp_path: Path, capsys: pytest.CaptureFixture[str], other: str, body: str,
                                    flagged: bool) -> None:
    found = _findings(tmp_path, _row(other, body), capsys)
    assert bool(found) is flagged, found
    if flagged:
        assert found[0]["code"] == "TL105" and found[0]["line"] == 8


ACCUMULATED = """\
def k(X, S, Y, K, BLOCK_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(X + k + offs, mask=k + offs < K, other={other})
        s = tl.load(S + k + offs, mask=k + offs < K, other=0.0)
        acc += x * s + {bias}
    tl.store(Y, tl.sum(acc, axis=0))
"""


@pytest.mark.parametrize(("other", "bias", "lines"), [
    ("0.0", "0.0", []),       # acc carries real sums; the padded lanes add 0 * s = 0
    ("1.0", "0.0", []),       # 1 * s: s's own padded lanes are 0
    ("0.0", "1.0", [10, 11]),  # a constant added to every lane, padded ones too
])
def test_an_accumulator_is_legitimate_data(tmp_path: Path, capsys: pytest.CaptureFixture[str], other: str,
                                           bias: str, lines: list[int]) -> None:
    found = _findings(tmp_path, ACCUMULATED.format(other=other, bias=bias), capsys)
    assert [f["line"] for f in found] == lines


SAME_AXIS = """\
def k(Q, W, R, Y, T, V, K, BV: tl.constexpr, BK: tl.constexpr):
    o_t = tl.arange(0, 16)
    o_v = tl.arange(0, BV)
    o_k = tl.arange(0, BK)
    q = tl.load(Q + o_t[:, None] * V + o_v[None, :], mask=o_v[None, :] < V, other=0.0)
    w = tl.load(W + o_t[:, None] * K + o_k[None, :], mask=o_k[None, :] < K, other=0.0)
    r = tl.load(R + o_t)
    {computed}
    tl.store(Y + o_t, tl.sum(t, axis=1))
"""


@pytest.mark.parametrize(("computed", "lines"), [
    # a tile over the same axis, built from other offsets: its lanes are its own business (its own
    # padding is judged on its own track), and q's padded lanes add 0 * 2 - 0 to them
    ("t = q * 2.0 - w", []),
    ("t = q * 2.0 - w * 3.0", []),
    # ... and judged there: exp of w's own padded zeros is 1 per lane
    ("t = q * 2.0 - tl.exp(w)", [11]),
    # a row vector broadcast across the columns: the padded column lanes each get -r
    ("t = q * 2.0 - r[:, None]", [10]),
    # the tile loaded in place, in an augmented assignment (read through the binder's copy of it)
    ("t = q * 2.0\n    t -= tl.load(W + o_t[:, None] * K + o_k[None, :], mask=o_k[None, :] < K, other=0.0)", []),
])
def test_a_tile_along_the_same_axis_is_legitimate_data(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       computed: str, lines: list[int]) -> None:
    found = _findings(tmp_path, SAME_AXIS.format(computed=computed), capsys)
    assert [f["line"] for f in found] == lines


PEELED_FIRST_TILE = """\
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N, other=float("-inf"))
    m = x
    z = tl.where(offs < N, 1.0, 0.0)
    for start in range({start}, N, BLOCK):
        cols = start + offs
        y = tl.load(X + cols, mask=cols < N, other=float("-inf"))
        m_new = tl.maximum(y, m)
        z = z * tl.exp(m - m_new) + tl.exp(y - m_new)
        m = m_new
    m_row = tl.max(m, 0)
    tl.store(Y, m_row + tl.log(tl.sum(z * tl.exp(m - m_row), 0)))
"""


@pytest.mark.parametrize(("start", "lines"), [
    # The loop runs only when N > BLOCK, and then the first tile is full: its padded -inf lanes
    # never meet the loop's (`exp(-inf - -inf)` is never computed).
    ("BLOCK", []),
    # From 0 the loop runs for N <= BLOCK too: its first tile is the same lanes as the first load's,
    # padded in both, and `exp(m - m_new)` is NaN there (reported at both loads).
    ("0", [8, 13]),
])
def test_a_loop_that_starts_past_the_first_tile_runs_only_when_it_is_full(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], start: str, lines: list[int]) -> None:
    found = _findings(tmp_path, PEELED_FIRST_TILE.format(start=start), capsys)
    assert [f["line"] for f in found] == lines


DOT = """\
def k(A, B, C, K, BK: tl.constexpr):
    offs_m = tl.arange(0, 16)
    offs_k = tl.arange(0, BK)
    a = tl.load(A + offs_m[:, None] * K + offs_k[None, :], mask=offs_k[None, :] < K, other={a})
    b = tl.load(B + offs_k[:, None] * 16 + offs_m[None, :], mask=offs_k[:, None] < K, other={b})
    tl.store(C + offs_m[:, None] * 16 + offs_m[None, :], tl.dot(tl.exp(a), b))
"""


@pytest.mark.parametrize(("a", "b", "lines"), [
    ("0.0", "0.0", []),   # exp(0) = 1 in A's padded K lanes, times B's zeros
    ("0.0", "1.0", [9]),  # ... times B's ones (a value B's author chose, not followed itself): 1 * 1 per lane
])
def test_a_dot_needs_zeros_in_one_operand(tmp_path: Path, capsys: pytest.CaptureFixture[str], a: str, b: str,
                                          lines: list[int]) -> None:
    found = _findings(tmp_path, DOT.format(a=a, b=b), capsys)
    assert [f["line"] for f in found] == lines


def test_the_fix_picks_the_identity_that_serves_every_reduction(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # A softmax: -inf is the max's identity and makes exp(x - max) 0 for the sum; 0.0 would not.
    body = "    z = tl.exp(x - tl.max(x, axis=0))\n    tl.store(Y + cols, z / tl.sum(z, axis=0), mask=cols < n)"
    found = _findings(tmp_path, _row(", other=0.0", body), capsys)
    fix = _fix(found[0])
    assert fix["applicability"] == "unsafe"
    edits = fix["edits"]
    assert isinstance(edits, list) and edits[0]["content"] == 'float("-inf")'  # replaces the 0.0


def test_no_other_into_a_max_of_floats_is_fixed_with_minus_infinity(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # The max meets `tl.exp`: the load reads floats, and -inf is a value of its type.
    body = "    m = tl.max(x, axis=0)\n    tl.store(Y, m)\n    tl.store(Y + 1, tl.exp(m))"
    found = _findings(tmp_path, _row("", body), capsys)
    assert 'other=float("-inf")' in str(_fix(found[0])["edits"])
    assert "no `other=`: Triton fills masked-off lanes with 0" in " ".join(map(str, found[0]["notes"]))


@pytest.mark.parametrize("body, why", [
    ("    tl.store(Y, tl.max(x, axis=0))", "a load whose element type the kernel does not say"),
    ("    tl.store(Y, tl.max(x, axis=0))\n    tl.store(Y + 1, tl.sum(x & 1, axis=0))", "an integer load"),
    ("    tl.store(Y, tl.max(x, axis=0))\n    tl.store(Y + 1, tl.load(Y + x))", "an integer load"),
])
def test_no_other_into_a_max_of_integers_or_unknowns_is_display_only(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                     body: str, why: str) -> None:
    # `-inf` is no value of an integer type: never written on a load not shown to read floats.
    found = _findings(tmp_path, _row("", body), capsys)
    fix = _fix(found[0])
    assert fix["applicability"] == "display-only" and not fix["edits"]
    assert why in str(fix["title"])


def test_a_variance_without_where_has_no_automatic_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = "    mean = tl.sum(x, axis=0) / n\n    tl.store(Y, tl.sum((x - mean) * (x - mean), axis=0))"
    found = _findings(tmp_path, _row(", other=0.0", body), capsys)
    fix = _fix(found[0])
    assert fix["applicability"] == "display-only" and "tl.where" in str(fix["title"])


def test_explain_names_each_reduction_the_lanes_reach(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    body = "    z = tl.exp(x - tl.max(x, axis=0))\n    tl.store(Y + cols, z / tl.sum(z, axis=0), mask=cols < n)"
    path.write_text(HEADER + _row(", other=float('-inf')", body))
    assert main(["check", "--explain", f"{path}:8"]) == 0
    clean = capsys.readouterr().out
    assert "masked-off lanes (TL105):" in clean
    assert "`tl.max` (line 9): its identity" in clean and "`tl.sum` (line 10): its identity" in clean
    path.write_text(HEADER + _row(", other=0.0", body))
    assert main(["check", "--explain", f"{path}:8"]) == 1
    flagged = capsys.readouterr().out
    # `other=0.0` beside the max is the author's word on the data's range; exp(0 - max) in the sum is wrong
    assert "`tl.sum` (line 10): wrong: the switched-off lanes hold `0.0` at the load" in flagged


def test_lanes_that_differ_by_path_are_judged_on_every_path(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # -inf is the max's identity, but the sigmoid on one side of the flag makes the padded lanes 0.
    body = ("def k(X, Y, n, SIG: tl.constexpr, BLOCK: tl.constexpr):\n"
            "    cols = tl.arange(0, BLOCK)\n"
            "    x = tl.load(X + cols, mask=cols < n, other=float('-inf'))\n"
            "    if SIG:\n"
            "        x = tl.sigmoid(x)\n"
            "    tl.store(Y, tl.max(x, axis=0))\n")
    found = _findings(tmp_path, body, capsys)
    assert [f["line"] for f in found] == [8] and "(by path)" in str(found[0]["message"])
    assert _findings(tmp_path, body.replace("tl.sigmoid(x)", "x * 2.0"), capsys) == []


def test_a_module_constant_is_read_as_its_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `NEG = float("-inf")` at the top of the file: exp(NEG) is 0, the sum's identity.
    text = ("import triton\nimport triton.language as tl\n\nNEG = {value}\n\n\n@triton.jit\n"
            "def k(X, Y, n, BLOCK: tl.constexpr):\n"
            "    cols = tl.arange(0, BLOCK)\n"
            "    x = tl.load(X + cols, mask=cols < n, other=NEG)\n"
            "    tl.store(Y, tl.sum(tl.exp(x), axis=0))\n")
    path = tmp_path / "k.py"
    for value, flagged in (('float("-inf")', False), ("0.0", True)):
        path.write_text(text.format(value=value))
        main(["check", "--no-cache", "--select", "TL105", "--output-format", "json", str(path)])
        assert bool(json.loads(capsys.readouterr().out)) is flagged, value


def test_the_fix_may_be_another_reductions_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A sum of exp(x): no `other=` equal to the sum's identity 0 helps (exp(0) is 1); -inf does.
    found = _findings(tmp_path, _row(", other=0.0", "    tl.store(Y, tl.sum(tl.exp(x), axis=0))"), capsys)
    fix = _fix(found[0])
    assert fix["applicability"] == "unsafe" and fix["edits"][0]["content"] == 'float("-inf")'  # type: ignore[index]


FULL_TILES = """\
def k(X, Y, K, BLOCK_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range({stop}):
        x = tl.load(X + k * BLOCK_K + offs, mask=k * BLOCK_K + offs < K, other=0.0)
        acc += tl.exp(x)
    tl.store(Y, tl.sum(acc, axis=0))
"""


def test_a_mask_on_tiles_that_are_all_full_switches_nothing_off(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # `range(K // BLOCK_K)` visits full tiles only: the mask is a formality, no lane is padded.
    assert _findings(tmp_path, FULL_TILES.format(stop="K // BLOCK_K"), capsys) == []
    assert [f["line"] for f in _findings(tmp_path, FULL_TILES.format(stop="tl.cdiv(K, BLOCK_K)"), capsys)] == [10]


UNIT_TILE = '''\
import torch
import triton
import triton.language as tl


@triton.jit
def k(R, Y, B, C, BLOCK_B: tl.constexpr = 1):
    c = tl.program_id(0)
    acc = tl.zeros([BLOCK_B], dtype=tl.float32)
    for b in range(0, B, BLOCK_B):
        rows = b + tl.arange(0, BLOCK_B)
        r = tl.load(R + rows * C + c, mask=rows < B, other=0.0)
        acc += 1.0 / (r * r)
    tl.store(Y + c, tl.sum(acc, axis=0))


def launch(r):
    y = torch.empty(r.shape[1])
    k[(r.shape[1],)](r, y, r.shape[0], r.shape[1]{block})
    return y
'''


def test_a_block_of_one_that_no_launch_sets_is_never_padded(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    for block, lines in (("", []), (", BLOCK_B=4", [12])):
        path.write_text(UNIT_TILE.format(block=block))
        main(["check", "--no-cache", "--select", "TL105", "--output-format", "json", str(path)])
        assert [f["line"] for f in json.loads(capsys.readouterr().out)] == lines, block


OWN_TILE_PREFIX = """\
def prefix(K, Y, T, NH: tl.constexpr, BTL: tl.constexpr, BTS: tl.constexpr):
    i_c = tl.program_id(0) // NH
    o_t = i_c * BTL + tl.arange(0, BTL)
    acc = tl.zeros([BTL], dtype=tl.float32)
    for i_s in range(0, i_c * BTL, BTS):
        o_s = i_s + tl.arange(0, BTS)
        k = tl.load(K + o_s, mask=o_s < T, other=0.0)
        acc += tl.sum(tl.exp(k), axis=0)
    tl.store(Y + o_t, acc, mask=o_t < T)


def run(k, y, T, NH, BTL=64, BTS=32):
{guard}    prefix[(T * NH,)](k, y, T, NH=NH, BTL=BTL, BTS=BTS)
"""


@pytest.mark.parametrize(("guard", "lines"), [
    # the tiles before the program's own chunk, in steps that divide it: all full, no lane padded
    ("    assert BTL % BTS == 0\n", []),
    # with no such guard a tile can run past T, and exp of its padded zeros adds 1 per lane
    ("", [12]),
])
def test_the_tiles_before_the_programs_own_are_full_when_the_step_divides_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], guard: str, lines: list[int]) -> None:
    found = _findings(tmp_path, OWN_TILE_PREFIX.format(guard=guard), capsys)
    assert [f["line"] for f in found] == lines


MASKED_ALIKE = """\
def k(M, A, L, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mx = tl.load(M + offs, mask=offs < n)
    acc = tl.load(A + offs, mask=offs < n)
    lp = tl.load(L + offs, mask=offs < n)
    lp = -1 * (mx + tl.log(acc) - lp)
{clean}    tl.store(Y, tl.sum(lp, axis=0))
"""


@pytest.mark.parametrize(("clean", "lines"), [
    # Loads masked by the same comparison are padded in the same lanes: there each is 0, log(0) is
    # -inf, and the row sum is +inf. Reported at every load whose lanes reach it.
    ("", [8, 9, 10]),
    ("    lp = tl.where(offs < n, lp, 0.0)\n", []),
])
def test_loads_masked_alike_are_padded_in_the_same_lanes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         clean: str, lines: list[int]) -> None:
    found = _findings(tmp_path, MASKED_ALIKE.format(clean=clean), capsys)
    assert [f["line"] for f in found] == lines
    assert all("+inf" in str(f["message"]) for f in found)


SPANS = """\
def row_max(X, Y, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < D)
    tl.store(Y, tl.max(x, axis=0))


def run(x, y):
    row_max[(1,)](x, y, D=128, BLOCK={block})
"""


@pytest.mark.parametrize(("block", "lines"), [
    ("128", []),   # every launch passes the block and the bound the same value: no lane is off
    ("256", [8]),  # a wider block: the zero-filled lanes win the max of negative rows
])
def test_a_block_every_launch_sets_to_its_bound_switches_nothing_off(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], block: str, lines: list[int]) -> None:
    found = _findings(tmp_path, SPANS.format(block=block), capsys)
    assert [f["line"] for f in found] == lines


SCORES = """\
def pick(P, Q, R, INV, Y, n, PLAIN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    keep = offs < n
    if PLAIN:
        prob = tl.load(P + offs, mask=keep, other=0.0)
    else:
        prob = tl.maximum(tl.load(Q + offs, mask=keep, other=0.0) - tl.load(R + offs, mask=keep, other=0.0), 0.0)
    inv = tl.load(INV + offs, mask=keep, other={other})
    tl.store(Y, tl.max(prob * inv, axis=0))
"""


@pytest.mark.parametrize(("other", "lines"), [
    # `other=0.0` beside a max is the author's word that the data is not negative; the other loads'
    # `tl.maximum` (on one path) does not change what `inv`'s lanes hold
    ("0.0", []),
    # +inf: 0 * inf is NaN in the padded lanes, reported at every load whose lanes meet it there
    ("float('inf')", [10, 12, 12, 13]),
])
def test_another_loads_steps_are_not_the_tracked_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        other: str, lines: list[int]) -> None:
    found = _findings(tmp_path, SCORES.format(other=other), capsys)
    assert [f["line"] for f in found] == lines


@pytest.mark.parametrize(("guard", "said"), [
    ("    assert BTL % BTS == 0\n", "`o_s`: never padded (own-tile-prefix): the loop"),
    ("", "`o_s`: at `tl.sum` (line 13): wrong"),
])
def test_explain_says_why_a_masked_axis_is_not_followed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         guard: str, said: str) -> None:
    path = tmp_path / "k.py"
    path.write_text(HEADER + OWN_TILE_PREFIX.format(guard=guard))
    main(["check", "--no-cache", "--explain", f"{path}:12"])
    assert said in capsys.readouterr().out
