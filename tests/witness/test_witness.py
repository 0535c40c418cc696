"""`tritonlint witness`: a hazard made to happen on a synthesized launch, its look-alike not, fixes proven by a run.

Every kernel here is written for this test. One CLI run (JSON, --emit-repro) serves the output,
exit-code and repro assertions; the fix checks call the witness on the same finding with texts
broken on purpose. Runs fork from one preloaded server, so each finding costs about a second.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.cli import main
from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

# Rows of X times W, the K loop's X load bounded on M only: on a partial last K tile the last row
# reads past the end of X (the other rows read into the next row). `rowdot_ok` is its look-alike
# with the K bound. The W load is masked in both.
KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rowdot(X, W, Y, M, K, stride_xm, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_M], dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            x = tl.load(X + offs_m[:, None] * stride_xm + (k + offs_k)[None, :], mask=offs_m[:, None] < M)
            w = tl.load(W + k + offs_k, mask=k + offs_k < K, other=0.0)
            acc += tl.sum(x * w[None, :], axis=1)
        tl.store(Y + offs_m, acc, mask=offs_m < M)


    @triton.jit
    def rowdot_ok(X, W, Y, M, K, stride_xm, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros([BLOCK_M], dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            x = tl.load(X + offs_m[:, None] * stride_xm + (k + offs_k)[None, :],
                        mask=(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K), other=0.0)
            w = tl.load(W + k + offs_k, mask=k + offs_k < K, other=0.0)
            acc += tl.sum(x * w[None, :], axis=1)
        tl.store(Y + offs_m, acc, mask=offs_m < M)
""")
HAZARD_LINE = 11
LOOKALIKE_LINE = 23
FIXED_MASK = "(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K)"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("witness")
    (root / "kernels.py").write_text(KERNELS)
    return root


@pytest.fixture(scope="module")
def cli_run(tree: Path) -> dict[str, Any]:
    """One `tritonlint witness --output-format json --emit-repro` run over the file."""
    repro = tree / "repro"
    done = subprocess.run([sys.executable, "-m", "tritonlint", "witness", "--select", "ALL", "--output-format", "json",
                           "--emit-repro", str(repro), "kernels.py"], cwd=tree, capture_output=True, text=True,
                          timeout=300, check=False)
    return {"code": done.returncode, "data": json.loads(done.stdout), "stderr": done.stderr, "repro": repro}


@pytest.fixture(scope="module")
def checked(tree: Path) -> analysis.CheckedFile:
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(tree / "kernels.py")], config)
    assert not errors and len(files) == 1
    return files[0]


def _finding(checked: analysis.CheckedFile) -> Diagnostic:
    found = [d for d in checked.diagnostics if d.line == HAZARD_LINE]
    assert len(found) == 1, checked.diagnostics
    return found[0]


def _run(checked: analysis.CheckedFile, diagnostic: Diagnostic, fixed: str | None) -> Any:
    return witness(checked.path, checked.display, checked.text, diagnostic, checked.launches, checked.flags, fixed,
                   timeout=120)


def test_the_hazard_is_confirmed_with_its_evidence(cli_run: dict[str, Any]) -> None:
    assert cli_run["code"] == 1, cli_run["stderr"]
    [item] = cli_run["data"]
    assert (item["code"], item["line"]) == ("TL101", HAZARD_LINE)
    w = item["witness"]
    assert set(w) == {"status", "reason", "launch", "evidence"}
    assert w["status"] == "confirmed", w
    ev = w["evidence"]
    assert ev["tensor"] == "X" and ev["direction"] == "after" and ev["kind"] == "load"
    assert ev["elements_past"] > 0 and ev["line"] == HAZARD_LINE
    # The finding's axis was made partial: K is not a multiple of BLOCK_K.
    block_k = next(a["value"] for a in w["launch"]["args"] if a["name"] == "BLOCK_K")
    assert w["launch"]["axis"] == "K" and w["launch"]["sizes"]["K"] % block_k != 0


def test_the_checkers_fix_is_validated(cli_run: dict[str, Any]) -> None:
    [item] = cli_run["data"]
    assert item["fix"]["validation"]["status"] == "validated", item["fix"]
    assert set(item["fix"]["validation"]) == {"status", "reason"}
    assert {"title", "applicability", "edits"} <= set(item["fix"])


