"""Tiles the launching function gives by default (`def causal_prefix_sum(x, CHUNK=16, STEP=32)`, launching
with `CHUNK=CHUNK, STEP=STEP`): where the guessed tiles (all alike) stayed in bounds, the witness runs once
more at the defaults (then at the values a caller in the package passes instead), reading the program id a
jit helper splits (`pid // ROWS, pid % ROWS`), the grid the host computes (`cdiv(length, CHUNK) * rows`) and
sizes one element past the smaller tile walking the same size. A loop stepping by STEP up to the chunk's start then reads past the end; with defaults that keep the
step a divisor of the chunk (CHUNK=32, STEP=16) it stays in bounds."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from types import SimpleNamespace

from witness_cli import witness_json

from tritonlint.witness.helper_returns import returned_parts
from tritonlint.witness.host_grid import grid_programs
from tritonlint.witness.tile_defaults import launcher_tile_defaults

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def _block_and_row(ROWS: tl.constexpr):
        pid = tl.program_id(0)
        return pid // ROWS, pid % ROWS


    @triton.jit
    def causal_prefix_sum_kernel(x_ptr, y_ptr, L, ROWS: tl.constexpr, CHUNK: tl.constexpr, STEP: tl.constexpr):
        i_b, i_r = _block_and_row(ROWS)
        offs = i_b * CHUNK + tl.arange(0, CHUNK)
        mask = offs < L
        total = tl.zeros([CHUNK], dtype=tl.float32)
        for start in range(0, i_b * CHUNK, STEP):
            cols = start + tl.arange(0, STEP)
            total += tl.sum(tl.load(x_ptr + i_r * L + cols), axis=0)
        tl.store(y_ptr + i_r * L + offs, total, mask=mask)


    def causal_prefix_sum(x, CHUNK=16, STEP=32):
        rows, length = x.shape
        y = torch.empty_like(x)
        causal_prefix_sum_kernel[(triton.cdiv(length, CHUNK) * rows,)](x, y, length, ROWS=rows, CHUNK=CHUNK,
                                                                       STEP=STEP)
        return y
""")


def _status(tmp_path: Path, source: str) -> dict[str, object]:
    path = tmp_path / "prefix_ops.py"
    path.write_text(source)
    found = witness_json(path)
    assert len(found) == 1 and found[0]["line"] == 20, found
    witness: dict[str, object] = found[0]["witness"]
    return witness


def test_a_step_wider_than_the_chunk_by_default_reads_past_the_end(tmp_path: Path) -> None:
    witness = _status(tmp_path, KERNEL)
    assert witness["status"] == "confirmed", witness
    assert "past the end of `x_ptr`" in str(witness["reason"]), witness
    assert "at the launcher's tiles: `CHUNK=16`, the default at prefix_ops.py:24, `STEP=32`, the default at " \
        "prefix_ops.py:24" in str(witness["reason"]), witness
    launch = witness["launch"]
    assert isinstance(launch, dict)
    values = {a["name"]: a["value"] for a in launch["args"] if a["kind"] == "constexpr"}
    assert values["CHUNK"] == 16 and values["STEP"] == 32, values


def test_defaults_that_keep_the_step_a_divisor_stay_in_bounds(tmp_path: Path) -> None:
    witness = _status(tmp_path, KERNEL.replace("CHUNK=16, STEP=32", "CHUNK=32, STEP=16"))
    assert witness["status"] == "not-reproduced", witness


def test_a_caller_passing_a_wider_step_is_tried_after_the_defaults(tmp_path: Path) -> None:
    # The defaults keep the step a divisor of the chunk; a caller in the package passes a wider one.
    (tmp_path / "model.py").write_text("from prefix_ops import causal_prefix_sum\n\n\n"
                                       "def forward(x):\n    return causal_prefix_sum(x, STEP=64)\n")
    witness = _status(tmp_path, KERNEL.replace("CHUNK=16, STEP=32", "CHUNK=32, STEP=16"))
    assert witness["status"] == "confirmed", witness
    assert "`STEP=64`, passed at model.py:5" in str(witness["reason"]), witness


