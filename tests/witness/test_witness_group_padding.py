"""TL104's tile wider than its group, witnessed by a wrong-data oracle: the launch passes
`BLOCK=triton.next_power_of_2(G)`, the pointer steps by `G`, and the lanes past the group read and
write the next group's elements inside the allocation. The witness runs the launch as it is and with
the access's padding lanes switched off; a load is confirmed when the outputs differ, a store when
two programs write one element with different values (a race on a GPU).

Before: the bounds oracle ran these launches with `G` equal to the block (a power of two: no lane
pads the tile) and found them in bounds, so every such finding was `not-reproduced`."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.group_oracle import ROOM, fitted, group_launch, roomy, tile_axis
from tritonlint.witness.runner import witness
from tritonlint.witness.synth import Arg, Launch

# Each group of G values is scaled to unit norm; the tile holds next_power_of_2(G) lanes.
KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def unit_groups_padded(X, Y, total, G, BLOCK: tl.constexpr):
        g = tl.program_id(0)
        lane = tl.arange(0, BLOCK)
        idx = g * G + lane
        v = tl.load(X + idx, mask=idx < total, other=0.0)
        norm = tl.sqrt(tl.sum(v * v, axis=0) + 1e-6)
        tl.store(Y + idx, v / norm, mask=idx < total)


    @triton.jit
    def unit_groups_bounded(X, Y, total, G, BLOCK: tl.constexpr):
        g = tl.program_id(0)
        lane = tl.arange(0, BLOCK)
        idx = g * G + lane
        keep = (idx < total) & (lane < G)
        v = tl.load(X + idx, mask=keep, other=0.0)
        norm = tl.sqrt(tl.sum(v * v, axis=0) + 1e-6)
        tl.store(Y + idx, v / norm, mask=keep)


    @triton.jit
    def unit_channel_groups(X, Y, C, G, W, BLOCK_C: tl.constexpr, BLOCK_W: tl.constexpr):
        g = tl.program_id(0)
        ch = tl.arange(0, BLOCK_C)
        col = tl.arange(0, BLOCK_W)
        chan = g * G + ch
        where = chan[:, None] * W + col[None, :]
        m = (chan[:, None] < C) & (col[None, :] < W)
        v = tl.load(X + where, mask=m, other=0.0)
        norm = tl.sqrt(tl.sum(v * v) + 1e-6)
        tl.store(Y + where, v / norm, mask=m)


    def unit_padded(x, y, group):
        total = x.numel()
        unit_groups_padded[(triton.cdiv(total, group),)](x, y, total, group, BLOCK=triton.next_power_of_2(group))


    def unit_bounded(x, y, group):
        total = x.numel()
        block = triton.next_power_of_2(group)
        unit_groups_bounded[(triton.cdiv(total, group),)](x, y, total, group, BLOCK=block)


    def unit_channels(x, y, group, width):
        channels = x.shape[0]
        unit_channel_groups[(triton.cdiv(channels, group),)](
            x, y, channels, group, width, BLOCK_C=triton.next_power_of_2(group),
            BLOCK_W=triton.next_power_of_2(width))
""")


def _checked(tmp_path: Path) -> analysis.CheckedFile:
    path = tmp_path / "unit_groups.py"
    path.write_text(KERNELS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(path)], config)
    assert not errors
    return files[0]


def _line(text: str, needle: str, after: str) -> int:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if after in ln)
    return next(i for i, ln in enumerate(lines) if i > start and needle in ln) + 1


def _witness(checked: analysis.CheckedFile, d: Any) -> Any:
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=120)


def test_the_padded_load_changes_the_output_and_its_fix_is_validated(tmp_path: Path) -> None:
    checked = _checked(tmp_path)
    line = _line(checked.text, "tl.load", "def unit_groups_padded")
    d = next(d for d in checked.diagnostics if d.line == line)
    assert analysis.padded_group(d) == ("BLOCK", "G")
    w = _witness(checked, d)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["kind"] == "padding" and w.evidence["tensor"] == "Y"
    g = w.launch["sizes"]["G"]
    block = next(a["value"] for a in w.launch["args"] if a["name"] == "BLOCK")
    assert g & (g - 1) and block // 2 < g < block  # no power of two, and BLOCK = next_power_of_2(G)
    assert f"the lanes past the group of G={g} change the output" in w.reason
    assert w.validation is not None and w.validation["status"] == "validated", w.validation


