"""The `tritonlint check` command, in-process through `main(argv)`, plus a few end-to-end subprocess runs.

Covers exit codes, output formats, bad input, configuration, suppressions, discovery and the
promise that `check` neither imports nor writes what it checks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tritonlint.cli import main

ROOT = Path(__file__).resolve().parents[2]

# A store walks `offs` unmasked while the load of the same dimension is masked: one TL102 at 9:5.
BUGGY = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x * 2){suffix}
"""
CLEAN = BUGGY.replace("tl.store(Y + offs, x * 2){suffix}", "tl.store(Y + offs, x * 2, mask=offs < n)")

# A load (TL101 at 11:20) in a loop whose last tile can be partial, under a flag whose name is no hint.
WHOLE_FLAG = """\
import triton
import triton.language as tl


@triton.jit
def total(X, Y, K, BLOCK_K: tl.constexpr, WHOLE: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if WHOLE:
            acc += tl.load(X + k + offs)
    tl.store(Y, tl.sum(acc, axis=0))
"""

# Both rules at once: an unmasked load (TL101 at 8:9) and store (TL102 at 9:5) beside masked ones.
BOTH = """\
import triton
import triton.language as tl


@triton.jit
def copy(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x)
    tl.store(Y + n + offs, tl.load(X + n + offs, mask=offs < n), mask=offs < n)
"""

JSON_KEYS = ["code", "name", "message", "path", "line", "column", "end_line", "end_column", "notes", "fix"]