def test_a_caller_passing_a_dividing_step_stays_in_bounds(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("from prefix_ops import causal_prefix_sum\n\n\n"
                                       "def forward(x):\n    return causal_prefix_sum(x, STEP=8)\n")
    witness = _status(tmp_path, KERNEL.replace("CHUNK=16, STEP=32", "CHUNK=32, STEP=16"))
    assert witness["status"] == "not-reproduced", witness


def _launch(source: str, tmp_path: Path, args: dict[str, str], **extra: object) -> dict[str, tuple[str, str]]:
    path = tmp_path / "ops.py"
    path.write_text(source)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "kernel[" in text)
    launch = SimpleNamespace(where=f"ops.py:{line}", kernel="kernel", args=args, **extra)
    return launcher_tile_defaults(launch, path)


HOST = textwrap.dedent("""\
    BASE = 16


    def launch(x, BLOCK=2 * BASE, STEP=16, flag=False):
        kernel[(1,)](x, BLOCK=BLOCK, STEP=STEP, FLAG=flag)
""")


def test_int_defaults_are_read_folded_and_bools_are_left(tmp_path: Path) -> None:
    found = _launch(HOST, tmp_path, {"x_ptr": "x", "BLOCK": "BLOCK", "STEP": "STEP", "FLAG": "flag"})
    assert {p: v for p, (v, _) in found.items()} == {"BLOCK": "32", "STEP": "16"}, found
    assert found["BLOCK"][1] == "`BLOCK=32`, the default at ops.py:4", found


def test_a_reassigned_parameter_is_no_default(tmp_path: Path) -> None:
    source = HOST.replace("    kernel[", "    STEP = x.shape[0]\n    kernel[")
    found = _launch(source, tmp_path, {"BLOCK": "BLOCK", "STEP": "STEP"})
    assert set(found) == {"BLOCK"}, found


def test_defaults_breaking_a_host_asserted_multiple_are_never_launched(tmp_path: Path) -> None:
    args = {"BLOCK": "BLOCK", "STEP": "STEP"}
    assert _launch(HOST, tmp_path, args, multiples={("BLOCK", "STEP"): "assert"})  # 32 % 16 == 0
    assert not _launch(HOST, tmp_path, args, multiples={("STEP", "BLOCK"): "assert"})  # 16 % 32 != 0


def test_a_host_grid_is_evaluated_at_the_launch_values() -> None:
    args = {"L": "length", "CHUNK": "CHUNK", "ROWS": "rows"}
    values = {"L": 17, "CHUNK": 16, "ROWS": 4}
    assert grid_programs("triton.cdiv(length, CHUNK) * rows", args, values) == 8
    assert grid_programs("cdiv(length, CHUNK) + rows // 2", args, values) == 4
    assert grid_programs("triton.cdiv(length, CHUNK) * heads", args, values) is None  # not passed
    assert grid_programs("max(length, rows)", args, values) is None


def test_a_helpers_tuple_reads_in_the_callers_names() -> None:
    helper = ast.parse(textwrap.dedent("""\
        def split(ROWS):
            pid = tl.program_id(0)
            row = pid % ROWS
            return pid // ROWS, row
    """)).body[0]
    call = ast.parse("split(H)", mode="eval").body
    assert isinstance(helper, ast.FunctionDef) and isinstance(call, ast.Call)
    parts = returned_parts(call, helper, 2)
    assert parts is not None and [ast.unparse(p) for p in parts] == ["tl.program_id(0) // H", "tl.program_id(0) % H"]
    assert returned_parts(call, helper, 3) is None  # another length
    twice = ast.parse(textwrap.dedent("""\
        def split(ROWS, FLIP: tl.constexpr):
            pid = tl.program_id(0)
            if FLIP:
                pid = tl.program_id(1)
            return pid // ROWS, pid % ROWS
    """)).body[0]
    assert isinstance(twice, ast.FunctionDef) and returned_parts(call, twice, 2) is None  # `pid` stored twice
