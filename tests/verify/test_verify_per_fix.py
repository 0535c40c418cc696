"""A verdict per fix: fixes no run reached are listed, not held against the others (unless --strict);
each fix can run on its own with the others applied; verify flips the flags `check` recognises."""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.verify import cli, runner
from tritonlint.verify.judge import Judgement, judge
from tritonlint.verify.records import Fix, Report, RunResult, Verdict
from tritonlint.verify.trees import diff_trees, line_maps, map_fixed_line, without_fix

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "unmasked-tail-load" / "flag_named_oddly.py"
GEMV, ROWSUM = 73, 86  # the lines of two of its three findings (kernels gemv_no_k_tail, weighted_row_sum)

# Runs the row sum (its K tail is reached) and the gemv at a K with no tail (its fix is never reached).
PARTIAL_HARNESS = textwrap.dedent('''\
    import torch
    import triton

    import flag_named_oddly as m


    def run(device):
        torch.manual_seed(0)
        N, K, T = 40, {gemv_k}, 16
        w = torch.randn(N, K, device=device)
        x = torch.randn(K, device=device)
        y = torch.empty(N, device=device)
        m.gemv_no_k_tail_kernel[(triton.cdiv(N, T),)](w, x, y, N, K, BLOCK_N=T, BLOCK_K=T, NO_K_TAIL=False)
        a = torch.randn(8, 40, device=device)
        g = torch.rand(40, device=device)
        s = torch.empty(8, device=device)
        m.weighted_row_sum_kernel[(8,)](a, g, s, 40, a.stride(0), BLOCK_K=T, MASK_K=True)
        return {{"gemv": y, "rowsum": s}}
''')


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    return p.parse_args(argv)


def _harness(tmp_path: Path, gemv_k: int) -> Path:
    h = tmp_path / "partial_harness.py"
    h.write_text(PARTIAL_HARNESS.format(gemv_k=gemv_k))
    return h


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = cli.run(parse([*argv, "--output-format", "json"]))
    return code, json.loads(capsys.readouterr().out)


