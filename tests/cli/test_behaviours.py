"""Behaviours a user sees, each driven through `tritonlint.cli.main` on a kernel of tests/data/behaviours."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tritonlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "behaviours"


def findings(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    main(["check", "--no-cache", "--output-format", "json", *argv])
    return list(json.loads(capsys.readouterr().out))


def where(found: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(f["line"], f["code"]) for f in found]


def copied(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(DATA / name, target)
    return target


# -- launches -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["launch_padded_blocks_first.py", "launch_padded_block_first.py"])
def test_an_output_allocated_in_whole_tiles_keeps_the_store_quiet(name: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # `torch.empty(blocks * BLOCK)` and `torch.empty(BLOCK * blocks)` alike: the store's tail lands
    # in the padding, so only the loads of the rounded-up grid are reported.
    assert where(findings(capsys, str(DATA / name))) == [(12, "TL101"), (13, "TL101")]
    notes = findings(capsys, "--select", "ALL", str(DATA / name))
    assert where(notes) == [(12, "TL101"), (13, "TL101"), (14, "TL112")]
    assert any("is allocated in whole tiles at" in note for note in notes[2]["notes"])  # type: ignore[union-attr]


def test_a_math_ceil_grid_is_read_as_rounded_up(capsys: pytest.CaptureFixture[str]) -> None:
    found = findings(capsys, str(DATA / "launch_math_ceil.py"))
    assert where(found) == [(12, "TL101"), (13, "TL101"), (14, "TL102")]
    assert all("math.ceil(n / BLOCK)" in " ".join(f["notes"]) for f in found)  # type: ignore[arg-type]


# -- predicates and flags -------------------------------------------------------------------------


def test_an_autotuned_kernel_literal_default_is_not_its_tile(capsys: pytest.CaptureFixture[str]) -> None:
    # `BLOCK_K: tl.constexpr = 2` would make `K % 2 == 0` a full-tile promise; autotune picks 32 or 64.
    found = findings(capsys, str(DATA / "autotune_default.py"))
    assert where(found) == [(11, "TL101"), (16, "TL103")]
    assert found[1]["message"] == "`K % 2 == 0` sets EVEN_K without implying full tiles of BLOCK_K"


@pytest.mark.parametrize(("name", "line"), [("heuristics_not_equal.py", 12), ("heuristics_not_equal_mask.py", 11)])
def test_a_heuristics_lambda_testing_not_equal_is_no_evenness_promise(name: str, line: int,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # `K % BLOCK_K != 0` is true exactly when the last tile is partial: the unmasked side is the tail.
    assert where(findings(capsys, str(DATA / name))) == [(line, "TL101")]


# -- TL105 ----------------------------------------------------------------------------------------


def test_lanes_are_followed_through_exp2(capsys: pytest.CaptureFixture[str]) -> None:
    (found,) = findings(capsys, str(DATA / "log2_softmax.py"))
    assert (found["line"], found["code"]) == (9, "TL105")
    assert found["message"] == "the lanes the mask of tl.load switches off reach `tl.sum` at line 11 as 1, not its identity 0"
    assert any("after `tl.exp2` (line 10)" in note for note in found["notes"])  # type: ignore[union-attr]
    # The fix puts the sum's identity after exp2 in the lanes: exp2(-inf) == 0.
    assert found["fix"]["title"] == ('Set `other=float("-inf")`: the lanes then reach `tl.sum` at line 11 '  # type: ignore[index]
                                     "as its identity")
    assert found["fix"]["edits"][0]["content"] == 'float("-inf")'  # type: ignore[index]


# -- TL104 beside TL101 ---------------------------------------------------------------------------


def wide(folder: Path) -> None:
    """Room for a whole fixed call on one line: these tests are about what a mask says, and the
    layout at a narrower length (tests/fixing/test_fix_format.py) would hide it."""
    (folder / "pyproject.toml").write_text("[tool.tritonlint]\nline-length = 120\n")


def test_tl104_is_held_back_where_the_call_has_a_tl101_and_the_fix_is_one_mask(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = copied(tmp_path, "tl104_with_tl101.py")
    wide(tmp_path)
    assert where(findings(capsys, str(kernel))) == [(12, "TL101")]
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(kernel)]) == 0
    capsys.readouterr()
    # The rows bound first; then the cols bound moves with the loop, over the rows mask as it is.
    assert kernel.read_text().splitlines()[11:14] == [
        "        rows_mask = (cols[None, :] < N) & (rows[:, None] < M)",
        "        cols_mask = rows_mask & (cols[None, :] < N - start)",
        "        x = tl.load(X + rows[:, None] * stride + start + cols[None, :], mask=cols_mask, other=0.0)"]
    assert main(["check", "--no-cache", str(kernel)]) == 0


# -- fixes ----------------------------------------------------------------------------------------


def test_a_fix_taken_from_a_less_or_equal_mask_keeps_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel = copied(tmp_path, "fix_less_equal.py")
    (found,) = findings(capsys, str(kernel))
    assert str(found["fix"]["title"]).split("; the lanes")[0] == "Mask the store with `offs <= last` (the mask of the tl.load at line 10)"  # type: ignore[index]
    assert main(["check", "--no-cache", "--fix", str(kernel)]) == 0
    capsys.readouterr()
    assert kernel.read_text().splitlines()[10] == "    tl.store(Y + offs, x, mask=offs <= last)"


def test_a_fix_derived_from_a_less_or_equal_comparison_keeps_it(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # The store's `rows <= last` restated on the load's axis: written with `<` it would drop the last row.
    kernel = copied(tmp_path, "fix_less_equal_comparison.py")
    wide(tmp_path)
    (found,) = findings(capsys, str(kernel))
    assert str(found["fix"]["title"]).split("; the lanes")[0] == "Mask the load with `rows[:, None] <= last` (the comparison at line 11)"  # type: ignore[index]
    assert main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(kernel)]) == 0
    capsys.readouterr()
    assert kernel.read_text().splitlines()[9] == (
        "    x = tl.load(X + rows[:, None] * BLOCK_N + cols[None, :], mask=rows[:, None] <= last, other=0)")


# -- suppressions ---------------------------------------------------------------------------------


def test_a_trailing_file_noqa_after_code_does_not_silence_the_file(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    kernel = copied(tmp_path, "trailing_noqa.py")
    assert where(findings(capsys, str(kernel))) == [(10, "TL101")]
    # On a line of its own it is the file-level form, as ruff's `# ruff: noqa`.
    kernel.write_text(kernel.read_text().replace("SCALE = 2  # tritonlint: noqa", "# tritonlint: noqa\nSCALE = 2"))
    assert findings(capsys, str(kernel)) == []


def test_line_suppressions_in_both_spellings_hide_their_findings(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    kernel = copied(tmp_path, "suppressed.py")
    assert findings(capsys, str(kernel)) == []
    text = kernel.read_text()
    kernel.write_text(text.replace("  # noqa: TL101", ""))
    assert where(findings(capsys, str(kernel))) == [(8, "TL101")]
    kernel.write_text(text.replace("  # tritonlint: ignore[TL101] Z is padded to BLOCK on the host", ""))
    assert where(findings(capsys, str(kernel))) == [(9, "TL101")]


# -- notebooks ------------------------------------------------------------------------------------


def test_ipython_help_lines_are_masked_in_notebooks(capsys: pytest.CaptureFixture[str]) -> None:
    (found,) = findings(capsys, str(DATA / "help_line.ipynb"))
    assert (found["code"], found["cell"], found["line"], found["column"]) == ("TL101", 4, 4, 9)


def test_magic_and_shell_lines_are_masked_in_notebooks(capsys: pytest.CaptureFixture[str]) -> None:
    (found,) = findings(capsys, str(DATA / "magics.ipynb"))
    assert (found["code"], found["cell"], found["line"]) == ("TL101", 4, 4)


@pytest.mark.parametrize("line", ["tl.load??\n", "?tl.load\n", "tl.*load*?\n"])
def test_every_help_spelling_is_masked(tmp_path: Path, line: str, capsys: pytest.CaptureFixture[str]) -> None:
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text((DATA / "help_line.ipynb").read_text().replace('"tl.load?\\n"', json.dumps(line)))
    assert [f["code"] for f in findings(capsys, str(notebook))] == ["TL101"]


def test_a_notebook_that_does_not_parse_is_reported_in_its_cell(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    notebook = copied(tmp_path, "syntax_error.ipynb")
    (found,) = findings(capsys, str(notebook))
    assert (found["code"], found["cell"], found["line"]) == ("TL001", 4, 2)
    assert main(["check", "--no-cache", str(notebook)]) == 1
    assert capsys.readouterr().out.startswith(f"{notebook}:cell 4:2:1: TL001 file not checked: syntax error")
    # Warm (from the cache) it is placed the same.
    for _ in range(2):
        main(["check", "--output-format", "json", str(notebook)])
        (warm,) = json.loads(capsys.readouterr().out)
        assert (warm["cell"], warm["line"]) == (4, 2)


# -- output and exit codes -----------------------------------------------------------------------


def apply_json_edits(text: str, edits: list[dict[str, object]]) -> str:
    """Apply JSON fix edits (1-based rows and columns, ruff's spelling) to `text`."""
    lines = text.splitlines(keepends=True)

    def offset(where: object) -> int:
        assert isinstance(where, dict)
        return sum(len(line) for line in lines[:where["row"] - 1]) + where["column"] - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[:offset(edit["location"])] + str(edit["content"]) + text[offset(edit["end_location"]):]
    return text


def test_json_fix_edits_spell_the_fix_that_check_fix_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A TL103 fix replaces the predicate (`K % 2 == 0` -> `K % 32 == 0`): its end is not its start.
    kernel = tmp_path / "case.py"
    shutil.copy(ROOT / "fixtures" / "weak-evenness-predicate" / "launch_literal_predicate.py", kernel)
    before = kernel.read_text()
    found = findings(capsys, "--unsafe-fixes", str(kernel))
    edits = [edit for f in found if f["fix"] for edit in f["fix"]["edits"]]  # type: ignore[index, union-attr]
    assert any(edit["location"] != edit["end_location"] for edit in edits)
    main(["check", "--no-cache", "--fix", "--unsafe-fixes", str(kernel)])
    capsys.readouterr()
    assert apply_json_edits(before, edits) == kernel.read_text() != before


def test_an_unknown_rule_code_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--no-cache", "--select", "TL999", str(DATA / "readme_dot.py")]) == 2
    assert "unknown rule selector 'TL999'" in capsys.readouterr().err


# -- the cache ------------------------------------------------------------------------------------


def test_the_cache_folder_can_be_set_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    kernel = copied(tmp_path, "fix_less_equal.py")
    monkeypatch.setenv("TRITONLINT_CACHE_DIR", str(tmp_path / "from-env"))
    monkeypatch.chdir(tmp_path)
    assert main(["check", kernel.name]) == 1
    assert list((tmp_path / "from-env").rglob("*.json"))
    assert not (tmp_path / ".tritonlint_cache").exists()
    assert main(["check", "--cache-dir", "explicit", kernel.name]) == 1  # the option wins
    assert list((tmp_path / "explicit").rglob("*.json"))
    capsys.readouterr()


# -- verify ---------------------------------------------------------------------------------------


def verify(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    for name in ("verify_two_fixes.py", "verify_two_fixes_harness.py"):
        if not (tmp_path / name).exists():
            copied(tmp_path, name)
    return subprocess.run([sys.executable, "-m", "tritonlint", "verify", "verify_two_fixes.py",
                           "--harness", "verify_two_fixes_harness.py", *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, check=False)


def test_verify_one_verified_and_one_failed_fix_is_failed(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    done = verify(tmp_path, "--output-format", "json", "--no-compile")
    report = json.loads(done.stdout)
    # The shifted load's fix (`offs < N`) leaves its `+ SHIFT` past the end: that fix fails.
    assert {fix["orig_lines"][0]: fix["verdict"] for fix in report["fixes"]} == {10: "verified", 19: "failed"}
    assert report["verdict"] == "failed" and report["exit_code"] == 1
    assert done.returncode == 1, done.stderr


def test_verify_one_verified_and_one_unreached_fix_is_verified_unless_strict(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    harness = tmp_path / "verify_two_fixes_harness.py"
    done = verify(tmp_path, "--no-compile")
    assert done.returncode == 1
    # The same harness without its shifted launch never reaches the second fix's tail: the run proves
    # the first fix and lists the second as not reached; --strict fails it for that.
    harness.write_text(harness.read_text().replace("    shifted_sum[(1,)](y, shifted, N, 4, BLOCK=32)\n", ""))
    done = verify(tmp_path, "--no-compile")
    assert done.stdout.startswith("tritonlint verify: VERIFIED"), done.stdout
    assert "1 verified, 0 failed, 1 not reached" in done.stdout
    assert done.returncode == 0
    done = verify(tmp_path, "--no-compile", "--strict")
    assert done.stdout.startswith("tritonlint verify: NOT-EXERCISED"), done.stdout
    assert done.returncode == 1
