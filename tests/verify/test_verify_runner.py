"""`tritonlint verify`: differential poisoned runs in subprocesses, verdicts, cleanup, CLI."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.verify import cli, runner  # noqa: E402
from tritonlint.verify.compare import outputs_identical  # noqa: E402
from tritonlint.verify.judge import Judgement, judge  # noqa: E402
from tritonlint.verify.runner import verify  # noqa: E402
from tritonlint.verify.sanitizer import merge_overreads, parse_sanitizer  # noqa: E402
from tritonlint.verify.trees import diff_trees, map_fixed_line  # noqa: E402

KERNEL = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def row_sum(x_ptr, out_ptr, N, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, tl.cdiv(N, BLOCK)):
            offs = start * BLOCK + tl.arange(0, BLOCK)
            if EVEN_N:
                x = tl.load(x_ptr + offs)
            else:
                x = tl.load(x_ptr + offs)  # the tail bug
            acc += x
        tl.store(out_ptr, tl.sum(acc, axis=0))
''')
BUGGY = "            x = tl.load(x_ptr + offs)  # the tail bug"
FIXED = "            x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)  # the tail bug"
BUG_LINE = KERNEL.splitlines().index(BUGGY) + 1

HARNESS = textwrap.dedent('''\
    import torch
    from kern import row_sum

    N = {n}

    def run(device):
        x = torch.linspace(-1, 1, N, device=device)
        out = torch.zeros(1, device=device)
        row_sum[(1,)](x, out, N, BLOCK=32, EVEN_N=N % 32 == 0 and {even})
        return {{"out": out}}
''')


def hand_fixer(copy_root: Path, target: Path) -> None:
    # Stands in for `tritonlint check --fix` (which cli_fixer runs in production).
    text = target.read_text()
    assert BUGGY in text
    target.write_text(text.replace(BUGGY, FIXED))


def no_fixer(copy_root: Path, target: Path) -> None:
    pass


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "root"
    root.mkdir()
    (root / "kern.py").write_text(KERNEL)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    # Every temp tree goes here, so the tests can check nothing is left behind.
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return root, scratch


def leftovers(scratch: Path) -> list[Path]:
    # multiprocessing's forkserver keeps its own pymp-* socket folder there; ours are named.
    return [p for p in scratch.iterdir() if p.name.startswith("tritonlint-verify-")]


def write_harness(tmp_path: Path, n: int, even: bool = True, body: str | None = None) -> Path:
    h = tmp_path / "harness.py"
    h.write_text(body if body is not None else HARNESS.format(n=n, even=even))
    return h


def test_verified_end_to_end(project, tmp_path):
    root, scratch = project
    harness = write_harness(tmp_path, 100)
    msgs: list[str] = []
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, fills=[0x00, 0xFF], timeout=120,
                 progress=msgs.append)
    assert rep.verdict == "verified", rep.reasons
    assert rep.exit_code == 0
    (fix,) = rep.fixes
    assert fix.path == "kern.py" and fix.orig_lines[0] == BUG_LINE and fix.verdict == "verified"
    (site,) = fix.sites
    assert (site.line, site.kind, site.tensor, site.site.max_elements, site.site.direction) == (
        BUG_LINE, "load", "x_ptr", 28, "after")
    assert rep.checks["original_fill_dependent"] == ["out"]
    assert rep.checks["original_nan"] == {"0x00": 0, "0xff": 1}
    assert rep.checks["fixed_fill_dependent"] == [] and rep.checks["fixed_oob_sites"] == 0
    # Both specializations compiled for sm_90: the tail one has the touched load masked.
    (comp,) = rep.compile
    assert comp["ok"] is True, comp
    assert comp["launched"]["unmasked_touched"] == []
    assert comp["EVEN_N=True"]["same_as_original"] is True
    assert any("running harness" in m for m in msgs)
    assert leftovers(scratch) == []
    d = rep.to_dict()
    json.dumps(d)
    assert d["verdict"] == "verified" and d["fixes"][0]["sites"][0]["tensor"] == "x_ptr"
    assert "kern.py:%d" % BUG_LINE in runner.format_text(rep)
    assert (root / "kern.py").read_text() == KERNEL  # the user's file is untouched


def test_not_exercised_when_tail_never_reached(project, tmp_path):
    root, scratch = project
    harness = write_harness(tmp_path, 64, even=False)  # EVEN_N=False but no partial tile
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, fills=[0x00], compile=False,
                 progress=lambda m: None)
    assert rep.verdict == "not-exercised", rep.reasons
    assert rep.fixes[0].verdict == "not-exercised"
    assert rep.exit_code == 1
    assert leftovers(scratch) == []


def test_wrong_in_bounds_fix_is_not_verified_without_reference(project, tmp_path):
    """A fix that stays in bounds but is wrong (masked lanes read as 1.0, not 0.0) changes the
    sum; with no reference() in the harness, the fixed output differing from the original at
    fill 0x00 (where the original's overread reads zeros) is the evidence: FAILED."""
    root, _ = project
    harness = write_harness(tmp_path, 100)

    def wrong_fixer(copy_root: Path, target: Path) -> None:
        target.write_text(target.read_text().replace(BUGGY, FIXED.replace("other=0.0", "other=1.0")))

    rep = verify(root / "kern.py", harness, fixer=wrong_fixer, fills=[0x00, 0xFF], compile=False,
                 timeout=120, progress=lambda m: None)
    assert rep.checks["fixed_oob_sites"] == 0 and rep.checks["fixed_fill_dependent"] == []
    assert rep.checks["fixed_vs_reference_relative_error"] is None  # no reference() to compare with
    assert list(rep.checks["fixed_vs_original_at_0x00"]) == ["out"]
    assert rep.checks["fixed_vs_original_at_0x00"]["out"] == pytest.approx(28.0)  # 28 lanes past N
    assert rep.verdict == "failed", rep.reasons
    assert rep.fixes[0].verdict == "failed"
    assert any("differ from the original at fill 0x00" in r for r in rep.reasons), rep.reasons


UNDEF_KERNEL = KERNEL.replace("def row_sum(x_ptr, out_ptr, N,", "def row_sum(x_ptr, out_ptr, N, undef,")
UNDEF_HARNESS = textwrap.dedent('''\
    import struct
    import sys

    import torch
    from kern import row_sum

    N = 100

    def run(device):
        # The fill byte of this run (the child's --fill). On a GPU, lanes a kernel reads without
        # defining them hold whatever the poisoned memory holds; the interpreter has no such
        # memory, so the kernel is handed that value to read instead.
        fill = int(sys.argv[sys.argv.index("--fill") + 1])
        undef = struct.unpack("<f", bytes([fill]) * 4)[0]
        x = torch.linspace(-1, 1, N, device=device)
        out = torch.zeros(1, device=device)
        row_sum[(1,)](x, out, N, undef, BLOCK=32, EVEN_N=False)
        return {"out": out}
''')


def test_fill_dependent_fixed_output_is_not_verified(project, tmp_path):
    """A fix that keeps the kernel in bounds but makes its output depend on the fill (its masked
    lanes read an undefined value, here the poison itself): equal to the original at fill 0x00,
    no new NaN (fill 0x3f is 0.747 as float32), no reference(): only the fixed outputs changing
    with the fill show it, and that alone makes it FAILED. Real runs; fresh child processes so
    the harness sees its --fill argument."""
    root, _ = project
    (root / "kern.py").write_text(UNDEF_KERNEL)
    harness = write_harness(tmp_path, 100, body=UNDEF_HARNESS)

    def undefined_lanes_fixer(copy_root: Path, target: Path) -> None:
        target.write_text(target.read_text().replace(BUGGY, FIXED.replace("other=0.0", "other=undef")))

    rep = verify(root / "kern.py", harness, fixer=undefined_lanes_fixer, fills=[0x00, 0x3F], compile=False,
                 timeout=240, forkserver=False, progress=lambda m: None)
    assert all(r.status == "ok" for r in rep.runs), [r.error for r in rep.runs]
    assert rep.checks["original_fill_dependent"] == ["out"] and rep.checks["original_oob_sites"] == 1
    assert rep.checks["fixed_oob_sites"] == 0
    assert not rep.checks["fixed_vs_original_at_0x00"] and not rep.checks["fixed_new_nan"]
    assert rep.checks["fixed_fill_dependent"] == ["out"]
    assert rep.verdict == "failed", rep.reasons
    assert rep.fixes[0].verdict == "failed"
    assert any("fixed outputs change with the fill: out" in r for r in rep.reasons), rep.reasons


def test_crash_and_hang_reported_not_propagated(project, tmp_path):
    root, scratch = project
    pidfile = tmp_path / "pid"
    body = textwrap.dedent(f'''\
        import os, time
        import kern

        def run(device):
            if "original" in kern.__file__:
                raise RuntimeError("harness exploded")
            open({str(pidfile)!r}, "w").write(str(os.getpid()))
            time.sleep(600)
    ''')
    harness = write_harness(tmp_path, 0, body=body)
    timeout = 5 if runner.Options().forkserver else 25  # a fresh exec pays the torch import
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, fills=[0x00], timeout=timeout, compile=False,
                 progress=lambda m: None)
    statuses = {r.tree: r.status for r in rep.runs}
    assert statuses == {"original": "crashed", "fixed": "timeout"}
    assert rep.verdict == "failed" and rep.exit_code == 1
    assert any("harness exploded" in r for r in rep.reasons)
    assert any("timeout" in r for r in rep.reasons)
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert leftovers(scratch) == []


