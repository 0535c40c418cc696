"""ruff's habits on the command line: --statistics alone, TL100 by selection, FORCE_COLOR, --output-file,
--stdin-filename without `-`, and folders that cannot be read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tritonlint.cli import main

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
# The same with a suppression that hides nothing (line 8): TL100 when it is enabled.
UNUSED = SAFE.replace("other=0.0)\n", "other=0.0)  # tritonlint: ignore[TL101]\n")
HEAD = "k.py:9:5: TL102"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """`tritonlint ARGS` in-process from tmp_path: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)

    def invoke(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def write(path: Path, text: str = SAFE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cli(*argv: str, cwd: Path, stdin: bytes | None = None, user: list[str] | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*(user or []), sys.executable, "-m", "tritonlint", *argv], cwd=cwd, input=stdin,
                          capture_output=True, timeout=120, check=False)


# --- --statistics ---------------------------------------------------------------------------------


def test_statistics_print_the_counts_and_the_summary_only(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py")
    write(tmp_path / "j.py")
    code, out, _ = run("check", "--no-cache", "--statistics", ".")
    assert code == 1
    assert out == "2\tTL102\t[*] unmasked-tail-store\nFound 2 errors (2 fixable with --fix).\n"
    code, out, _ = run("check", "--no-cache", "--statistics", "--quiet", ".")
    assert out == "2\tTL102\t[*] unmasked-tail-store\n"


def test_statistics_in_json_are_rulfs_records(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", UNUSED)
    code, out, err = run("check", "--no-cache", "--statistics", "--output-format", "json",
                         "--select", "TL100,TL102", "k.py")
    assert code == 1 and err == ""
    assert json.loads(out) == [
        {"code": "TL100", "name": "unused-suppression", "count": 1, "fixable": True, "fixable_count": 1},
        {"code": "TL102", "name": "unmasked-tail-store", "count": 1, "fixable": True, "fixable_count": 1},
    ]
    write(tmp_path / "k.py", "x = 1\n")
    code, out, _ = run("check", "--no-cache", "--statistics", "--output-format", "json", "k.py")
    assert (code, json.loads(out)) == (0, [])


def test_json_statistics_count_unsafe_fixes_only_with_unsafe_fixes(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", SAFE.replace("x = tl.load(X + offs, mask=offs < n, other=0.0)",
                                          "x = tl.load(X + offs)\n    for k in range(0, n, BLOCK):\n"
                                          "        x += tl.load(X + k + tl.arange(0, BLOCK))"))
    _, out, _ = run("check", "--no-cache", "--statistics", "--output-format", "json", "k.py")
    rows = {row["code"]: row for row in json.loads(out)}
    _, out, _ = run("check", "--no-cache", "--statistics", "--output-format", "json", "--unsafe-fixes", "k.py")
    unsafe_rows = {row["code"]: row for row in json.loads(out)}
    assert rows.keys() == unsafe_rows.keys() and rows
    assert any(rows[code]["fixable_count"] < unsafe_rows[code]["fixable_count"] for code in rows)


# --- TL100 by selection -----------------------------------------------------------------------------


def test_tl100_is_off_by_default(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py", UNUSED)
    _, out, _ = run("check", "--no-cache", "--output-format", "concise", "k.py")
    assert "TL100" not in out and HEAD in out


@pytest.mark.parametrize("argv", [["--select", "TL100"], ["--extend-select", "TL100"], ["--select", "ALL"],
                                  ["--select", "TL10"]])
def test_selecting_tl100_on_the_command_line_reports_it(run: Run, tmp_path: Path, argv: list[str]) -> None:
    write(tmp_path / "k.py", UNUSED)
    code, out, _ = run("check", "--no-cache", "--output-format", "concise", *argv, "k.py")
    assert code == 1 and "k.py:8:54: TL100" in out, out


@pytest.mark.parametrize("table", ['extend-select = ["TL100"]', 'select = ["TL100", "TL101"]'])
def test_selecting_tl100_in_the_configuration_reports_it(run: Run, tmp_path: Path, table: str) -> None:
    write(tmp_path / "k.py", UNUSED)
    write(tmp_path / "pyproject.toml", f"[tool.tritonlint]\n{table}\n")
    code, out, _ = run("check", "--no-cache", "--output-format", "concise", "k.py")
    assert code == 1 and "k.py:8:54: TL100" in out, out
    # ...and `check --fix` removes the directive, as with --report-unused-suppressions.
    run("check", "--no-cache", "--fix", "k.py")
    assert "tritonlint: ignore" not in (tmp_path / "k.py").read_text()


def test_selecting_the_family_keeps_tl100_off(run: Run, tmp_path: Path) -> None:
    # `TL1` means the default rules of the family, as `select = ["RUF"]`... is not how RUF100 works in
    # ruff, but TL100 stays opt-in like the guarded rules: a longer prefix or the code selects it.
    write(tmp_path / "k.py", UNUSED)
    _, out, _ = run("check", "--no-cache", "--output-format", "concise", "--select", "TL1", "k.py")
    assert "TL100" not in out


# --- colour -----------------------------------------------------------------------------------------

COLOURED = "\x1b["


@pytest.mark.parametrize(("env", "coloured"), [
    ({"FORCE_COLOR": "1"}, True),
    ({"FORCE_COLOR": "0"}, True),  # ruff: any non-empty value
    ({"FORCE_COLOR": ""}, False),
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),  # ruff 0.17.6: NO_COLOR wins
    ({}, False),
])
def test_force_color_colours_a_pipe(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    env: dict[str, str], coloured: bool) -> None:
    write(tmp_path / "k.py")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    _, out, _ = run("check", "--no-cache", "k.py")
    assert (COLOURED in out) is coloured


def test_color_never_beats_force_color(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "k.py")
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = run("check", "--no-cache", "--color", "never", "k.py")
    assert COLOURED not in out and HEAD in out


# --- --output-file ------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--output-file", "-o"])
def test_output_file_gets_what_stdout_would(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            flag: str) -> None:
    write(tmp_path / "k.py")
    _, expected, _ = run("check", "--no-cache", "--output-format", "json", "k.py")
    monkeypatch.setenv("FORCE_COLOR", "1")  # a file is never coloured
    code, out, err = run("check", "--no-cache", "--output-format", "json", flag, "reports/out.json", "k.py")
    assert (code, out, err) == (1, "", "")
    assert (tmp_path / "reports" / "out.json").read_text(encoding="utf-8") == expected
    code, out, _ = run("check", "--no-cache", flag, "out.txt", "k.py")
    text = (tmp_path / "out.txt").read_text(encoding="utf-8")
    assert code == 1 and out == "" and text.startswith(HEAD) and COLOURED not in text


def test_output_file_that_cannot_be_written_exits_2(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "k.py")
    write(tmp_path / "file", "")
    code, out, err = run("check", "--no-cache", "--output-file", "file/out.txt", "k.py")
    assert code == 2 and out == ""
    assert err.startswith("tritonlint: --output-file file/out.txt: cannot write: ")


def test_output_file_with_stdin_fix_keeps_the_fixed_text_on_stdout(tmp_path: Path) -> None:
    done = cli("check", "--no-cache", "--fix", "--stdin-filename", "k.py", "-o", "out.txt", cwd=tmp_path,
               stdin=SAFE.encode())
    assert done.returncode == 0 and "mask=offs < n)\n" in done.stdout.decode()
    assert (tmp_path / "out.txt").read_text() == "Found 1 error (1 fixed, 0 remaining).\n"


# --- --stdin-filename without `-` ----------------------------------------------------------------------


def test_stdin_filename_alone_reads_stdin(tmp_path: Path) -> None:
    write(tmp_path / "k.py", "x = 1\n")  # on disk: clean; on stdin: a finding
    done = cli("check", "--no-cache", "--output-format", "concise", "--stdin-filename", "k.py", cwd=tmp_path,
               stdin=SAFE.encode())
    assert done.returncode == 1 and done.stdout.decode().startswith(HEAD), done


def test_stdin_filename_with_a_path_reads_stdin_and_says_so(tmp_path: Path) -> None:
    write(tmp_path / "other.py", SAFE)
    done = cli("check", "--no-cache", "--output-format", "concise", "--stdin-filename", "k.py", "other.py",
               cwd=tmp_path, stdin=b"x = 1\n")
    assert done.returncode == 0, done
    assert done.stderr.decode() == "tritonlint: warning: ignoring other.py in favour of standard input\n"


# --- folders that cannot be read -----------------------------------------------------------------------


def _as_nobody() -> tuple[list[str] | None, str]:
    """A prefix that runs a command as an unprivileged user, when this process is root and can.

    The probe is a whole `check` of a readable kernel, run as that user from a folder of its own:
    a bare `import tritonlint` from the repository root would find the package in the current
    folder even where the user cannot reach the installed one (a virtual environment in a
    root-only folder), and the test would then blame the tool for the environment.
    """
    if os.geteuid() != 0:
        return [], ""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None, "running as root without setpriv: permissions do not stop root"
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    folder = Path(tempfile.mkdtemp(prefix="tritonlint-probe-"))
    try:
        folder.chmod(0o755)
        write(folder / "k.py").chmod(0o644)
        probe = cli("check", "--no-cache", "k.py", cwd=folder, user=prefix)
    finally:
        shutil.rmtree(folder)
    if probe.returncode != 1 or "TL102" not in probe.stdout.decode():
        return None, f"an unprivileged user cannot run this install: {probe.stderr.decode().strip()[-300:]!r}"
    return prefix, ""


@pytest.fixture
def open_tree() -> Iterator[Path]:
    """A folder any user can enter (pytest's tmp_path is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="tritonlint-perm-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for below in folder.rglob("*"):
            if below.is_dir() and not below.is_symlink():
                below.chmod(0o755)
        shutil.rmtree(folder)


def test_an_unreadable_folder_is_tl001_and_the_run_goes_on(open_tree: Path) -> None:
    prefix, why_not = _as_nobody()
    if prefix is None:
        pytest.skip(why_not)
    write(open_tree / "a" / "k.py").parent.chmod(0o755)
    (open_tree / "a").chmod(0o755)
    (open_tree / "a" / "k.py").chmod(0o644)
    locked = open_tree / "locked"
    write(locked / "k.py").chmod(0o644)
    locked.chmod(0o000)
    for fmt in ("concise", "json", "sarif", "github"):
        done = cli("check", "--no-cache", "--output-format", fmt, ".", cwd=open_tree, user=prefix)
        assert done.returncode == 1, done
        out = done.stdout.decode()
        assert "a/k.py" in out and "TL102" in out, (fmt, out)
        assert "locked" in out and "cannot read folder: Permission denied" in out, (fmt, out)
        assert "internal error" not in done.stderr.decode()
    # Named on the command line: the folder, and a file inside it.
    done = cli("check", "--no-cache", "--output-format", "concise", "locked", "a", cwd=open_tree, user=prefix)
    assert done.returncode == 1 and done.stderr.decode() == "", done
    assert done.stdout.decode().splitlines()[:2] == [
        ("a/k.py:9:5: TL102 tl.store can write past the end of the tensor on a partial tail tile: no mask bounds "
         "`offs`"),
        "locked:1:1: TL001 file not checked: cannot read folder: Permission denied"]
    done = cli("check", "--no-cache", "--output-format", "concise", "locked/k.py", cwd=open_tree, user=prefix)
    assert done.returncode == 1 and done.stderr.decode() == "", done
    assert done.stdout.decode().startswith("locked/k.py:1:1: TL001 file not checked: cannot read: Permission denied")


def test_a_folder_too_deep_to_list_is_tl001_even_for_root(run: Run, tmp_path: Path) -> None:
    # Permissions do not stop root, a path longer than PATH_MAX does: a real unlistable folder for anyone.
    write(tmp_path / "k.py")
    name = "d" * 250
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        for _ in range(20):  # 20 x 251 characters: past Linux's 4096
            os.mkdir(name)
            os.chdir(name)
    finally:
        os.chdir(here)
    code, out, err = run("check", "--no-cache", "--output-format", "json", ".")
    found = json.loads(out)
    assert code == 1 and "internal error" not in err
    assert [d["code"] for d in found] == ["TL001", "TL102"] or [d["code"] for d in found] == ["TL102", "TL001"]
    unlisted = next(d for d in found if d["code"] == "TL001")
    assert unlisted["message"] == "file not checked: cannot read folder: File name too long"
    assert unlisted["path"].startswith(f"./{name}/")