def test_the_padded_store_is_a_race_between_programs(tmp_path: Path) -> None:
    checked = _checked(tmp_path)
    line = _line(checked.text, "tl.store", "def unit_groups_padded")
    d = next(d for d in checked.diagnostics if d.line == line)
    w = _witness(checked, d)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["kind"] == "race" and w.evidence["tensor"] == "Y"
    first, second = w.evidence["programs"]
    assert first != second
    assert "a store race on a GPU" in w.reason


def test_the_two_dimensional_tile_switches_off_rows_past_the_group(tmp_path: Path) -> None:
    checked = _checked(tmp_path)
    line = _line(checked.text, "tl.load", "def unit_channel_groups")
    d = next(d for d in checked.diagnostics if d.line == line)
    w = _witness(checked, d)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["lanes"] > 0
    # The fix bounds the rows (`(ch < G)[:, None]`): a bare `ch < G` would land on the columns and
    # let the padding rows run past the end of X.
    assert d.fix is not None and "(ch < G)[:, None]" in d.fix.title
    assert w.validation is not None and w.validation["status"] == "validated", w.validation


def test_a_tile_bounded_by_its_group_is_not_confirmed(tmp_path: Path) -> None:
    """The look-alike is not reported; witnessed as if the rule had reported its accesses with the
    padded kernel's words, the oracle finds nothing: its mask already switches the padding lanes off."""
    checked = _checked(tmp_path)
    for call in ("tl.load", "tl.store"):
        hazard = next(d for d in checked.diagnostics if d.line == _line(checked.text, call, "def unit_groups_padded"))
        line = _line(checked.text, call, "def unit_groups_bounded")
        assert all(d.line != line for d in checked.diagnostics)
        column = checked.text.splitlines()[line - 1].index(call) + 1
        lookalike = dataclasses.replace(hazard, line=line, end_line=line, column=column)
        w = witness(checked.path, checked.display, checked.text, lookalike, checked.launches, checked.flags, None,
                    timeout=120)
        assert w.status == "not-reproduced", (call, w.reason)
        assert "outputs equal the run with the lanes past the group switched off" in w.reason


def test_the_group_size_is_made_no_power_of_two_below_the_block() -> None:
    launch = Launch("k", [Arg("X", "tensor", numel=64), Arg("G", "int", 16), Arg("BLOCK", "constexpr", 16)], [2], "n")
    padded = group_launch(launch, "BLOCK", "G")
    assert isinstance(padded, Launch)
    assert next(a.value for a in padded.args if a.name == "G") == 9
    assert padded.sizes["G"] == 9 and launch.args[1].value == 16  # the candidate itself is untouched
    small = Launch("k", [Arg("G", "int", 2), Arg("BLOCK", "constexpr", 2)], [1], None)
    assert isinstance(group_launch(small, "BLOCK", "G"), str)
    assert isinstance(group_launch(launch, "BLOCK", "H"), str)


def test_the_tile_axis_is_read_from_the_broadcast() -> None:
    assert tile_axis("w = ch[:, None] * W + col[None, :]", "ch") == (0, 2)
    assert tile_axis("w = row[None, :] + col", "row") == (1, 2)
    assert tile_axis("idx = g * G + lane", "idx") == (None, None)


def test_the_sizing_run_is_roomy_and_the_judging_runs_fit_the_groups() -> None:
    launch = Launch("k", [Arg("X", "tensor", numel=40), Arg("S", "tensor", numel=2), Arg("G", "int", 9)], [2], "n")
    big = roomy(launch)
    assert [a.numel for a in big.args if a.kind == "tensor"] == [40 * ROOM, 40 * ROOM]
    fit = fitted(launch, {"X": 17})
    assert [a.numel for a in fit.args if a.kind == "tensor"] == [18, 2]  # S, never reached, keeps its size
    assert launch.args[0].numel == 40
