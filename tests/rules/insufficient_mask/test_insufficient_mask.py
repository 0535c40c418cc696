"""TL104 through the CLI: its message, --explain's reading, SARIF's fix, and the display-only case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tritonlint.rules.insufficient_mask.rule import InsufficientMask

from tritonlint.cli import main

EXAMPLE = InsufficientMask.code_block("Example")
USE_INSTEAD = InsufficientMask.code_block("Use instead")

# The base moves to the program's block and nothing in the kernel compares what is left.
BLOCK_LOCAL = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    X += tl.program_id(0) * BLOCK
    Y += tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x, mask=offs < n)
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "k.py"
    path.write_text(text)
    return path


def test_explain_says_which_shift_the_mask_ignores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, EXAMPLE)
    line = next(i for i, text in enumerate(EXAMPLE.splitlines(), 1) if "s = tl.load" in text)
    assert main(["check", "--explain", f"{path}:{line}"]) == 1
    lines = capsys.readouterr().out.replace(str(path), "k.py").splitlines()
    start = lines.index("  mask sufficiency (TL104):")
    assert lines[start:start + 2] + lines[-1:] == [
        "  mask sufficiency (TL104):",
        "    `offs_k`: insufficient (shift): the pointer's `offs_k` is moved by the loop at line 10; the mask "
        "compares the in-tile offsets with the whole extent (`offs_k < K`)",
        f"verdict: reported as TL104 at k.py:{line}:13: the mask of tl.load bounds `offs_k` as in-tile offsets "
        "against the whole extent, but the loop moves the pointer's tile",
    ]
    sibling = line - 1
    assert main(["check", "--explain", f"{path}:{sibling}"]) == 0
    out = capsys.readouterr().out
    assert "`offs_k`: the mask bounds `offs_k` where the pointer puts it (moved by the loop at line 10, " \
           "and so is the bound)" in out


def test_sarif_carries_the_fix_that_check_fix_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, EXAMPLE)
    assert main(["check", "--output-format", "sarif", str(path)]) == 1
    log = json.loads(capsys.readouterr().out)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "TL104"
    (fix,) = result["fixes"]
    (replacement,) = fix["artifactChanges"][0]["replacements"]
    region = replacement["deletedRegion"]
    fixed = EXAMPLE[: region["charOffset"]] + replacement["insertedContent"]["text"] \
        + EXAMPLE[region["charOffset"] + region["charLength"]:]
    assert fixed == USE_INSTEAD
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 0
    assert path.read_text() == USE_INSTEAD


def test_no_bound_that_moves_with_the_tile_is_display_only(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, BLOCK_LOCAL)
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 1
    out = capsys.readouterr().out
    assert "k.py:10:9: TL104 the mask of tl.load bounds `offs` as in-tile offsets against the whole extent, " \
           "but the program id moves the pointer's tile" in out
    assert "k.py:11:5: TL104 the mask of tl.store" in out
    assert "no fix: no bound that moves with the tile can be derived" in out
    assert path.read_text() == BLOCK_LOCAL


# A group of `group_size` walked by a tile of `next_power_of_2(group_size)`, masked by the tensor's
# end only; `{mask}` and `{block}` vary per test.
GROUPED = """\
import triton
import triton.language as tl


@triton.jit
def center(X, Y, n, group_size, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    offs = g * group_size + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask={mask}, other=0.0)
    tl.store(Y + offs, x - tl.sum(x, axis=0) / group_size, mask={mask})


def launch(x, y, group_size):
    center[(triton.cdiv(x.numel(), group_size),)](x, y, x.numel(), group_size, BLOCK={block})