def test_a_fix_no_run_reached_is_listed_and_fails_only_under_strict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One fix verified, one not reached (its kernel runs only at a K with no tail): VERIFIED, exit 0,
    the unreached one listed; with --strict the run fails (exit 1)."""
    argv = [str(CASE), "--harness", str(_harness(tmp_path, 48)), "--only", f"{CASE}:{GEMV}",
            "--only", f"{CASE}:{ROWSUM}", "--fills", "0x00,0xff", "--no-compile"]
    code, out = _cli(argv, capsys)
    fixes = {f["line"]: f for f in out["fixes"]}  # type: ignore[attr-defined]
    assert (fixes[ROWSUM]["verdict"], fixes[ROWSUM]["reached"]) == ("verified", True), out
    assert (fixes[GEMV]["verdict"], fixes[GEMV]["reached"]) == ("not-exercised", False), out
    assert out["not_reached_fixes"] == [f"{CASE.name}:{GEMV}"]
    assert out["verified_fixes"] == [f"{CASE.name}:{ROWSUM}"] and out["failed_fixes"] == []
    assert (code, out["verdict"], out["exit_code"], out["strict"]) == (0, "verified", 0, False), out

    code, out = _cli([*argv, "--strict"], capsys)
    assert (code, out["verdict"], out["exit_code"], out["strict"]) == (1, "not-exercised", 1, True), out
    assert any("--strict" in r and f":{GEMV}" in r for r in out["reasons"]), out  # type: ignore[attr-defined]


def test_the_text_report_says_not_reached(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(parse([str(CASE), "--harness", str(_harness(tmp_path, 48)), "--only", f"{CASE}:{GEMV}",
                          "--only", f"{CASE}:{ROWSUM}", "--fills", "0x00", "--no-compile"]))
    text = capsys.readouterr().out
    assert code == 0 and text.startswith("tritonlint verify: VERIFIED"), text
    assert f"fix {CASE.name}:{GEMV}: not reached - the harness never made this access" in text
    assert "fixes: 1 verified, 0 failed, 1 not reached by any run (--strict fails the run on those)" in text


def _breaking_fixer(copy_root: Path, target: Path) -> None:
    """The production fixer, then the gemv fix widened so that it still reads past the end of W."""
    runner.cli_fixer(copy_root, target)
    text = target.read_text()
    assert "(cols[None, :] < K)" in text
    target.write_text(text.replace("(cols[None, :] < K)", "(cols[None, :] < K + BLOCK_K)"))


def test_one_failed_fix_fails_the_run_though_another_is_verified(tmp_path: Path) -> None:
    """Every reached fix must be verified: one verified and one failed is FAILED, exit 1. (At fill
    0x00 the wrong fix leaves the outputs as they were; only its own verdict says it failed.)"""
    rep = runner.verify(CASE, _harness(tmp_path, 40), fixer=_breaking_fixer, fills=[0x00], compile=False,
                        only=[f"{CASE}:{GEMV}", f"{CASE}:{ROWSUM}"], progress=lambda m: None)
    verdicts = {f.orig_lines[0]: f.verdict for f in rep.fixes}
    assert verdicts == {GEMV: Verdict.FAILED, ROWSUM: Verdict.VERIFIED}, runner.format_text(rep)
    assert rep.verdict == Verdict.FAILED and rep.exit_code == 1, runner.format_text(rep)
    assert rep.to_dict()["failed_fixes"] == [f"{CASE.name}:{GEMV}"]


def test_without_fix_reverts_one_fix_and_keeps_the_others(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d in (a, b, c):
        d.mkdir()
    orig = ["x = tl.load(p)\n", "y = 2\n", "z = tl.load(q)\n", "w = 3\n"]
    new = ["x = tl.load(p, mask=m)\n", "y = 2\n", "zm = n\n", "z = tl.load(q, mask=zm)\n", "w = 3\n"]
    (a / "k.py").write_text("".join(orig))
    (b / "k.py").write_text("".join(new))
    (c / "k.py").write_text("".join(new))
    fixes, _ = diff_trees(a, b)
    assert [f.orig_lines for f in fixes] == [(1, 1), (3, 3)]
    without_fix(a, b, c, fixes, fixes[1])
    assert (c / "k.py").read_text() == "".join([new[0], orig[1], orig[2], orig[3]])
    # The reverted region maps back to the original's own lines.
    assert map_fixed_line(line_maps(a, c)["k.py"], 3) == 3
    without_fix(a, b, c, fixes, fixes[0])
    assert (c / "k.py").read_text() == "".join([orig[0], *new[1:]])


def test_each_fix_runs_alone_with_the_others_applied(capsys: pytest.CaptureFixture[str]) -> None:
    """--per-fix on the CPU: for each of the three fixes, a tree with only that fix reverted, run at
    every fill; each such run goes out of bounds at its own fix's line and nowhere else."""
    harness = CASE.with_name("flag_named_oddly_harness.py")
    code, out = _cli([str(CASE), "--harness", str(harness), "--fills", "0x00,0xff", "--no-compile",
                      "--per-fix"], capsys)
    assert code == 0 and out["verdict"] == "verified", out
    fixes = out["fixes"]
    assert len(fixes) == 3 and {f["verdict"] for f in fixes} == {"verified"}  # type: ignore[attr-defined]
    per_fix = [r for r in out["runs"] if r["without_fix"]]  # type: ignore[attr-defined]
    assert sorted({r["without_fix"] for r in per_fix}) == sorted(f"{CASE.name}:{f['line']}" for f in fixes)
    assert len(per_fix) == 6 and all(r["status"] == "ok" for r in per_fix), per_fix
    for r in per_fix:
        # Every other fix applied: only the left-out fix's access goes out of bounds.
        assert {(v["path"], v["function"]) for v in r["violations"]} == {
            (CASE.name, next(f["sites"][0]["kernel"] for f in fixes
                             if f"{CASE.name}:{f['line']}" == r["without_fix"]))}, r