def buggy(suffix: str = "") -> str:
    return BUGGY.format(suffix=suffix)


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """`tritonlint ARGS` in-process from tmp_path: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)

    def invoke(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def findings(out: str) -> list[str]:
    """The `path:line:col: CODE` heads of text output."""
    return [line.split(" ")[0] + " " + line.split(" ")[1] for line in out.splitlines()
            if line and not line.startswith(" ") and ": TL" in line]


# --- exit codes and text output -------------------------------------------------------------


def test_clean_file_exits_0(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "ok.py", CLEAN)
    code, out, err = run("check", "ok.py")
    assert (code, out, err) == (0, "All checks passed!\n", "")


def test_finding_exits_1_with_path_line_col_code(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    code, out, err = run("check", "bad.py")
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("bad.py:9:5: TL102 tl.store can write past the end of the tensor")
    assert lines[1] == "    note: reachable on every tile, the partial last one included"
    assert lines[-1].startswith("Found 1 error")


def test_missing_path_is_tl001_and_the_run_goes_on(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    code, out, err = run("check", "nope.py", "bad.py")
    assert (code, err) == (1, "")
    assert findings(out) == ["bad.py:9:5: TL102", "nope.py:1:1: TL001"]
    assert "nope.py:1:1: TL001 file not checked: no such file or directory\n" in out


@pytest.mark.parametrize("argv", [["check", "--no-such-option"], ["check", "--output-format", "xml"], []])
def test_usage_errors_exit_2(run: Run, argv: list[str]) -> None:
    code, _out, err = run(*argv)
    assert code == 2 and "usage:" in err


def test_no_kernels_anywhere_exits_0(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "plain.py", "print('no kernels here')\n")
    write(tmp_path / "mentions.py", "# triton jit, but only in a comment\nx = 1\n")
    assert run("check", ".")[0] == 0


def test_exit_zero_and_quiet(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    code, out, _ = run("check", "--exit-zero", "-q", "bad.py")
    assert code == 0
    assert findings(out) == ["bad.py:9:5: TL102"]
    assert "Found" not in out


def test_default_path_is_the_current_folder(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "bad.py", buggy())
    code, out, _ = run("check")
    assert code == 1
    assert findings(out) == ["./pkg/bad.py:9:5: TL102"]


# --- JSON output and paths --------------------------------------------------------------------


def test_json_has_exactly_the_documented_keys(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "both.py", BOTH)
    code, out, _ = run("check", "--output-format", "json", "both.py")
    assert code == 1
    data = json.loads(out)
    assert [(d["code"], d["line"], d["column"]) for d in data] == [("TL101", 8, 9), ("TL102", 9, 5)]
    for d in data:
        assert list(d) == JSON_KEYS
        assert d["path"] == "both.py"
        assert isinstance(d["notes"], list) and all(isinstance(n, str) for n in d["notes"])
        assert d["end_line"] >= d["line"] and d["end_column"] > d["column"]
        assert d["fix"] is None or set(d["fix"]) == {"title", "applicability", "edits"}
    assert data[0]["name"] == "unmasked-tail-load" and data[1]["name"] == "unmasked-tail-store"
    assert data[0]["end_column"] == 9 + len("tl.load(X + offs)")  # just past the call


def test_json_clean_is_an_empty_array(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "ok.py", CLEAN)
    code, out, _ = run("check", "--output-format", "json", "ok.py")
    assert code == 0 and json.loads(out) == []


@pytest.mark.parametrize("given", ["src", "./src", "src/"])
def test_paths_are_the_given_path_joined_with_what_was_found(run: Run, tmp_path: Path, given: str) -> None:
    write(tmp_path / "src" / "sub" / "bad.py", buggy())
    code, out, _ = run("check", "--output-format", "json", given)
    assert code == 1
    assert [d["path"] for d in json.loads(out)] == [os.path.join(given, "sub", "bad.py")]


def test_absolute_path_stays_absolute(run: Run, tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.py", buggy())
    _code, out, _ = run("check", "--output-format", "json", str(bad))
    assert [d["path"] for d in json.loads(out)] == [str(bad)]


def test_a_file_named_twice_is_reported_once(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    _code, out, _ = run("check", "bad.py", ".", "./bad.py")
    assert findings(out) == ["bad.py:9:5: TL102"]


def test_a_folder_named_twice_through_a_symlink_is_reported_once(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "sub" / "bad.py", buggy())
    (tmp_path / "link").symlink_to(tmp_path / "pkg", target_is_directory=True)
    _code, out, _ = run("check", "pkg", "link", "link/sub")
    assert findings(out) == ["pkg/sub/bad.py:9:5: TL102"]


# --- bad input: one line naming the file, the run goes on ------------------------------------


def test_syntax_error_is_one_line_and_the_good_files_are_still_checked(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a_bad.py", buggy())
    write(tmp_path / "b_broken.py", "import triton\n\n@triton.jit\ndef k(:\n    pass\n")
    write(tmp_path / "c_bad.py", buggy())
    code, out, err = run("check", ".")
    assert code == 1
    assert findings(out) == ["./a_bad.py:9:5: TL102", "./b_broken.py:4:1: TL001", "./c_bad.py:9:5: TL102"]
    assert "./b_broken.py:4:1: TL001 file not checked: syntax error" in out and err == ""


def test_only_a_syntax_error_exits_1_naming_the_file(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "broken.py", "import triton\ndef k(:\n  jit\n")
    code, out, err = run("check", "broken.py")
    assert (code, err) == (1, "")
    assert out == "broken.py:2:1: TL001 file not checked: syntax error: invalid syntax\nFound 1 error.\n"


def test_summary_does_not_say_all_passed_when_a_file_could_not_be_checked(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "broken.py", "import triton\ndef k(:\n  jit\n")
    _code, out, _err = run("check", "broken.py")
    assert "All checks passed" not in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"import triton\n# caf\xe9 jit\n", "not UTF-8 (byte 0xe9 at offset 19)"),
        (b"import triton\x00\njit\n", "binary file (contains NUL bytes), not Python source"),
    ],
    ids=["latin-1", "nul-bytes"],
)
def test_undecodable_files_are_one_line_errors(run: Run, tmp_path: Path, content: bytes, message: str) -> None:
    write(tmp_path / "weird.py", content)
    write(tmp_path / "z_bad.py", buggy())
    code, out, err = run("check", ".")
    assert (code, err) == (1, "")
    assert f"./weird.py:1:1: TL001 file not checked: {message}\n" in out
    assert findings(out) == ["./weird.py:1:1: TL001", "./z_bad.py:9:5: TL102"]


def test_utf8_bom_is_fine(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bom.py", b"\xef\xbb\xbf" + buggy().encode())
    code, out, err = run("check", "bom.py")
    assert code == 1 and err == ""
    assert findings(out) == ["bom.py:9:5: TL102"]


def test_empty_file_named_explicitly_is_a_notice_not_a_failure(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "empty.py", "")
    write(tmp_path / "blank.py", "\n\n   \n")
    code, out, err = run("check", "empty.py", "blank.py")
    assert code == 0
    assert err == ("tritonlint: empty.py: empty file, nothing to check\n"
                   "tritonlint: blank.py: empty file, nothing to check\n")
    assert out == "All checks passed!\n"


def test_empty_files_found_in_a_folder_are_silent(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    code, _out, err = run("check", "pkg")
    assert (code, err) == (0, "")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file_is_a_one_line_error(run: Run, tmp_path: Path) -> None:
    locked = write(tmp_path / "locked.py", buggy())
    write(tmp_path / "z_bad.py", buggy())
    locked.chmod(0)
    try:
        code, out, err = run("check", ".")
    finally:
        locked.chmod(0o644)
    assert (code, err) == (1, "")
    assert out.startswith("./locked.py:1:1: TL001 file not checked: cannot read:")
    assert findings(out) == ["./locked.py:1:1: TL001", "./z_bad.py:9:5: TL102"]


@pytest.mark.parametrize(
    ("error", "message"),
    [(PermissionError(13, "Permission denied"), "cannot read: Permission denied"),
     (FileNotFoundError(2, "No such file or directory"), "vanished before it could be read")],
    ids=["unreadable", "vanished"],
)
def test_read_failures_are_one_line_errors(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           error: OSError, message: str) -> None:
    # Works as root too: the read itself fails, as it would for chmod 000 or a file deleted mid-run.
    write(tmp_path / "locked.py", buggy())
    write(tmp_path / "z_bad.py", buggy())
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "locked.py":
            raise error
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    code, out, err = run("check", ".")
    assert (code, err) == (1, "")
    assert out.startswith(f"./locked.py:1:1: TL001 file not checked: {message}\n")
    assert findings(out) == ["./locked.py:1:1: TL001", "./z_bad.py:9:5: TL102"]


# --- configuration ---------------------------------------------------------------------------


def pyproject(tmp_path: Path, table: str) -> None:
    write(tmp_path / "pyproject.toml", f"[project]\nname = 'x'\n\n[tool.tritonlint]\n{table}\n")


def test_config_select(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "both.py", BOTH)
    pyproject(tmp_path, 'select = ["TL102"]')
    assert findings(run("check", "both.py")[1]) == ["both.py:9:5: TL102"]


def test_config_ignore_and_prefixes(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "both.py", BOTH)
    pyproject(tmp_path, 'ignore = ["TL102"]')
    assert findings(run("check", "both.py")[1]) == ["both.py:8:9: TL101"]
    pyproject(tmp_path, 'ignore = ["TL1"]')
    assert run("check", "both.py")[:2] == (0, "All checks passed!\n")


def test_cli_select_and_ignore_override_config(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "both.py", BOTH)
    pyproject(tmp_path, 'select = ["TL102"]')
    assert findings(run("check", "--select", "TL101", "both.py")[1]) == ["both.py:8:9: TL101"]
    assert run("check", "--ignore", "tl102", "both.py")[0] == 0


def test_config_exclude(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "kernels" / "bad.py", buggy())
    write(tmp_path / "generated" / "bad.py", buggy())
    write(tmp_path / "kernels" / "vendored_bad.py", buggy())
    pyproject(tmp_path, 'exclude = ["generated", "kernels/vendored_*.py"]')
    code, out, _ = run("check", ".")
    assert code == 1
    assert findings(out) == ["./kernels/bad.py:9:5: TL102"]
    # Excludes hold for files named one by one too (pre-commit passes them that way).
    assert run("check", "generated/bad.py")[:2] == (0, "All checks passed!\n")


def test_config_even_flags(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", WHOLE_FLAG)
    code, out, _ = run("check", "k.py")
    assert code == 1 and findings(out) == ["k.py:11:20: TL101"]
    pyproject(tmp_path, 'even-flags = ["WHOLE"]')
    assert run("check", "k.py")[:2] == (0, "All checks passed!\n")


def test_unknown_config_key_exits_2_naming_it(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    pyproject(tmp_path, 'select = ["TL101"]\nslect = ["TL102"]')
    code, out, err = run("check", "bad.py")
    assert code == 2 and out == ""
    assert "slect" in err and "pyproject.toml" in err and err.count("\n") == 1


@pytest.mark.parametrize("table", ['select = "TL101"', "ignore = [101]"])
def test_config_wrong_type_exits_2(run: Run, tmp_path: Path, table: str) -> None:
    write(tmp_path / "bad.py", buggy())
    pyproject(tmp_path, table)
    code, _out, err = run("check", "bad.py")
    assert code == 2 and "must be a list of strings" in err


def test_broken_toml_exits_2(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    write(tmp_path / "pyproject.toml", "[tool.tritonlint\n")
    code, _out, err = run("check", "bad.py")
    assert code == 2 and "pyproject.toml" in err


def test_nearest_pyproject_wins(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'ignore = ["TL102"]')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'sub'\n")
    write(tmp_path / "sub" / "bad.py", buggy())
    assert findings(run("check", "sub/bad.py")[1]) == ["sub/bad.py:9:5: TL102"]


def test_explicit_config_file(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    write(tmp_path / "other.toml", '[tool.tritonlint]\nignore = ["TL102"]\n')
    assert run("check", "--config", "other.toml", "bad.py")[0] == 0
    code, _out, err = run("check", "--config", "missing.toml", "bad.py")
    assert code == 2 and "missing.toml" in err


# --- suppressions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "suffix",
    ["  # tritonlint: ignore[TL102] Y is padded to a multiple of BLOCK by the caller",
     "  # tritonlint: ignore[TL102]",
     "  # tritonlint: ignore",
     "  # noqa: TL102",
     "  # NOQA:TL102",
     "  # noqa",
     "  # tritonlint: ignore[TL101, TL102]"],
)
def test_suppression_on_the_line(run: Run, tmp_path: Path, suffix: str) -> None:
    write(tmp_path / "bad.py", buggy(suffix))
    assert run("check", "bad.py")[:2] == (0, "All checks passed!\n")


@pytest.mark.parametrize("suffix", ["  # tritonlint: ignore[TL101] wrong code", "  # noqa: TL101",
                                    "  # noqa: E501", "  # a comment that says TL102"])
def test_suppression_for_another_code_does_not_suppress(run: Run, tmp_path: Path, suffix: str) -> None:
    write(tmp_path / "bad.py", buggy(suffix))
    code, out, _ = run("check", "bad.py")
    assert code == 1 and findings(out) == ["bad.py:9:5: TL102"]


def test_suppression_on_another_line_does_not_suppress(run: Run, tmp_path: Path) -> None:
    text = buggy().replace("    tl.store(", "    # tritonlint: ignore[TL102]\n    tl.store(")
    write(tmp_path / "bad.py", text)
    assert findings(run("check", "bad.py")[1]) == ["bad.py:10:5: TL102"]


def test_suppression_on_the_last_line_of_a_multiline_call(run: Run, tmp_path: Path) -> None:
    text = buggy().replace("tl.store(Y + offs, x * 2)", "tl.store(\n        Y + offs,\n        x * 2,\n    )  # noqa: TL102")
    write(tmp_path / "bad.py", text)
    assert run("check", "bad.py")[0] == 0


# --- discovery -------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", [".venv", "venv", "build", "dist", ".hidden", "__pycache__", "node_modules",
                                    ".git", "pkg.egg-info", ".tox", "site-packages"])
def test_discovery_skips_tooling_folders(run: Run, tmp_path: Path, folder: str) -> None:
    write(tmp_path / folder / "lib" / "bad.py", buggy())
    write(tmp_path / "src" / "bad.py", buggy())
    assert findings(run("check", ".")[1]) == ["./src/bad.py:9:5: TL102"]


def test_discovery_only_reads_py_files(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "kernel.pyi", buggy())
    write(tmp_path / "kernel.txt", buggy())
    write(tmp_path / "kernel.py", buggy())
    assert findings(run("check", ".")[1]) == ["./kernel.py:9:5: TL102"]


def test_a_file_named_explicitly_in_a_skipped_folder_is_checked(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "build" / "bad.py", buggy())
    assert findings(run("check", "build/bad.py")[1]) == ["build/bad.py:9:5: TL102"]


def test_a_skipped_folder_named_explicitly_is_walked(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "build" / "bad.py", buggy())
    assert findings(run("check", "build")[1]) == ["build/bad.py:9:5: TL102"]


def test_discovery_order_is_sorted(run: Run, tmp_path: Path) -> None:
    for name in ["b/z.py", "a.py", "b/a.py", "c.py"]:
        write(tmp_path / name, buggy())
    assert [f.split(":")[0] for f in findings(run("check", ".")[1])] == ["./a.py", "./b/a.py", "./b/z.py", "./c.py"]


def test_symlink_loops_are_not_followed(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "bad.py", buggy())
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    assert findings(run("check", "pkg")[1]) == ["pkg/bad.py:9:5: TL102"]


# --- check neither imports nor writes --------------------------------------------------------


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    # The results cache is tritonlint's own folder (tests/cli/test_cache.py covers it), not checked code.
    return {p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file() and ".tritonlint_cache" not in p.relative_to(root).parts}


def test_check_never_imports_the_checked_code(run: Run, tmp_path: Path) -> None:
    marker = tmp_path / "IMPORTED"
    header = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n"
    write(tmp_path / "sneaky.py", header + buggy())
    write(tmp_path / "conftest.py", header)
    write(tmp_path / "__init__.py", header)
    write(tmp_path / "__main__.py", header)
    code, out, _ = run("check", ".")
    assert code == 1 and findings(out) == ["./sneaky.py:11:5: TL102"]
    assert not marker.exists()
    assert "sneaky" not in sys.modules


def test_check_writes_nothing(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    write(tmp_path / "broken.py", "import triton\ndef k(:\n  jit\n")
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\n")
    before = _tree(tmp_path)
    for fmt in ("text", "json"):
        run("check", "--output-format", fmt, ".")
    assert _tree(tmp_path) == before


def test_diff_writes_nothing_and_exits_1(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    before = _tree(tmp_path)
    code, out, _ = run("check", "--diff", "bad.py")
    assert code == 1
    assert out.startswith("--- a/bad.py\n+++ b/bad.py\n")
    assert "+    tl.store(Y + offs, x * 2, mask=offs < n)\n" in out
    assert _tree(tmp_path) == before


# --- other commands --------------------------------------------------------------------------


def test_rules_lists_every_rule(run: Run) -> None:
    code, out, _ = run("rules")
    assert code == 0
    assert [line.split()[:2] for line in out.splitlines()] == [["TL101", "unmasked-tail-load"],
                                                               ["TL102", "unmasked-tail-store"],
                                                               ["TL103", "weak-evenness-predicate"],
                                                               ["TL104", "insufficient-mask"],
                                                               ["TL105", "unsafe-masked-lanes"],
                                                               ["TL111", "guarded-tail-load"],
                                                               ["TL112", "guarded-tail-store"],
                                                               ["TL100", "unused-suppression"],
                                                               ["TL001", "file-not-checked"]]


def test_statistics_print_only_the_counts(run: Run, tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def k(X, Y, n, B: tl.constexpr):\n    offs = tl.program_id(0) * B + tl.arange(0, B)\n"
        "    x = tl.load(X + offs, mask=offs < n)\n    tl.store(Y + offs, x)\n")
    code, out, _ = run("check", "--no-cache", "--statistics", "-q", str(tmp_path / "k.py"))
    assert code == 1 and out == "1\tTL102\t[*] unmasked-tail-store\n", out


def test_unknown_rule_exits_2(run: Run) -> None:
    code, _out, err = run("rule", "TL999")
    assert code == 2 and "TL999" in err


def test_version(run: Run) -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("tritonlint ")


# --- end to end ------------------------------------------------------------------------------


def _subprocess(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def test_python_dash_m_end_to_end(tmp_path: Path) -> None:
    write(tmp_path / "bad.py", buggy())
    write(tmp_path / "ok.py", CLEAN)
    done = _subprocess(sys.executable, "-m", "tritonlint", "check", "bad.py", "ok.py", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert findings(done.stdout) == ["bad.py:9:5: TL102"]
    assert done.stdout.endswith("Found 1 error (1 fixable with --fix).\n")
    assert _subprocess(sys.executable, "-m", "tritonlint", "check", "ok.py", cwd=tmp_path).returncode == 0
    missing = _subprocess(sys.executable, "-m", "tritonlint", "check", "nope", cwd=tmp_path)
    assert missing.returncode == 1 and "nope:1:1: TL001 file not checked: no such file" in missing.stdout


def test_console_script_on_the_fixtures(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("tritonlint")
    if not script.exists():
        pytest.skip("the tritonlint console script is not installed beside this interpreter")
    done = _subprocess(str(script), "check", "--output-format", "json", "fixtures", cwd=ROOT)
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert {d["code"] for d in data} == {"TL101", "TL102", "TL103", "TL104", "TL105"}
    assert all(d["path"].startswith("fixtures/") for d in data)


# --- the README's first example stays true ---------------------------------------------------


def test_readme_first_example(run: Run, tmp_path: Path) -> None:
    """The heredoc kernel in README.md, checked as shown, prints exactly the README's output block."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## A first example"):]
    script = section[section.index("```sh\n") + 6:section.index("\n```\n")]
    command = script.splitlines()[-1]
    source = script[script.index("<<'EOF'\n") + 8:script.index("\nEOF\n") + 1]
    name = script.split()[2]
    rest = section[section.index("\n```\n") + 5:]
    shown = rest[rest.index("```text\n") + 8:rest.index("\n```", rest.index("```text\n")) + 1]
    write(tmp_path / name, source)
    assert command.split()[:2] == ["tritonlint", "check"]
    code, out, err = run(*command.split()[1:])
    assert (out, err) == (shown, "")
    assert code == 1