def test_interrupt_cleans_temp_trees(project, tmp_path):
    root, scratch = project

    def interrupted(copy_root: Path, target: Path) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        verify(root / "kern.py", write_harness(tmp_path, 100), fixer=interrupted,
               progress=lambda m: None)
    assert leftovers(scratch) == []


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    return p.parse_args(argv)


def test_cli_json_unfixed_original_fails(project, tmp_path, monkeypatch, capsys):
    root, _ = project
    monkeypatch.setattr(runner, "cli_fixer", no_fixer)
    harness = write_harness(tmp_path, 100)
    code = cli.run(parse([str(root / "kern.py"), "--harness", str(harness), "--fills", "0xff",
                          "--output-format", "json", "--no-compile"]))
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verdict"] == "failed"
    assert out["fixes"] == []
    (acc,) = out["accesses"]
    assert (acc["line"], acc["tensor"], acc["max_elements"]) == (BUG_LINE, "x_ptr", 28)


def test_cli_errors_exit_2(tmp_path, capsys):
    (tmp_path / "k.py").write_text("x = 1\n")
    assert cli.run(parse([str(tmp_path / "k.py"), "--harness", str(tmp_path / "none.py")])) == 2
    assert "harness not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse([str(tmp_path / "k.py"), "--harness", "h.py", "--fills", "0x100"])
    assert parse(["p", "--harness", "h"]).fills == [0, 0xFE, 0xFF]