def _gpu_like(tmp_path: Path, with_per_fix: bool) -> Report:
    """Two fixes on a GPU with memcheck: memcheck stops the original at its first faulting kernel
    (fix 1's), and the fill shows through the outputs of both together."""
    orig, fixed = tmp_path / "original", tmp_path / "fixed"
    orig.mkdir(exist_ok=True)
    fixed.mkdir(exist_ok=True)
    (orig / "k.py").write_text("a = tl.load(A + offs)\nc = 1\nb = tl.load(B + offs)\n")
    (fixed / "k.py").write_text("a = tl.load(A + offs, mask=m)\nc = 1\nb = tl.load(B + offs, mask=m)\n")
    fixes, opcodes = diff_trees(orig, fixed)

    def site(line: int, tensor: str) -> dict[str, object]:
        return {"path": "k.py", "line": line, "kind": "load", "tensor": tensor, "kernel": "k",
                "direction": "after", "max_elements": None, "max_bytes": 4, "count": 1,
                "source": "compute-sanitizer"}

    clean, poisoned = torch.ones(4), torch.tensor([1.0, float("nan"), 1.0, 1.0])
    runs = [RunResult("original", f, outputs={"y": poisoned if f else clean}) for f in (0, 0xFF)]
    runs += [RunResult("fixed", f, outputs={"y": clean}) for f in (0, 0xFF)]
    runs += [RunResult("original", None, status="crashed", sanitizer_errors=1, violations=[site(1, "A")]),
             RunResult("fixed", None, sanitizer_errors=0)]
    maps = {}
    if with_per_fix:
        for f, line, tensor in ((fixes[0], 1, "A"), (fixes[1], 3, "B")):
            runs += [RunResult("per-fix", fill, outputs={"y": poisoned if fill else clean}, without_fix=f.where)
                     for fill in (0, 0xFF)]
            runs.append(RunResult("per-fix", None, status="crashed", sanitizer_errors=1,
                                  violations=[site(line, tensor)], without_fix=f.where))
            maps[f.where] = {}
    report = Report("k.py", "h.py", str(tmp_path), "cuda", [0, 0xFF], runs=runs, fixes=fixes)
    judge(report, Judgement({"original": orig, "fixed": fixed}, opcodes, 0, device="cuda",
                            per_fix_maps=maps))
    return report


def test_per_fix_runs_reach_the_fix_a_first_fault_hid(tmp_path: Path) -> None:
    alone = _gpu_like(tmp_path, with_per_fix=False)
    assert [f.verdict for f in alone.fixes] == [Verdict.VERIFIED, Verdict.NOT_EXERCISED]
    assert alone.verdict == Verdict.VERIFIED  # the unreached fix is listed, not held against the other
    both = _gpu_like(tmp_path, with_per_fix=True)
    assert [f.verdict for f in both.fixes] == [Verdict.VERIFIED, Verdict.VERIFIED], [f.reason for f in both.fixes]
    assert [a.tensor for a in both.fixes[1].sites] == ["B"]
    assert both.verdict == Verdict.VERIFIED


def test_per_fix_outputs_attribute_the_fill_without_memcheck(tmp_path: Path) -> None:
    """No memcheck: a fix is reached when leaving it alone out changes the outputs (here the fill
    shows through), not when leaving another out does."""
    orig, fixed = tmp_path / "original", tmp_path / "fixed"
    orig.mkdir()
    fixed.mkdir()
    (orig / "k.py").write_text("a = tl.load(A + offs)\nc = 1\nb = tl.load(B + offs)\n")
    (fixed / "k.py").write_text("a = tl.load(A + offs, mask=m)\nc = 1\nb = tl.load(B + offs, mask=m)\n")
    fixes, opcodes = diff_trees(orig, fixed)
    clean, poisoned = torch.ones(4), torch.tensor([1.0, float("nan"), 1.0, 1.0])
    runs = [RunResult("original", f, outputs={"y": poisoned if f else clean}) for f in (0, 0xFF)]
    runs += [RunResult("fixed", f, outputs={"y": clean}) for f in (0, 0xFF)]
    # Only the first fix matters to this harness: leaving the second out changes nothing.
    runs += [RunResult("per-fix", f, outputs={"y": poisoned if f else clean}, without_fix=fixes[0].where)
             for f in (0, 0xFF)]
    runs += [RunResult("per-fix", f, outputs={"y": clean}, without_fix=fixes[1].where) for f in (0, 0xFF)]
    report = Report("k.py", "h.py", str(tmp_path), "cuda", [0, 0xFF], runs=runs, fixes=fixes)
    judge(report, Judgement({"original": orig, "fixed": fixed}, opcodes, 0, device="cuda",
                            per_fix_maps={f.where: {} for f in fixes}))
    assert [f.verdict for f in report.fixes] == [Verdict.VERIFIED, Verdict.NOT_EXERCISED]
    assert "the outputs change only while this fix is left out" in report.fixes[0].reason
    assert report.verdict == Verdict.VERIFIED


