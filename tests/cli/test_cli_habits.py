"""The habits of the command line: broken pipes, TL001, selectors, colour, stdin, file-level noqa,
per-file-ignores and the rest of ruff's habits. In-process through `main(argv)`, or a real subprocess
where a terminal, a closed pipe or stdin is the point."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tritonlint.cli import main

ROOT = Path(__file__).resolve().parents[2]

# One TL102 at 9:5 with a safe fix (the store of a dimension whose load is masked).
SAFE = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x * 2)
"""
SAFE_FIXED = SAFE.replace("tl.store(Y + offs, x * 2)", "tl.store(Y + offs, x * 2, mask=offs < n)")

# One TL101 at 11:20 whose fix is unsafe (the mask is derived from the loop bound).
UNSAFE = """\
import triton
import triton.language as tl


@triton.jit
def total(X, Y, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if not EVEN_K:
            acc += tl.load(X + k + offs)
    tl.store(Y, tl.max(acc, axis=0))  # the fix's zeros reach a max: unsafe
"""

BROKEN = "import triton\n\n@triton.jit\ndef k(:\n    pass\n"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """`tritonlint ARGS` in-process from tmp_path: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)  # it would colour the captured output

    def invoke(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def heads(out: str) -> list[str]:
    """The `path:line:col: CODE` heads of text output."""
    return [" ".join(line.split(" ")[:2]) for line in out.splitlines()
            if line and not line.startswith(" ") and ": TL" in line]


def cli(*argv: str, cwd: Path, stdin: bytes | None = None, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tritonlint", *argv], cwd=cwd, input=stdin,
                          capture_output=True, timeout=120, check=False, env=env)


# --- bugs -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "code"), [(["rule", "TL101"], 0), (["rules"], 0),
                                            (["check", "--diff", "--no-cache", "k.py"], 1)])
def test_a_reader_that_goes_away_ends_the_output_quietly(tmp_path: Path, argv: list[str], code: int) -> None:
    # `| head -1`, made certain: the reading end is closed before tritonlint writes a byte.
    write(tmp_path / "k.py", SAFE)
    process = subprocess.Popen([sys.executable, "-m", "tritonlint", *argv], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=120) == code
    assert err == b""


@pytest.mark.parametrize("selector", ["TL999", "E", "F401", "TL2"])
@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_an_unknown_selector_on_the_command_line_exits_2(run: Run, tmp_path: Path, option: str,
                                                         selector: str) -> None:
    write(tmp_path / "k.py", SAFE)
    code, out, err = run("check", option, selector, "k.py")
    assert (code, out) == (2, "")
    assert err == (f"tritonlint: {option}: unknown rule selector {selector!r} "
                   f"(known: ALL, TL100, TL101, TL102, TL103, TL104, TL105, TL111, TL112, or a prefix of them)\n")


@pytest.mark.parametrize("key", ["select", "ignore", "extend-select"])
def test_an_unknown_selector_in_the_configuration_exits_2(run: Run, tmp_path: Path, key: str) -> None:
    write(tmp_path / "pyproject.toml", f'[tool.tritonlint]\n{key} = ["TL1", "E"]\n')
    write(tmp_path / "k.py", SAFE)
    code, out, err = run("check", "k.py")
    assert (code, out) == (2, "")
    assert "pyproject.toml: [tool.tritonlint] " + key + ": unknown rule selector 'E'" in err
    assert err.count("\n") == 1


def test_tl001_cannot_be_selected_away(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", SAFE)
    code, _out, err = run("check", "--ignore", "TL001", "k.py")
    assert code == 2 and "TL001 cannot be selected or ignored" in err


def test_select_all_runs_every_rule(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.tritonlint]\nselect = ["TL101"]\n')
    write(tmp_path / "k.py", SAFE)
    assert run("check", "--no-cache", "k.py")[:2] == (0, "All checks passed!\n")
    assert heads(run("check", "--no-cache", "--select", "ALL", "k.py")[1]) == ["k.py:9:5: TL102"]
    assert heads(run("check", "--no-cache", "--select", "all", "k.py")[1]) == ["k.py:9:5: TL102"]
    assert heads(run("check", "--no-cache", "--extend-select", "TL102", "k.py")[1]) == ["k.py:9:5: TL102"]


def _on_a_terminal(tmp_path: Path, *argv: str, no_color: str | None = None) -> bytes:
    """stdout of `tritonlint check ARGV` written to a pseudo-terminal."""
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    if no_color is not None:
        env["NO_COLOR"] = no_color
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "tritonlint", "check", "--no-cache", *argv], cwd=tmp_path,
                              stdout=follower, stderr=subprocess.PIPE, timeout=120, env=env, check=False)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    assert done.returncode == 1, done.stderr
    return b"".join(chunks)


def test_colour_on_a_terminal_unless_no_color_or_never(tmp_path: Path) -> None:
    write(tmp_path / "k.py", SAFE)
    assert b"\033[1;31mTL102\033[0m" in _on_a_terminal(tmp_path, "k.py")
    assert b"\033[" not in _on_a_terminal(tmp_path, "k.py", no_color="1")
    assert b"\033[" not in _on_a_terminal(tmp_path, "--color", "never", "k.py")
    assert b"\033[1;31mTL102" in _on_a_terminal(tmp_path, "k.py", no_color="")  # empty: not set


def test_color_always_colours_a_pipe(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", SAFE)
    assert "\033[" not in run("check", "--no-cache", "k.py")[1]
    assert "\033[1;31mTL102\033[0m" in run("check", "--no-cache", "--color", "always", "k.py")[1]


def test_a_named_symlink_loop_is_tl001_and_the_run_goes_on(run: Run, tmp_path: Path) -> None:
    (tmp_path / "loop.py").symlink_to("loop.py")
    write(tmp_path / "k.py", SAFE)
    code, out, err = run("check", "--no-cache", "loop.py", "k.py")
    assert (code, err) == (1, "")
    assert heads(out) == ["k.py:9:5: TL102", "loop.py:1:1: TL001"]
    assert "loop.py:1:1: TL001 file not checked: cannot read: Too many levels of symbolic links" in out


def test_fix_on_a_read_only_file_keeps_the_finding(run: Run, tmp_path: Path) -> None:
    locked = write(tmp_path / "k.py", SAFE)
    locked.chmod(0o444)
    code, out, err = run("check", "--fix", "k.py")
    assert code == 1
    assert heads(out) == ["k.py:9:5: TL102"] and out.endswith("Found 1 error (1 fixable with --fix).\n")
    assert err == "tritonlint: k.py: read-only file; fix not written\n"
    assert locked.read_text() == SAFE
    code, out, _err = run("check", "--fix", "--output-format", "json", "k.py")
    assert code == 1 and [d["code"] for d in json.loads(out)] == ["TL102"]


def test_verify_without_triton_or_torch_says_what_to_install(tmp_path: Path) -> None:
    fixture = ROOT / "fixtures" / "unmasked-tail-load"
    program = textwrap.dedent(f"""\
        import sys
        sys.modules["triton"] = None  # what an install without the verify extra looks like
        from tritonlint.cli import main
        sys.exit(main(["verify", {str(fixture / "gemm_even_k_twin.py")!r},
                       "--harness", {str(fixture / "gemm_even_k_twin_harness.py")!r}]))
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr == ("tritonlint verify: needs triton, which cannot be imported here; "
                           "install tritonlint[verify]\n")
    assert done.stdout == ""