def test_diff_trees_groups_support_hunks_and_maps_lines(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    orig = ["x = 1\n", "y = 2\n", "v = tl.load(p)\n", "z = 3\n"]
    new = ["x = 1\n", "y = 2\n", "if EVEN_K:\n", "    m = True\n", "v = tl.load(p, mask=m)\n", "z = 3\n"]
    (a / "k.py").write_text("".join(orig))
    (b / "k.py").write_text("".join(new))
    (a / "same.py").write_text("q = 1\n")
    (b / "same.py").write_text("q = 1\n")
    fixes, ops = diff_trees(a, b)
    (fix,) = fixes
    assert fix.path == "k.py" and fix.orig_lines == (3, 3) and fix.fixed_lines == (3, 5)
    assert map_fixed_line(ops["k.py"], 6) == 4
    assert map_fixed_line(ops["k.py"], 4) is None
    assert map_fixed_line(ops.get("same.py"), 1) == 1


def test_diff_trees_keeps_two_decorator_fixes_apart(tmp_path):
    """Two predicate fixes on two kernels' decorators, no access edited: two regions, neither
    spanning the first kernel's unchanged store nor the boundary between the kernels."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    orig = ['@triton.heuristics({"E": lambda args: args["K"] % 2 == 0})\n', "@triton.jit\n",
            "def f(X, Y):\n", "    tl.store(Y, 1.0)\n", "\n", "\n",
            '@triton.heuristics({"E": lambda args: args["K"] % 2 == 0})\n', "@triton.jit\n",
            "def g(X, Y):\n", "    y = 1\n"]
    new = list(orig)
    new[0] = new[6] = '@triton.heuristics({"E": lambda args: args["K"] % args["B"] == 0})\n'
    (a / "k.py").write_text("".join(orig))
    (b / "k.py").write_text("".join(new))
    fixes, _ = diff_trees(a, b)
    assert [f.orig_lines for f in fixes] == [(1, 1), (7, 7)]
    # Without an access or a top-level line between them, support still joins its access.
    orig2 = ["def f(p):\n", "    x = 1\n", "    y = 2\n", "    v = tl.load(p)\n"]
    new2 = ["def f(p):\n", "    x = 1\n", "    m = True\n", "    y = 2\n", "    v = tl.load(p, mask=m)\n"]
    (a / "k.py").write_text("".join(orig2))
    (b / "k.py").write_text("".join(new2))
    fixes, _ = diff_trees(a, b)
    assert [f.orig_lines for f in fixes] == [(3, 4)]


def test_outputs_identical_is_bitwise_and_nan_aware():
    nan = torch.tensor([float("nan"), 1.0])
    assert outputs_identical({"o": nan}, {"o": nan.clone()}) == []
    assert outputs_identical({"o": nan}, {"o": torch.tensor([0.0, 1.0])}) == ["o"]
    assert outputs_identical({"o": torch.tensor([0.0])}, {"o": torch.tensor([-0.0])}) == ["o"]


def test_parse_sanitizer_output():
    # The shape of compute-sanitizer 2025.3's memcheck report, as the H200 printed it for the
    # seed bug (docs/verification/gpu.md), with and without line information.
    text = textwrap.dedent('''\
        ========= COMPUTE-SANITIZER
        ========= Invalid __global__ read of size 4 bytes
        =========     at _matmul_ogs_NNT_bf16xbf16xmxfp4_64x256x128x1+0x4150 in /t/_matmul_ogs.py:327
        =========     by thread (96,0,0) in block (10,0,0)
        =========     Access to 0x7fc391a2c000 is out of bounds
        =========     and is 1 bytes after the nearest allocation at 0x7fc390a00000 of size 16,957,440 bytes
        =========     Saved host backtrace up to driver entry point at kernel launch time
        =========         Host Frame: [0x2f3c1] in libcuda.so.1
        ========= Invalid __global__ read of size 4 bytes
        =========     at _matmul_ogs_NNT_bf16xbf16xmxfp4_64x256x128x1+0x4150 in /t/_matmul_ogs.py:327
        =========     by thread (97,0,0) in block (10,0,0)
        =========     Access to 0x7fc391a2c03c is out of bounds
        =========     and is 61 bytes after the nearest allocation at 0x7fc390a00000 of size 16,957,440 bytes
        ========= Invalid __global__ write of size 2 bytes
        =========     at store_tail+0x90
        =========     Access to 0x7f0000000ffe is out of bounds
        =========     and is 2 bytes before the nearest allocation at 0x7f0000001000 of size 512 bytes
        ========= ERROR SUMMARY: 3 errors
    ''')
    count, sites = parse_sanitizer(text)
    assert count == 3
    assert sites == [
        {"kind": "load", "size": 4, "kernel": "_matmul_ogs_NNT_bf16xbf16xmxfp4_64x256x128x1",
         "pc": "0x4150", "path": "/t/_matmul_ogs.py", "line": 327, "allocation": "0x7fc390a00000",
         "allocation_size": 16957440, "direction": "after", "count": 2, "max_bytes": 64, "min_bytes": 4},
        {"kind": "store", "size": 2, "kernel": "store_tail", "pc": "0x90", "path": None, "line": None,
         "allocation": "0x7f0000001000", "allocation_size": 512, "direction": "before", "count": 1,
         "max_bytes": 2, "min_bytes": 2},
    ]
    assert parse_sanitizer("========= ERROR SUMMARY: 0 errors\n") == (0, [])
    assert parse_sanitizer("no report") == (None, [])


def test_an_overread_reported_before_the_next_tensor_is_one_overread():
    # x: 400 bytes at 0x1000, y allocated at 0x1200. A 4-byte load reading x[100..127] (bytes
    # 400..511 past x's start) is reported partly "after x", partly "before y".
    report = []
    for addr in range(0x1000 + 400, 0x1000 + 512, 4):
        near_x = addr - (0x1000 + 400) + 1 <= 0x1200 - addr
        where = (f"is {addr - (0x1000 + 400) + 1} bytes after the nearest allocation at 0x1000 of size 400 bytes"
                 if near_x else f"is {0x1200 - addr} bytes before the nearest allocation at 0x1200 of size 4 bytes")
        report += ["========= Invalid __global__ read of size 4 bytes",
                   "=========     at row_sum+0x50 in kern.py:10", f"=========     Access to {addr:#x} is out of bounds",
                   f"=========     and {where}"]
    count, sites = parse_sanitizer("\n".join(report + ["========= ERROR SUMMARY: 28 errors"]))
    assert count == 28 and {s["direction"] for s in sites} == {"after", "before"}
    (site,) = merge_overreads(sites)
    assert (site["direction"], site["allocation"], site["count"], site["max_bytes"]) == ("after", "0x1000", 28, 112)
    assert parse_sanitizer("no report") == (None, [])


@pytest.mark.gpu
def test_cuda_poisoned_run(project, tmp_path):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU")
    root, _ = project
    harness = write_harness(tmp_path, 100)
    rep = verify(root / "kern.py", harness, fixer=hand_fixer, device="cuda", fills=[0x00, 0xFF],
                 progress=lambda m: None)
    assert all(r.status == "ok" for r in rep.runs), [r.error for r in rep.runs]
    assert rep.checks["fixed_fill_dependent"] == []
    assert rep.verdict == "verified", rep.reasons


def test_original_off_reference_explains_in_storage_overruns() -> None:
    from tritonlint.verify.compare import original_off_reference

    ref = torch.tensor([1.0, 2.0, 3.0, 4.0])
    fixed = ref.clone()
    orig = torch.tensor([1.0, 2.0, 9.0, 4.0])  # a neighbour's value read in place of element 2
    why = original_off_reference(orig, fixed, ref, 0.01)
    assert why is not None and why["elements"] == 1
    # The fix off the reference where they differ: not explained.
    assert original_off_reference(orig, torch.tensor([1.0, 2.0, 5.0, 4.0]), ref, 0.01) is None
    # The original closer to the reference than the fix: not explained.
    assert original_off_reference(torch.tensor([1.0, 2.0, 3.0, 4.0]),
                                  torch.tensor([1.0, 2.0, 3.01, 4.0]), ref, 0.01) is None


def test_fix_conditions_and_flag_evaluation(tmp_path: Path) -> None:
    from tritonlint.verify.compiled import eval_flags as _eval_flags
    from tritonlint.verify.trees import fix_conditions as _fix_conditions

    src = tmp_path / "k.py"
    src.write_text("a = 1\ncs = tl.load(p, mask=None if EVEN_K else ks < K, other=None if EVEN_K else 0)\n"
                   "tl.store(p, v, mask=offs < N)\n")
    conds = _fix_conditions(src, {1, 2, 3})
    assert conds == {2: ["EVEN_K", "EVEN_K"]}
    assert _eval_flags("EVEN_K", {"EVEN_K": True}) is True
    assert _eval_flags("EVEN_M and not EVEN_N", {"EVEN_M": True, "EVEN_N": False}) is True
    assert _eval_flags("(EVEN_M or EVEN_K)", {"EVEN_M": False, "EVEN_K": False}) is False
    assert _eval_flags("EVEN_X", {}) is None


PKG_HARNESS = textwrap.dedent('''\
    import torch
    import pkg
    from pkg.kern import row_sum

    def run(device):
        # The copy is imported by the package's own name, not the user's folder.
        assert "tritonlint-verify-" in pkg.__file__, pkg.__file__
        x = torch.linspace(-1, 1, 100, device=device)
        out = torch.zeros(1, device=device)
        row_sum[(1,)](x, out, 100, BLOCK=32, EVEN_N=False)
        return {"out": out}
''')


@pytest.mark.parametrize("target", ["pkg", "pkg/kern.py"])
def test_package_folder_keeps_its_name(project, tmp_path, target):
    root, scratch = project
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(KERNEL)
    harness = write_harness(tmp_path, 0, body=PKG_HARNESS)
    seen = []

    def fixer(copy_root: Path, path: Path) -> None:
        seen.append(path.relative_to(copy_root))
        hand_fixer(copy_root, path / "kern.py" if path.is_dir() else path)

    rep = verify(root / target, harness, fixer=fixer, fills=[0x00, 0xFF], compile=False, timeout=120,
                 progress=lambda m: None)
    assert seen == [Path(target)]  # the fixer is handed the package under its own name
    assert all(r.status == "ok" for r in rep.runs), [r.error for r in rep.runs]
    assert rep.verdict == "verified", runner.format_text(rep)
    (fix,) = rep.fixes
    assert fix.path == "pkg/kern.py" and fix.orig_lines[0] == BUG_LINE
    assert fix.sites[0].path == "pkg/kern.py" and fix.sites[0].tensor == "x_ptr"
    assert (pkg / "kern.py").read_text() == KERNEL
    assert leftovers(scratch) == []


CRASHING = textwrap.dedent('''\
    def helper():
        import no_such_module_for_tritonlint  # noqa: F401

    def run(device):
        helper()
''')


def test_harness_crashing_on_both_trees_is_exit_2(project, tmp_path, monkeypatch, capsys):
    root, scratch = project
    monkeypatch.setattr(runner, "cli_fixer", hand_fixer)
    harness = write_harness(tmp_path, 0, body=CRASHING)
    code = cli.run(parse([str(root / "kern.py"), "--harness", str(harness), "--fills", "0x00,0xff",
                          "--no-compile", "--keep"]))
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.out == ""  # no verdict printed: FAILED / NOT-EXERCISED would be a lie
    err = captured.err
    assert "the harness failed on both trees (4 runs, crashed)" in err
    # The last traceback lines: the harness's own frame and the error itself.
    assert "in helper" in err and "No module named 'no_such_module_for_tritonlint'" in err
    # --keep keeps every run's log, and says where.
    (kept,) = leftovers(scratch)
    logs = sorted(kept.glob("runs/*/log.txt"))
    assert len(logs) == 4 and f"{kept}/runs/*/log.txt" in err
    report = json.loads((kept / "runs" / "original-255" / "report.json").read_text())
    assert "No module named 'no_such_module_for_tritonlint'" in report["error"]


def test_crash_on_one_tree_only_is_a_verdict(project, tmp_path, monkeypatch, capsys):
    root, _ = project
    monkeypatch.setattr(runner, "cli_fixer", hand_fixer)
    body = textwrap.dedent('''\
        import kern

        def run(device):
            if "fixed" in kern.__file__:
                raise RuntimeError("the fix broke it")
            return {"out": kern.__file__.count("/")}
    ''')
    code = cli.run(parse([str(root / "kern.py"), "--harness", str(write_harness(tmp_path, 0, body=body)),
                          "--fills", "0x00", "--no-compile"]))
    out = capsys.readouterr().out
    assert code == 1 and "FAILED" in out and "the fix broke it" in out


def test_memcheck_line_of_a_generated_kernel_is_found_in_its_source(tmp_path):
    # triton_kernels' specialize() rebuilds a kernel from its source text with a new header: its
    # code (and so memcheck's line) belongs to specialize.py, counted from that function's line.
    from tritonlint.verify.sanitizer import sanitizer_site
    from tritonlint.verify.trees import defining_file

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    original = ["import triton", "", "@triton.jit", "def kern(A, B, N,", "         K: tl.constexpr):",
                "    x = tl.load(A)", "    y = tl.load(B)  # the bad one", "    x = tl.load(A)", ""]
    (pkg / "k.py").write_text("\n".join(original))
    (pkg / "specialize.py").write_text("def _empty_fn():\n    pass\n")
    generated = "def kern(A, B, N):\n    K: tl.constexpr = 4\n" + "\n".join(original[5:])
    start = 37
    site = {"kind": "load", "size": 4, "kernel": "kern_0d1d", "pc": "0x10", "path": "specialize.py",
            "line": start + 3, "allocation": "0x2000", "allocation_size": 64, "direction": "after",
            "count": 3, "max_bytes": 12, "min_bytes": 4}
    launch = {"kernel": "kern", "path": str(pkg / "specialize.py"), "compiled": "kern_0d1d",
              "generated": {"start": start, "src": generated, "file": defining_file(tmp_path, "kern")}}
    tensors = [{"kernel": "kern", "path": launch["path"], "compiled": "kern_0d1d", "param": "B",
                "ptr": "0x2000", "storage": "0x2000", "nbytes": 64, "dtype": "torch.float32", "shape": [16]}]
    out = sanitizer_site(tmp_path, site, tensors, [launch])
    assert (out["path"], out["line"], out["tensor"], out["kernel"]) == ("pkg/k.py", 7, "B", "kern")
    # A line whose text is not unique is placed by the lines before it.
    site["line"] = start + 4  # the second `x = tl.load(A)`
    assert sanitizer_site(tmp_path, site, tensors, [launch])["line"] == 8


def test_a_specialization_is_all_even_by_checks_own_flag_recogniser(tmp_path: Path) -> None:
    """`verify` asks the recogniser `check` uses which constexprs are evenness flags and which value
    promises full tiles: `DIVISIBLE_K=True` and `MASK_N=False` are even, whatever the names say."""
    from tritonlint.verify.compiled import all_even as _all_even

    kernel = tmp_path / "k.py"
    kernel.write_text((Path(__file__).resolve().parents[2] / "fixtures/unmasked-tail-load/flag_named_oddly.py").read_text())
    assert _all_even(kernel, "bmm_divisible_kernel", {"DIVISIBLE_K": True, "DIVISIBLE_M": True, "DIVISIBLE_N": True})
    assert not _all_even(kernel, "bmm_divisible_kernel", {"DIVISIBLE_K": False, "DIVISIBLE_M": True})
    assert _all_even(kernel, "weighted_row_sum_kernel", {"MASK_K": False})
    assert not _all_even(kernel, "weighted_row_sum_kernel", {"MASK_K": True})
    assert not _all_even(kernel, "weighted_row_sum_kernel", {"BLOCK_K": 32})  # sets no flag


def test_keep_only_reverts_the_unselected_fixes(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "sub").mkdir(parents=True), (b / "sub").mkdir(parents=True)
    orig = ["x = tl.load(p)\n", "y = 2\n", "z = tl.load(q)\n", "w = tl.load(r)\n"]
    new = ["x = tl.load(p, mask=m)\n", "y = 2\n", "z = tl.load(q, mask=n)\n", "w = tl.load(r, mask=o)\n"]
    (a / "sub" / "k.py").write_text("".join(orig))
    (b / "sub" / "k.py").write_text("".join(new))
    (a / "other.py").write_text("v = tl.load(s)\n")
    (b / "other.py").write_text("v = tl.load(s, mask=t)\n")
    assert runner.keep_only(a, b, {"sub/k.py": {3}}) == ["sub/k.py:3"]
    assert (b / "sub" / "k.py").read_text() == "".join([orig[0], orig[1], new[2], orig[3]])
    assert (b / "other.py").read_text() == "v = tl.load(s)\n"  # a file with no selection: all reverted
    (fix,) = diff_trees(a, b)[0]
    assert (fix.path, fix.orig_lines) == ("sub/k.py", (3, 3))
    with pytest.raises(runner.VerifyError, match="no fix at sub/k.py:2"):
        runner.keep_only(a, b, {"sub/k.py": {2}})


def test_keep_only_never_leaves_a_tree_that_does_not_compile(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "k.py").write_text("x = [1,\n     2]\n")
    (b / "k.py").write_text("x = (1,\n     2)\n")
    with pytest.raises(runner.VerifyError, match="does not compile"):
        runner.keep_only(a, b, {"k.py": {1}})
    assert (b / "k.py").read_text() == "x = (1,\n     2)\n"  # left as the fixer wrote it


def test_only_selects_one_fix_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    """flag_named_oddly: three findings in three kernels its harness all runs. With only the first fix
    kept, the other two accesses still go out of bounds in the fixed tree: FAILED, and they are named."""
    case = Path(__file__).resolve().parents[2] / "fixtures" / "unmasked-tail-load" / "flag_named_oddly.py"
    harness = case.with_name("flag_named_oddly_harness.py")
    code = cli.run(parse([str(case), "--harness", str(harness), "--only", f"{case}:52", "--no-compile",
                          "--output-format", "json"]))
    out = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["orig_lines"][0]) for f in out["fixes"]] == [("flag_named_oddly.py", 52)]
    assert code == 1 and out["verdict"] == "failed"
    assert sorted(acc["line"] for acc in out["accesses"] if acc["fix"] is None and acc["verdict"] == "failed") == [73, 86]
    assert cli.run(parse([str(case), "--harness", str(harness), "--only", f"{case}:53"])) == 2
    assert "no fix at flag_named_oddly.py:53" in capsys.readouterr().err
    assert cli.run(parse([str(case), "--harness", str(harness), "--only", "nowhere"])) == 2
    assert "expected FILE:LINE" in capsys.readouterr().err


def _gpu_runs_without_memcheck() -> list[runner.RunResult]:
    """Six poisoned GPU runs (no memcheck): the original's output has NaN at fill 0xff only."""
    clean, poisoned = torch.ones(4), torch.tensor([1.0, float("nan"), 1.0, 1.0])
    runs = [runner.RunResult("original", fill, outputs={"y": poisoned if fill == 0xFF else clean})
            for fill in (0, 0xFE, 0xFF)]
    runs += [runner.RunResult("fixed", fill, outputs={"y": clean}) for fill in (0, 0xFE, 0xFF)]
    return runs


@pytest.mark.parametrize("count", [1, 3])
def test_gpu_fill_evidence_without_memcheck_names_what_it_proves(tmp_path: Path, count: int) -> None:
    """Without memcheck a GPU run cannot tie the fill to a line: one fix is verified by the outputs
    alone; several are verified only together, and each says so (and how to prove one)."""
    report = runner.Report(str(tmp_path / "k.py"), "h.py", str(tmp_path), "cuda", [0, 0xFE, 0xFF],
                           runs=_gpu_runs_without_memcheck(),
                           fixes=[runner.Fix("k.py", (n, n), (n, n), f"-{n}\n+{n}\n") for n in range(1, count + 1)])
    judge(report, Judgement({}, {}, 0, device="cuda"))
    assert report.verdict == "verified" and {f.verdict for f in report.fixes} == {"verified"}
    together = [f for f in report.fixes if "together" in f.reason and "--only" in f.reason]
    assert len(together) == (0 if count == 1 else count), [f.reason for f in report.fixes]
