"""`tritonlint witness --fix`: only fixes the run validated are written, atomically, and only if they parse."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.fixes import write_validated

# The K loop's X load is bounded on M only (a TL101 with a validated fix); Y's store is masked.
KERNEL = textwrap.dedent("""\
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
""")


def _checked(path: Path) -> analysis.CheckedFile:
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(path)], config)
    assert not errors and len(files) == 1
    return files[0]


def test_witness_fix_writes_the_validated_fix(tmp_path: Path) -> None:
    path = tmp_path / "kernels.py"
    path.write_text(KERNEL)
    done = subprocess.run([sys.executable, "-m", "tritonlint", "witness", "--select", "ALL", "--fix",
                           "--output-format", "json", "kernels.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    [item] = json.loads(done.stdout)
    assert item["fix"]["validation"]["status"] == "validated", item["fix"]
    assert item["fix"]["applied"] is True
    fixed = path.read_text()
    assert fixed != KERNEL and "(k + offs_k)[None, :] < K" in fixed
    compile(fixed, "kernels.py", "exec")
    assert "wrote 1 validated fix" in done.stderr


def test_a_fix_not_validated_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "kernels.py"
    path.write_text(KERNEL)
    checked = _checked(path)
    [d] = checked.diagnostics
    outcome = write_validated(checked, {id(d): {"status": "failed", "reason": "the fixed kernel does not run"}})
    assert outcome.applied == [] and outcome.error is None
    assert "not validated (failed)" in outcome.not_applied[id(d)]
    assert path.read_text() == KERNEL
    # Validated, it is written.
    outcome = write_validated(checked, {id(d): {"status": "validated", "reason": "runs in bounds"}})
    assert outcome.applied == [d] and path.read_text() != KERNEL


def test_a_file_changed_since_the_check_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "kernels.py"
    path.write_text(KERNEL)
    checked = _checked(path)
    [d] = checked.diagnostics
    edited = KERNEL + "# edited meanwhile\n"
    path.write_text(edited)
    outcome = write_validated(checked, {id(d): {"status": "validated", "reason": "runs in bounds"}})
    assert outcome.applied == [] and outcome.error is not None and "changed on disk" in outcome.error
    assert path.read_text() == edited


# The host rounds `n` up to a multiple of 128 before the launch: the unmasked tail the witness
# shows at n = 40 is one the callers never reach (latent).
PADDED = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def double(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n, other=0.0)
        tl.store(Y + offs, x * 2)


    def launch(x):
        n_pad = triton.cdiv(x.numel(), 128) * 128
        y = torch.empty(n_pad, device=x.device)
        double[(triton.cdiv(n_pad, 64),)](x, y, n_pad, BLOCK=64)
        return y
""")


def test_a_confirmation_the_host_padding_excludes_is_latent(tmp_path: Path) -> None:
    from tritonlint.witness.runner import witness

    path = tmp_path / "padded.py"
    path.write_text(PADDED)
    checked = _checked(path)
    [d] = [d for d in checked.diagnostics if d.code == "TL102"]
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    assert w.status == "confirmed", w
    assert w.evidence is not None and w.evidence["latent"] == "the callers keep n a multiple of 128", w.evidence


# The host passes the group's width for both the size and the tile (`BLOCK=width` beside `width`):
# the partial tile the witness makes (width 8, tile 16) is one the callers never launch.
SAME_VALUE = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def scale_groups(X, W, Y, width, BLOCK: tl.constexpr):
        g = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + g * width + cols, mask=cols < width, other=0.0)
        w = tl.load(W + cols)
        tl.store(Y + g * width + cols, x * w, mask=cols < width)


    def launch(x, w, groups, width):
        y = torch.empty_like(x)
        scale_groups[(groups,)](x, w, y, width, BLOCK=width)
        return y
""")


def test_a_confirmation_that_needs_a_tile_unequal_to_the_size_the_host_passes_for_it_is_latent(tmp_path: Path) -> None:
    from tritonlint.witness.runner import witness

    path = tmp_path / "same_value.py"
    path.write_text(SAME_VALUE)
    checked = _checked(path)
    found = [d for d in checked.diagnostics if d.line == 11]
    assert found, checked.diagnostics
    w = witness(checked.path, checked.display, checked.text, found[0], checked.launches, checked.flags, None,
                timeout=120)
    assert w.status == "confirmed", w
    assert w.evidence is not None and w.evidence["latent"], w.evidence
    assert "width" in w.evidence["latent"] and "BLOCK" in w.evidence["latent"], w.evidence
