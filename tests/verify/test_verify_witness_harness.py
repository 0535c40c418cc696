"""`tritonlint verify PATH` with no `--harness`: the launch comes from the witness, on the CPU interpreter.

The same generated harness runs with `--device cuda` (tests/verify/test_verify_gpu.py); here the
interpreter's exact bounds guard judges it, so CI tests the path without a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.verify import cli
from tritonlint.verify.runner import Options, Verifier

REPO = Path(__file__).resolve().parents[2]
TWIN = REPO / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py"
STORE = REPO / "fixtures" / "unmasked-tail-store" / "elementwise_store_unmasked.py"
STORE_TAIL = REPO / "fixtures" / "unmasked-tail-store" / "store_tail.py"


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    code = cli.run(p.parse_args([*argv, "--output-format", "json"]))
    return code, json.loads(capsys.readouterr().out)


def test_no_harness_verifies_a_fix_on_the_witness_launch(capsys: pytest.CaptureFixture[str]) -> None:
    """gemm_even_k_twin: the witness confirms the B overread on a partial K tile; the generated
    harness runs that launch in both trees: the original reads past B at the flagged line, the
    fixed tree does not, and its outputs do not depend on the fill."""
    line = next(i for i, t in enumerate(TWIN.read_text().splitlines(), 1) if "expect: TL101" in t)
    code, out = _cli([str(TWIN), "--device", "cpu", "--fills", "0x00,0xff", "--no-compile"], capsys)
    assert code == 0 and out["verdict"] == "verified", out
    assert out["harness"].startswith("synthesized by the witness"), out["harness"]
    [planned] = out["witness"]  # type: ignore[misc]
    assert planned["where"] == f"{TWIN.name}:{line}" and planned["status"] == "confirmed"
    assert planned["launch"]["module"] == TWIN.stem and planned["launch"]["sizes"]["K"] % 16, planned
    [fix] = out["fixes"]  # type: ignore[misc]
    assert (fix["line"], fix["verdict"]) == (line, "verified")
    assert [s["line"] for s in fix["sites"]] == [line] and fix["sites"][0]["tensor"] == "b_ptr", fix["sites"]


def test_no_harness_fails_a_fixer_that_fixes_nothing(tmp_path: Path) -> None:
    """The same launch with a fixer that leaves the copy as it is: the fixed tree still reads past B,
    so the generated harness must make the run fail (it is not verified by construction)."""
    report = Verifier(TWIN, None, options=Options(device="cpu", fills=(0, 0xff), compile=False),
                      fixer=lambda root, target: None, progress=lambda _: None).run()
    assert report.verdict == "failed", report.reasons
    assert report.witness and report.witness[0]["status"] == "confirmed"


def test_no_launch_for_any_finding_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A file whose only fixable finding is TL105 (judged by `witness`, not by poison): exit 2, and
    the message names the finding and asks for a harness."""
    case = REPO / "fixtures" / "unsafe-masked-lanes" / "softmax_other_zero.py"
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    assert cli.run(p.parse_args([str(case), "--device", "cpu"])) == 2
    err = capsys.readouterr().err
    assert "witness built no launch" in err and "softmax_other_zero.py:" in err and "--harness" in err


def test_a_file_that_does_not_import_runs_its_kernel_at_its_own_lines(tmp_path: Path) -> None:
    """A kernel file importing a package missing here: the harness falls back to the witness's
    cut-out, compiled under the tree file's name with the kernel at its own lines, so the guard's
    site is the file's flagged line and the fix is verified."""
    text = STORE.read_text().replace("import triton\n", "import triton\nimport a_package_not_installed_here  # noqa\n", 1)
    case = tmp_path / "scale_store.py"
    case.write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "expect: TL102" in t)
    report = Verifier(case, None, options=Options(device="cpu", fills=(0, 0xff), compile=False),
                      progress=lambda _: None).run()
    assert report.verdict == "verified", report.reasons
    [fix] = [f for f in report.fixes if f.orig_lines[0] == line]
    assert fix.verdict == "verified" and [s.site.key.line for s in fix.sites] == [line]


@pytest.mark.parametrize("compat", [True, False])
def test_interpreter_runs_where_numpy_refuses_array_to_int(compat: bool) -> None:
    """NumPy releases that refuse int() of a 1-element array break Triton 3.6's interpreter at any
    `range(0, K, BLOCK)`; here that refusal is forced by turning NumPy's warning into an error.
    With the compat shim the kernel runs; without it the same run fails (so the test can fail)."""
    code = f"""
import sys, warnings
warnings.filterwarnings("error", message="Conversion of an array")
sys.path.insert(0, {str(STORE_TAIL.parent)!r})
import torch, store_tail as m
if {compat}:
    from tritonlint.verify import interpreter_compat
    interpreter_compat.install()
x, w, y, c = torch.randn(32 * 32), torch.randn(32 * 48), torch.zeros(32 * 48), torch.zeros(2 * 48)
m.linear_fwd_colsum_kernel[(2, 3)](x, w, y, c, 32, 48, 32, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16,
                                   EVEN_M=True, EVEN_N=True)
print("ran")
"""
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert ("ran" in proc.stdout) == compat, proc.stderr[-2000:]


def test_a_kernel_made_by_calling_triton_jit_is_launched_by_its_jit_name(tmp_path: Path) -> None:
    """`neg_kernel = triton.jit(neg)`: the witness names the function `neg`; the harness launches the
    JIT object made from it (the bare function is not subscriptable), and both fixes are verified."""
    case = REPO / "fixtures" / "unmasked-tail-load" / "launch_autotune_jit_call.py"
    report = Verifier(case, None, options=Options(device="cpu", fills=(0, 0xff), compile=False),
                      progress=lambda _: None).run()
    assert report.verdict == "verified", report.reasons
    assert {f.verdict for f in report.fixes} == {"verified"} and len(report.fixes) == 2