"""


def test_padded_group_is_reported_with_its_own_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = GROUPED.format(mask="offs < n", block="triton.next_power_of_2(group_size)")
    path = _write(tmp_path, text)
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 1
    out = capsys.readouterr().out
    assert "k.py:9:9: TL104 the mask of tl.load bounds `offs` by the tensor's end only, but the tile of BLOCK " \
           "lanes is wider than the group of `group_size` it walks" in out
    assert "note: not out of bounds: the padding lanes past the group's end reach the next group's elements" in out
    # The in-group offsets have no name of their own: nothing to compare with the group size.
    assert "no fix: the in-group offsets have no name: bound the lanes by the group " \
           "(`tl.arange(0, BLOCK) < group_size`)" in out
    assert path.read_text() == text


@pytest.mark.parametrize(("mask", "block"), [
    ("(offs < n) & (tl.arange(0, BLOCK) < group_size)", "triton.next_power_of_2(group_size)"),  # group bound
    ("offs < n", "group_size"),  # the tile is the group
    ("offs < (g + 1) * group_size", "triton.next_power_of_2(group_size)"),  # the group's own end
    ("tl.arange(0, BLOCK) < n", "triton.next_power_of_2(group_size)"),  # only in-group offsets compared
])
def test_a_tile_held_to_its_group_is_not_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  mask: str, block: str) -> None:
    path = _write(tmp_path, GROUPED.format(mask=mask, block=block))
    assert main(["check", "--select", "TL104", str(path)]) == 0, capsys.readouterr().out


# The mask bounds `o_t`; the pointer walks `o_t + shift`.
SHIFTED = """\
import triton
import triton.language as tl


@triton.jit
def copy(X, Y, T, shift, BT: tl.constexpr):
    o_t = tl.program_id(0) * BT + tl.arange(0, BT)
    m_t = o_t < T
    o_cs = o_t + shift
    x = tl.load(X + o_cs, mask=m_t, other=0.0)
    tl.store(Y + o_t, x, mask=m_t)
{launcher}"""

WHOLE = """

def launch(x, y, shift):
    copy[(triton.cdiv(y.numel(), 16),)](x, y, y.numel(), shift, BT=16)
"""

CHUNKED = """

def launch(x, y, chunk):
    for t in range(0, x.numel(), chunk):
        size = min(chunk, x.numel() - t)
        copy[(triton.cdiv(size, 16),)](x, y, size, t, BT=16)
"""


def test_offset_added_after_the_mask_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = SHIFTED.format(launcher=WHOLE)
    path = _write(tmp_path, text)
    assert main(["check", "--fix", "--unsafe-fixes", str(path)]) == 1
    out = capsys.readouterr().out
    assert "k.py:10:9: TL104 the mask of tl.load bounds `o_t` before an offset is added: the pointer walks " \
           "`o_cs`" in out
    assert "k.py:11:" not in out  # the store walks `o_t` itself
    # Nothing in the kernel says where X ends on the shifted offsets.
    assert "no fix: no comparison of `o_cs` says where the tensor it walks ends" in out
    assert path.read_text() == text


@pytest.mark.parametrize("launcher", ["", CHUNKED], ids=["no-launch-in-view", "chunk-measured-from-offset"])
def test_host_given_offset_and_bound_need_a_launch_that_separates_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], launcher: str) -> None:
    path = _write(tmp_path, SHIFTED.format(launcher=launcher))
    assert main(["check", "--select", "TL104", str(path)]) == 0, capsys.readouterr().out


CAST_TILE = """\
import triton
import triton.language as tl


@triton.jit
def scales(S, n, g, BLOCK: tl.constexpr):
    cols = {cols}
    tl.store(S + cols + n * g, 1.0, mask=tl.arange(0, BLOCK) < n)
"""


@pytest.mark.parametrize("cols", [
    "tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
    # the same tile cast to 64 bits: the program id still moves it
    "(tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)",
])
def test_a_tile_moved_by_the_program_is_read_through_a_cast(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             cols: str) -> None:
    path = _write(tmp_path, CAST_TILE.format(cols=cols))
    assert main(["check", "--no-cache", "--select", "TL104", "--output-format", "concise", str(path)]) == 1
    assert "k.py:8:5: TL104 the mask of tl.store bounds `cols` as in-tile offsets against the whole extent" \
        in capsys.readouterr().out