def test_verify_progress_is_one_write_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from tritonlint.verify.runner import Verifier

    class Recorder:
        def __init__(self) -> None:
            self.writes: list[str] = []

        def write(self, text: str) -> int:
            self.writes.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    recorder = Recorder()
    monkeypatch.setattr(sys, "stderr", recorder)
    progress = Verifier(ROOT / "README.md", ROOT / "README.md").progress
    threads = [threading.Thread(target=lambda n=n: [progress(f"run {n}.{i}") for i in range(50)]) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(recorder.writes) == 200
    assert all(text.startswith("[verify] run ") and text.endswith("\n") and text.count("\n") == 1
               for text in recorder.writes)


# --- TL001 file-not-checked -------------------------------------------------------------------


def test_tl001_in_every_format(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", SAFE)
    write(tmp_path / "broken.py", BROKEN)
    write(tmp_path / "latin.py", b"import triton\n# caf\xe9 jit\n")
    argv = ["--no-cache", "nope.py", "."]
    code, out, err = run("check", *argv)
    assert (code, err) == (1, "")
    assert heads(out) == ["./a.py:9:5: TL102", "./broken.py:4:1: TL001", "./latin.py:1:1: TL001",
                          "nope.py:1:1: TL001"]
    assert "./broken.py:4:1: TL001 file not checked: syntax error: invalid syntax\n" in out
    assert out.endswith("Found 4 errors (1 fixable with --fix).\n")

    code, out, err = run("check", "--output-format", "json", *argv)
    found = [(d["code"], d["name"], d["path"], d["line"]) for d in json.loads(out)]
    assert (code, err) == (1, "")
    assert found == [("TL102", "unmasked-tail-store", "./a.py", 9), ("TL001", "file-not-checked", "./broken.py", 4),
                     ("TL001", "file-not-checked", "./latin.py", 1), ("TL001", "file-not-checked", "nope.py", 1)]
    assert json.loads(out)[3]["message"] == "file not checked: no such file or directory"

    code, out, err = run("check", "--output-format", "sarif", *argv)
    log = json.loads(out)["runs"][0]
    assert (code, err) == (1, "")
    assert [r["ruleId"] for r in log["results"]] == ["TL102", "TL001", "TL001", "TL001"]
    rules = log["tool"]["driver"]["rules"]
    tl001 = log["results"][1]["ruleIndex"]
    assert rules[tl001]["id"] == "TL001" and rules[tl001]["name"] == "file-not-checked"
    assert "help" in rules[tl001]  # its documentation, like every rule's

    code, out, err = run("check", "--output-format", "github", *argv)
    assert (code, err) == (1, "")
    assert ("::error file=./broken.py,line=4,col=1,endLine=4,endColumn=1,title=TL001 file-not-checked::"
            "file not checked: syntax error: invalid syntax\n") in out
    assert out.count("title=TL001") == 3


def test_tl001_alone_exits_1_and_usage_errors_stay_2(run: Run, tmp_path: Path) -> None:
    assert run("check", "--no-cache", "nope.py")[0] == 1
    assert run("check", "--no-cache", "--output-format", "xml", "nope.py")[0] == 2
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\nselect = 3\n")
    assert run("check", "--no-cache", "nope.py")[0] == 2


def test_tl001_with_diff_goes_to_stderr_and_fails(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "broken.py", BROKEN)
    code, out, err = run("check", "--diff", "broken.py")
    assert (code, out) == (1, "")
    assert err == "tritonlint: broken.py:4: file not checked: syntax error: invalid syntax\n"


def test_rule_tl001_is_documented(run: Run) -> None:
    code, out, _err = run("rule", "TL001")
    assert code == 0 and out.startswith("# TL001 file-not-checked\n")
    assert "## Why is this bad?" in out
    assert ["TL001", "file-not-checked"] in [line.split()[:2] for line in run("rules")[1].splitlines()]


# --- ruff's habits ----------------------------------------------------------------------------


def test_stdin_is_checked_under_its_filename(tmp_path: Path) -> None:
    write(tmp_path / "sub" / "pyproject.toml", '[tool.tritonlint]\nignore = ["TL102"]\n')
    done = cli("check", "--no-cache", "-", "--stdin-filename", "k.py", cwd=tmp_path, stdin=SAFE.encode())
    assert done.returncode == 1, done.stderr
    assert heads(done.stdout.decode()) == ["k.py:9:5: TL102"]
    # The configuration is the one nearest the named file.
    done = cli("check", "--no-cache", "-", "--stdin-filename", "sub/k.py", cwd=tmp_path, stdin=SAFE.encode())
    assert (done.returncode, done.stdout) == (0, b"All checks passed!\n")
    done = cli("check", "--no-cache", "-", cwd=tmp_path, stdin=BROKEN.encode())
    assert done.returncode == 1 and done.stdout.startswith(b"-:4:1: TL001 file not checked: syntax error")


def test_stdin_fix_writes_the_fixed_text_to_stdout(tmp_path: Path) -> None:
    done = cli("check", "-", "--stdin-filename", "k.py", "--fix", cwd=tmp_path, stdin=SAFE.encode())
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == SAFE_FIXED
    assert b"Found 1 error (1 fixed, 0 remaining)." in done.stderr
    assert not (tmp_path / "k.py").exists()
    # Nothing to fix: the input comes back unchanged, and what remains is reported on stderr.
    done = cli("check", "-", "--stdin-filename", "k.py", "--fix", cwd=tmp_path, stdin=UNSAFE.encode())
    assert (done.returncode, done.stdout.decode()) == (1, UNSAFE)
    assert b"k.py:11:20: TL101" in done.stderr


def test_stdin_force_exclude(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.tritonlint]\nexclude = ["gen_*.py"]\n')
    argv = ("check", "--no-cache", "-", "--stdin-filename", "gen_k.py")
    assert cli(*argv, cwd=tmp_path, stdin=SAFE.encode()).returncode == 1
    done = cli(*argv, "--force-exclude", "--fix", cwd=tmp_path, stdin=SAFE.encode())
    assert (done.returncode, done.stdout.decode()) == (0, SAFE)  # passed through, untouched


@pytest.mark.parametrize(("comment", "expected"), [
    ("# tritonlint: noqa", []),
    ("# tritonlint: noqa: TL102", ["k.py:12:20: TL101"]),
    ("#tritonlint:NOQA:TL101,TL102", []),
    ("# tritonlint: noqa: TL101", ["k.py:20:5: TL102"]),
])
def test_file_level_noqa(run: Run, tmp_path: Path, comment: str, expected: list[str]) -> None:
    both = UNSAFE.replace("import triton\n", f"import triton\n{comment}\n", 1) + \
        SAFE[SAFE.index("@triton.jit"):].replace("def scale", "\n\ndef scale")
    write(tmp_path / "k.py", both)
    code, out, _err = run("check", "--no-cache", "k.py")
    assert heads(out) == expected and code == (1 if expected else 0)


def test_file_level_noqa_only_counts_in_a_real_comment(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", SAFE.replace("import triton\n", 'import triton\nDOC = """\n# tritonlint: noqa\n"""\n', 1))
    assert heads(run("check", "--no-cache", "k.py")[1]) == ["k.py:12:5: TL102"]
    # And a line's own `# tritonlint: ignore` is no file-level suppression.
    write(tmp_path / "k.py", SAFE.replace("import triton\n", "import triton  # tritonlint: ignore\n", 1))
    assert heads(run("check", "--no-cache", "k.py")[1]) == ["k.py:9:5: TL102"]


def test_per_file_ignores_in_the_configuration_and_on_the_command_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.tritonlint.per-file-ignores]\n"vendor/*" = ["TL102"]\n')
    write(tmp_path / "vendor" / "k.py", SAFE)
    write(tmp_path / "own" / "k.py", SAFE)
    assert heads(run("check", "--no-cache", ".")[1]) == ["./own/k.py:9:5: TL102"]
    code, out, _ = run("check", "--no-cache", "--extend-per-file-ignores", "own/*:TL1", ".")
    assert (code, out) == (0, "All checks passed!\n")
    code, _, err = run("check", "--no-cache", "--extend-per-file-ignores", "own/*:E501", ".")
    assert code == 2 and "unknown rule selector 'E501'" in err
    write(tmp_path / "pyproject.toml", '[tool.tritonlint]\nper-file-ignores = ["TL102"]\n')
    code, _, err = run("check", "--no-cache", ".")
    assert code == 2 and "per-file-ignores must be a table" in err


def test_fix_summary_show_fixes_and_exit_non_zero_on_fix(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", SAFE)
    write(tmp_path / "b.py", UNSAFE)
    code, out, _err = run("check", "--fix", "--show-fixes", ".")
    assert code == 1
    assert out.endswith("Found 2 errors (1 fixed, 1 remaining).\nFixed 1 error:\n- ./a.py:\n"
                        "    1 \u00d7 TL102 (unmasked-tail-store)\n")
    assert heads(out) == ["./b.py:11:20: TL101"]
    assert (tmp_path / "a.py").read_text() == SAFE_FIXED
    write(tmp_path / "a.py", SAFE)
    (tmp_path / "b.py").unlink()
    assert run("check", "--fix", ".")[:2] == (0, "Found 1 error (1 fixed, 0 remaining).\n")
    write(tmp_path / "a.py", SAFE)
    assert run("check", "--fix", "--exit-non-zero-on-fix", ".")[0] == 1
    assert run("check", "--fix", "--exit-non-zero-on-fix", ".")[0] == 0  # nothing left to fix


def test_unsafe_fixes_from_the_configuration(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", UNSAFE)
    assert run("check", "--fix", "k.py")[0] == 1
    assert (tmp_path / "k.py").read_text() == UNSAFE
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\nunsafe-fixes = true\n")
    assert run("check", "--fix", "--no-unsafe-fixes", "k.py")[0] == 1
    assert (tmp_path / "k.py").read_text() == UNSAFE
    assert run("check", "--fix", "k.py")[0] == 0
    assert "mask=" in (tmp_path / "k.py").read_text().splitlines()[10]
    write(tmp_path / "pyproject.toml", '[tool.tritonlint]\nunsafe-fixes = "yes"\n')
    code, _, err = run("check", "k.py")
    assert code == 2 and "unsafe-fixes must be true or false" in err


def test_diff_with_only_unsafe_fixes_says_so(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", UNSAFE)
    assert run("check", "--diff", "k.py") == (
        0, "", "No errors would be fixed (1 fix available with `--unsafe-fixes`).\n")
    code, out, err = run("check", "--diff", "--unsafe-fixes", "k.py")
    assert code == 1 and out.startswith("--- a/k.py\n") and err == ""


def test_exclude_and_extend_exclude_on_the_command_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.tritonlint]\nexclude = ["gen"]\n')
    for name in ("gen", "third", "own"):
        write(tmp_path / name / "k.py", SAFE)
    assert heads(run("check", "--no-cache", ".")[1]) == ["./own/k.py:9:5: TL102", "./third/k.py:9:5: TL102"]
    assert heads(run("check", "--no-cache", "--extend-exclude", "third", ".")[1]) == ["./own/k.py:9:5: TL102"]
    # --exclude replaces the configured patterns.
    assert heads(run("check", "--no-cache", "--exclude", "third,own", ".")[1]) == ["./gen/k.py:9:5: TL102"]


def test_force_exclude_skips_named_files_in_skipped_folders(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "build" / "k.py", SAFE)
    assert heads(run("check", "--no-cache", "build/k.py")[1]) == ["build/k.py:9:5: TL102"]
    code, out, err = run("check", "--no-cache", "--force-exclude", "build/k.py")
    assert (code, out) == (0, "All checks passed!\n")
    assert err == "tritonlint: warning: no Python files found under the given path(s)\n"


def test_force_exclude_skips_named_files_in_excluded_folders(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "src" / "gen" / "k.py", SAFE)
    # Without --force-exclude a file named explicitly is checked; a pattern naming its folder skips it with it.
    assert heads(run("check", "--no-cache", "--exclude", "gen", "src/gen/k.py")[1]) == ["src/gen/k.py:9:5: TL102"]
    for pattern in ("gen", "src/gen", "src"):
        code, out, _err = run("check", "--no-cache", "--exclude", pattern, "--force-exclude", "src/gen/k.py")
        assert (code, out) == (0, "All checks passed!\n"), pattern
    code, out, _err = run("check", "--no-cache", "--exclude", "other", "--force-exclude", "src/gen/k.py")
    assert (code, heads(out)) == (1, ["src/gen/k.py:9:5: TL102"])


def test_a_warning_when_no_python_file_was_found(run: Run, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path / "notes.txt", "some notes")
    code, _out, err = run("check", "empty", "notes.txt")
    assert code == 0
    assert "warning" not in err  # notes.txt was named: it is checked (and holds no kernel)
    code, _out, err = run("check", "empty")
    assert (code, err) == (0, "tritonlint: warning: no Python files found under the given path(s)\n")


def test_concise_and_full_text(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", SAFE)
    code, out, _ = run("check", "--no-cache", "--output-format", "concise", "k.py")
    assert code == 1 and out == (
        "k.py:9:5: TL102 tl.store can write past the end of the tensor on a partial tail tile: no mask bounds "
        "`offs`\nFound 1 error (1 fixable with --fix).\n")
    code, out, _ = run("check", "--no-cache", "--output-format", "full", "k.py")
    lines = out.splitlines()
    assert lines[1:5] == ["  |", "9 |     tl.store(Y + offs, x * 2)", "  |     ^^^^^^^^^^^^^^^^^^^^^^^^^", "  |"]
    # The rest is the default text output, unchanged.
    default = run("check", "--no-cache", "k.py")[1].splitlines()
    assert lines[:1] + lines[5:] == default


def test_add_suppressions_keeps_within_the_line_length(run: Run, tmp_path: Path) -> None:
    multi = SAFE.replace("tl.store(Y + offs, x * 2)", "tl.store(\n        Y + offs,\n        x * 2,\n    )")
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path / "a.py", SAFE)
    write(tmp_path / "b.py", multi)
    code, _out, err = run("check", "--add-suppressions", ".")
    assert code == 0 and "added 2 suppression(s) to 2 file(s)" in err
    reason = "TODO: baseline; fix the access or give the reason it is safe"
    # One line: the reason shortened to TODO (the whole comment would make it 117 characters).
    assert (tmp_path / "a.py").read_text() == SAFE.replace(
        "x * 2)\n", "x * 2)  # tritonlint: ignore[TL102] TODO\n")
    # Several lines: on the last, where the whole comment fits.
    assert (tmp_path / "b.py").read_text() == multi.replace("    )\n", f"    )  # tritonlint: ignore[TL102] {reason}\n")
    assert run("check", "--no-cache", ".")[:2] == (0, "All checks passed!\n")
    # Without a configured line length the comment goes on the first line, whole, as before.
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "b.py", multi)
    assert run("check", "--add-suppressions", "b.py")[0] == 0
    assert (tmp_path / "b.py").read_text() == multi.replace(
        "tl.store(\n", f"tl.store(  # tritonlint: ignore[TL102] {reason}\n")


def test_known_codes_are_the_reported_codes() -> None:
    from tritonlint.config import KNOWN_CODES
    from tritonlint.rule import all_rules
    from tritonlint.suppressions import UNUSED_CODE

    assert sorted(KNOWN_CODES) == sorted([UNUSED_CODE, *(rule.code for rule in all_rules())])