def test_compile_check_flips_flags_not_named_even(tmp_path: Path) -> None:
    """weighted_row_sum's flag is MASK_K (full tiles when False): the compile check compiles the
    launched MASK_K=True specialization and its MASK_K=False twin, found by `check`'s recogniser."""
    rep = runner.verify(CASE, CASE.with_name("flag_named_oddly_harness.py"), fills=[0x00],
                        only=[f"{CASE}:{ROWSUM}"], progress=lambda m: None)
    (item,) = [c for c in rep.compile if c["kernel"] == "weighted_row_sum_kernel"]
    assert item["ok"] is True, item
    assert "MASK_K=False" in item and item["MASK_K=False"]["all_even"] is True, item
    assert item["MASK_K=False"]["same_as_original"] is True, item  # the fix keeps the even path unmasked
    assert [f.verdict for f in rep.fixes] == [Verdict.VERIFIED], runner.format_text(rep)


def test_fix_record_says_whether_it_was_reached() -> None:
    f = Fix("k.py", (3, 3), (3, 4), "")
    assert not f.reached and f.to_dict()["reached"] is False
    f.verdict = Verdict.FAILED
    assert f.reached and f.to_dict()["verdict"] == "failed"


def test_per_fix_outputs_attribute_an_overrun_inside_the_storage(tmp_path: Path) -> None:
    """No memcheck, no fill showing through: leaving the second fix out changes the values (a row's
    tail read from the next row) at every fill. That fix is reached; the first, whose absence
    changes nothing, is not."""
    orig, fixed = tmp_path / "original", tmp_path / "fixed"
    orig.mkdir()
    fixed.mkdir()
    (orig / "k.py").write_text("a = tl.load(A + offs)\nc = 1\nb = tl.load(B + offs)\n")
    (fixed / "k.py").write_text("a = tl.load(A + offs, mask=m)\nc = 1\nb = tl.load(B + offs, mask=m)\n")
    fixes, opcodes = diff_trees(orig, fixed)
    right, wrong = torch.ones(4), torch.tensor([1.0, 3.0, 1.0, 1.0])
    runs = [RunResult("original", f, outputs={"y": wrong}, reference={"y": right} if f == 0 else None)
            for f in (0, 0xFF)]
    runs += [RunResult("fixed", f, outputs={"y": right}) for f in (0, 0xFF)]
    runs += [RunResult("per-fix", f, outputs={"y": right}, without_fix=fixes[0].where) for f in (0, 0xFF)]
    runs += [RunResult("per-fix", f, outputs={"y": wrong}, without_fix=fixes[1].where) for f in (0, 0xFF)]
    report = Report("k.py", "h.py", str(tmp_path), "cuda", [0, 0xFF], runs=runs, fixes=fixes)
    judge(report, Judgement({"original": orig, "fixed": fixed}, opcodes, 0, device="cuda",
                            per_fix_maps={f.where: {} for f in fixes}))
    assert [f.verdict for f in report.fixes] == [Verdict.NOT_EXERCISED, Verdict.VERIFIED], report.reasons
    assert report.verdict == Verdict.VERIFIED


def test_a_pad_written_past_is_not_the_fix_of_a_store_through_another_tensor(tmp_path: Path) -> None:
    """A site known only by kernel and tensor (a pad written past, on a GPU): it belongs to the one
    fixed store of the kernel only when that store's pointer is built from the tensor; a write past
    `Out`, which an unfixed store of the same kernel makes, is not the fix of the store into `M`."""
    from tritonlint.verify.trees import only_fix_in_kernel

    (tmp_path / "k.py").write_text(textwrap.dedent("""\
        import triton
        import triton.language as tl


        @triton.jit
        def k(M, Out, N, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m_ptrs = M + offs
            tl.store(m_ptrs, offs)
            o_ptr = tl.make_block_ptr(base=Out, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,),
                                      order=(0,))
            tl.store(o_ptr, offs)
        """))
    fix = Fix("k.py", (9, 9), (9, 9), "-    tl.store(m_ptrs, offs)\\n+    tl.store(m_ptrs, offs, mask=offs < N)")
    assert only_fix_in_kernel([fix], tmp_path / "k.py", "k.py", "k", "store", {}, "M") is fix
    assert only_fix_in_kernel([fix], tmp_path / "k.py", "k.py", "k", "store", {}, "Out") is None
    assert only_fix_in_kernel([fix], tmp_path / "k.py", "k.py", "k", "store", {}, "not_a_name_here") is fix