def test_an_unexpected_exception_is_exit_2_not_findings(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash must never read as exit 1 ("findings remain") to CI scripts or to verify's fixer."""
    from tritonlint import cli

    def boom(*args: object, **kwargs: object) -> int:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(cli, "_check", boom)
    code, _, err = run("check", ".")
    assert code == 2
    assert err.startswith("tritonlint: internal error: RuntimeError: disk on fire [") and err.count("\n") == 1


def test_runs_from_a_source_checkout_without_install() -> None:
    """`PYTHONPATH=checkout python -m tritonlint` (a device with no install): rules/ is found beside
    the package when no installed `tritonlint.rules` exists."""
    script = (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "for name in [m for m in sys.modules if m.startswith('tritonlint')]: del sys.modules[name]\n"
        "import tritonlint.rule\n"
        "assert tritonlint.rule.__file__.startswith(sys.path[0]), tritonlint.rule.__file__\n"
        "print(' '.join(r.code for r in tritonlint.rule.all_rules()))\n"
        "import tritonlint.rules\n"
        "print(tritonlint.rules.__path__[0])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stderr
    codes, folder = result.stdout.splitlines()
    assert codes == "TL101 TL102 TL103 TL104 TL105 TL111 TL112"
    assert Path(folder).resolve() == ROOT / "rules"
