"""`tritonlint verify --device cuda` on a real GPU: the padded allocator, memcheck, vLLM's matmul_ogs.

Skipped without a CUDA GPU (CI has none). On the lent H200 (docs/verification/gpu.md) it runs as
`python3 -m pytest -q tests/verify/test_verify_gpu.py`. The vLLM test also needs the vendored package,
`scripts/fetch_vllm_triton_kernels.sh` (or TRITONLINT_VLLM_TK=DIR/triton_kernels), and sm_90.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

from tritonlint.verify import runner  # noqa: E402
from tritonlint.verify.runner import find_compute_sanitizer, verify  # noqa: E402

pytestmark = pytest.mark.gpu
REPO = Path(__file__).resolve().parents[2]
VLLM_TK = Path(os.environ.get("TRITONLINT_VLLM_TK", REPO / ".vllm_tk" / "original" / "triton_kernels"))

# A row sum over 100 floats in tiles of 32 whose tail tile reads 28 floats (112 bytes) past x:
# small enough that PyTorch's caching allocator would hide it in its 512-byte rounding.
KERNEL = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def row_sum(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, tl.cdiv(N, BLOCK)):
            offs = start * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            acc += x
        tl.store(out_ptr, tl.sum(acc, axis=0))
''')
BUGGY = "        x = tl.load(x_ptr + offs)"
FIXED = "        x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)"
HARNESS = textwrap.dedent('''\
    import torch
    from kern import row_sum

    def run(device):
        x = torch.linspace(-1, 1, 100, device=device)
        out = torch.zeros(1, device=device)
        row_sum[(1,)](x, out, 100, BLOCK=32)
        return {"out": out}
''')


def hand_fixer(copy_root: Path, target: Path) -> None:
    target.write_text(target.read_text().replace(BUGGY, FIXED))


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    root.mkdir()
    (root / "kern.py").write_text(KERNEL)
    harness = tmp_path / "harness.py"
    harness.write_text(HARNESS)
    return root, harness


def test_padded_allocator_exposes_a_small_overread(small: tuple[Path, Path]) -> None:
    root, harness = small
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, device="cuda", fills=[0x00, 0xFF],
                 compile=False, progress=lambda m: None)
    text = runner.format_text(rep)
    assert all(r.status == "ok" for r in rep.runs), text
    # Every run used the padded allocator, and x was one of its allocations.
    for r in rep.runs:
        assert r.allocator and r.allocator["allocations"] >= 2 and not r.allocator["errors"], r.allocator
        assert r.allocator["written_past"] == []
    assert rep.checks["original_nan"] == {"0x00": 0, "0xff": 1}, text
    assert rep.checks["fixed_nan"] == {"0x00": 0, "0xff": 0}, text
    assert rep.verdict == "verified", text


def test_padded_allocator_sees_a_store_past_the_end(small: tuple[Path, Path]) -> None:
    root, harness = small
    (root / "kern.py").write_text(KERNEL.replace(
        "tl.store(out_ptr, tl.sum(acc, axis=0))",
        # 1.0 + the sum: never the fill's bytes, so the pad visibly changes.
        "tl.store(out_ptr + tl.arange(0, 2), tl.zeros((2,), dtype=tl.float32) + 1.0 + tl.sum(acc, axis=0))"))
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, device="cuda", fills=[0x00],
                 compile=False, progress=lambda m: None)
    written = [a for r in rep.runs for a in r.allocator["written_past"]]
    assert written and all(a["args"] == ["row_sum.out_ptr"] and a["written"] == ["after"] for a in written)
    assert "harness.py:" in written[0]["site"]  # where the harness allocated `out`


@pytest.mark.skipif(find_compute_sanitizer() is None, reason="no compute-sanitizer")
def test_memcheck_names_the_tensor_and_line(small: tuple[Path, Path]) -> None:
    root, harness = small
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, device="cuda", fills=[0x00],
                 sanitizer=True, compile=False, progress=lambda m: None)
    text = runner.format_text(rep)
    mem = {r.tree: r for r in rep.runs if r.fill is None}
    assert mem["original"].sanitizer_errors and mem["fixed"].sanitizer_errors == 0, text
    (site,) = rep.fixes[0].sites
    assert (site.tensor, site.kind, site.site.direction, site.site.allocation_size) == (
        "x_ptr", "load", "after", 400), text
    assert site.line == KERNEL.splitlines().index(BUGGY) + 1, text
    assert site.site.max_bytes == 28 * 4, text  # the whole tail tile past x, 28 floats
    assert rep.verdict == "verified", text


@pytest.mark.skipif(not (VLLM_TK / "matmul_ogs.py").is_file(), reason="vLLM's triton_kernels not fetched")
@pytest.mark.skipif(torch.cuda.get_device_capability() != (9, 0), reason="needs sm_90")
def test_vllm_matmul_ogs_hopper_scale_fix(tmp_path: Path) -> None:
    # The real CLI on the real package (a package folder PATH, no --root), like a user runs it.
    # --only the Hopper scale load: the fixer's other changes are on paths a Hopper run never takes.
    seed = VLLM_TK / "matmul_ogs_details" / "_matmul_ogs.py"
    line = next(n for n, text in enumerate(seed.read_text().splitlines(), 1)
                if "unswizzle_mxfp4_scale_hopper(tl.load(WMxScalePtrs)" in text)
    cmd = [sys.executable, "-m", "tritonlint", "verify", str(VLLM_TK), "--harness",
           str(REPO / "harnesses" / "vllm_matmul_ogs" / "harness.py"), "--device", "cuda",
           "--output-format", "json", "--no-compile", "--only", f"{seed}:{line}"]
    if find_compute_sanitizer():
        cmd.append("--sanitizer")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=tmp_path, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(REPO), os.environ.get("PYTHONPATH", "")])})
    assert proc.stdout, proc.stderr[-4000:]
    rep = json.loads(proc.stdout)
    hopper = [f for f in rep["fixes"] if f["path"] == "triton_kernels/matmul_ogs_details/_matmul_ogs.py"
              and "unswizzle_mxfp4_scale_hopper" in f["diff"]]
    assert len(hopper) == 1 and hopper[0]["verdict"] == "verified", json.dumps(rep["fixes"], indent=1)
    assert len(rep["fixes"]) == 1 and rep["verdict"] == "verified", json.dumps(rep["fixes"], indent=1)
    checks = rep["checks"]
    assert checks["original_nan"]["0x00"] == 0 and checks["original_nan"]["0xff"] > 0, checks
    assert set(checks["fixed_nan"].values()) == {0} and checks["fixed_fill_dependent"] == [], checks
    assert checks["fixed_vs_original_at_0x00"] == {}, checks
    if find_compute_sanitizer():
        mem = {r["tree"]: r for r in rep["runs"] if r["fill"] is None}
        assert mem["original"]["sanitizer_errors"] > 0 and mem["fixed"]["sanitizer_errors"] == 0, mem
        assert any(s["tensor"] == "WMxScale" and s["line"] == 327 for s in hopper[0]["sites"]), hopper


@pytest.mark.skipif(find_compute_sanitizer() is None, reason="no compute-sanitizer")
def test_memcheck_guard_region_keeps_a_long_overread_whole(small: tuple[Path, Path]) -> None:
    """A tail tile of 256 over 100 floats reads 624 bytes past x: further than the gap before the
    next allocation. compute-sanitizer's --padding (of --pad-bytes) keeps every byte of it outside
    any allocation, so memcheck reports the whole overread on x and nothing inside a neighbour."""
    root, harness = small
    harness.write_text(HARNESS.replace("BLOCK=32", "BLOCK=256"))
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, device="cuda", fills=[0x00],
                 sanitizer=True, compile=False, progress=lambda m: None)
    text = runner.format_text(rep)
    (site,) = rep.fixes[0].sites
    assert (site.tensor, site.site.allocation_size, site.site.max_bytes) == ("x_ptr", 400, 156 * 4), text
    assert rep.verdict == "verified", text


@pytest.mark.skipif(not (VLLM_TK / "matmul_ogs.py").is_file(), reason="vLLM's triton_kernels not fetched")
@pytest.mark.skipif(torch.cuda.get_device_capability() != (9, 0), reason="needs sm_90")
def test_vllm_every_fix_hopper_verified_others_not_reached(tmp_path: Path) -> None:
    """No --only: the Hopper scale fix is verified; the Blackwell and CDNA4 scale loads and the
    routing store, which a Hopper run never takes, are listed as not reached. VERIFIED, exit 0;
    --strict makes them fail the run (exit 1). Each fix also runs alone (the default on cuda)."""
    seed = VLLM_TK / "matmul_ogs_details" / "_matmul_ogs.py"
    line = next(n for n, text in enumerate(seed.read_text().splitlines(), 1)
                if "unswizzle_mxfp4_scale_hopper(tl.load(WMxScalePtrs)" in text)
    cmd = [sys.executable, "-m", "tritonlint", "verify", str(VLLM_TK), "--harness",
           str(REPO / "harnesses" / "vllm_matmul_ogs" / "harness.py"), "--device", "cuda",
           "--output-format", "json", "--no-compile"]
    if find_compute_sanitizer():
        cmd.append("--sanitizer")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    reports = {}
    for strict in (False, True):
        proc = subprocess.run(cmd + (["--strict"] if strict else []), capture_output=True, text=True,
                              timeout=1800, cwd=tmp_path, check=False, env=env)
        assert proc.stdout, proc.stderr[-4000:]
        reports[strict] = (proc.returncode, json.loads(proc.stdout))
    code, rep = reports[False]
    where = f"triton_kernels/matmul_ogs_details/_matmul_ogs.py:{line}"
    assert rep["verified_fixes"] == [where], json.dumps(rep["fixes"], indent=1)
    assert len(rep["not_reached_fixes"]) == len(rep["fixes"]) - 1 >= 3, rep["not_reached_fixes"]
    assert (code, rep["verdict"], rep["failed_fixes"]) == (0, "verified", []), rep["reasons"]
    assert {r["without_fix"] for r in rep["runs"] if r["without_fix"]} == {
        f"{f['path']}:{f['line']}" for f in rep["fixes"]}
    code, rep = reports[True]
    assert (code, rep["verdict"]) == (1, "not-exercised"), rep["reasons"]


def test_no_harness_verifies_on_the_gpu_with_the_witness_launch() -> None:
    """`verify PATH --device cuda` with no harness: the witness's launch for gemm_even_k_twin, compiled
    for the GPU, padded with the fill: the original's outputs follow the fill, the fixed tree's do not."""
    case = REPO / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py"
    report = verify(case, None, device="cuda", compile=False, progress=lambda _: None)
    assert report.verdict == "verified", report.reasons
    assert report.witness and report.witness[0]["status"] == "confirmed"
    assert [f.verdict for f in report.fixes] == ["verified"]