def test_the_look_alike_is_not_confirmed(checked: analysis.CheckedFile) -> None:
    # The masked twin is no finding: witness its X load as if it were one.
    hazard = _finding(checked)
    column = checked.text.splitlines()[LOOKALIKE_LINE - 1].index("tl.load") + 1
    twin = Diagnostic(hazard.code, hazard.name, hazard.message, hazard.path, LOOKALIKE_LINE, column,
                      LOOKALIKE_LINE + 1, 1, hazard.notes)
    result = _run(checked, twin, None)
    assert result.status == "not-reproduced", result


def test_a_fix_on_the_wrong_axis_fails(checked: analysis.CheckedFile) -> None:
    hazard = _finding(checked)
    fixed = analysis.fixed_text(checked.text, hazard)
    assert fixed is not None and FIXED_MASK in fixed
    wrong_axis = fixed.replace(FIXED_MASK, "(offs_m[:, None] < M) & (offs_m[:, None] < K)")
    result = _run(checked, hazard, wrong_axis)
    assert result.status == "confirmed"
    assert result.validation["status"] == "failed", result.validation
    assert "still goes out of bounds" in result.validation["reason"]


def test_a_fix_comparing_a_pointer_with_an_extent_fails(checked: analysis.CheckedFile) -> None:
    hazard = _finding(checked)
    fixed = analysis.fixed_text(checked.text, hazard)
    assert fixed is not None
    pointer = fixed.replace(FIXED_MASK, "(offs_m[:, None] < M) & ((X + k + offs_k)[None, :] < K)")
    result = _run(checked, hazard, pointer)
    assert result.validation["status"] == "failed", result.validation
    assert "does not run" in result.validation["reason"] and "pointer" in result.validation["reason"]


def test_a_fix_that_changes_in_bounds_outputs_fails(checked: analysis.CheckedFile) -> None:
    hazard = _finding(checked)
    fixed = analysis.fixed_text(checked.text, hazard)
    assert fixed is not None
    # In bounds, but it drops the first column of every tile: the outputs move.
    wrong = fixed.replace(FIXED_MASK, "(offs_m[:, None] < M) & ((k + offs_k)[None, :] < K) & (offs_k[None, :] > 0)")
    result = _run(checked, hazard, wrong)
    assert result.validation["status"] == "failed", result.validation
    assert "differs from the original's at a zero fill" in result.validation["reason"]


def test_the_repro_script_runs_alone_and_prints_the_evidence(cli_run: dict[str, Any], tmp_path: Path) -> None:
    scripts = sorted(cli_run["repro"].glob("*.py"))
    assert len(scripts) == 1
    text = scripts[0].read_text()
    assert "tritonlint" not in text.replace("`tritonlint witness`", "")  # torch and triton only
    copy = tmp_path / scripts[0].name  # runs from anywhere: nothing beside it is needed
    copy.write_text(text)
    done = subprocess.run([sys.executable, str(copy)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 1, done.stderr
    assert f"kernels.py:{HAZARD_LINE}" in done.stdout and "past the end of `X`" in done.stdout, done.stdout


def test_text_and_sarif_carry_the_witness(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["witness", "--select", "ALL", str(tree / "kernels.py")]) == 1
    text = capsys.readouterr().out
    assert "    witness: confirmed: load ran" in text and "    witness: fix validated:" in text
    # The summary says what the runs cost: the median per finding and the wall time of them all.
    summary = re.search(r"^Witnessed 1 finding: 1 confirmed \(median (\d+\.\d) s per finding, (\d+\.\d) s in all\)\.$",
                        text, re.MULTILINE)
    assert summary is not None, text
    assert 0 < float(summary[1]) <= float(summary[2]) + 0.1
    assert main(["witness", "--select", "ALL", "--output-format", "sarif", str(tree / "kernels.py")]) == 1
    log = json.loads(capsys.readouterr().out)
    [result] = log["runs"][0]["results"]
    assert result["properties"]["witness"]["status"] == "confirmed"
    assert result["properties"]["witness"]["evidence"]["tensor"] == "X"


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text(KERNELS.split("@triton.jit\ndef rowdot(")[0] + "@triton.jit" + KERNELS.split("@triton.jit")[2])
    assert main(["witness", "--select", "ALL", str(clean)]) == 0  # nothing confirmed
    assert main(["witness", "--select", "NOPE", str(clean)]) == 2  # a selector that matches no rule
    capsys.readouterr()
