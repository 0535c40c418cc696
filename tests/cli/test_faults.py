"""Fault tests for the runner and writer, through the real CLI (`tritonlint.cli.main` in-process).

Each fault: one clear line on stderr naming the file, the right exit code, and every file as it was
unless it was correctly fixed. Runs use --no-cache so the tree holds only what the test wrote.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tritonlint import runner
from tritonlint.cli import main

BUGGY = """import triton
import triton.language as tl


@triton.jit
def k(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x * 2)
"""
FIXED_LINE = "    tl.store(Y + offs, x * 2, mask=offs < n)\n"
CLEAN = BUGGY.replace("    tl.store(Y + offs, x * 2)\n", FIXED_LINE)

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    monkeypatch.chdir(tmp_path)

    def invoke(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main([argv[0], "--no-cache", *argv[1:]])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def one_line(err: str, *needles: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], err


def not_checked(out: str, where: str, reason: str) -> None:
    """Exactly one TL001 finding in `out`, for `where` (path or path:line), saying `reason`."""
    lines = [line for line in out.splitlines() if " TL001 " in line]
    assert len(lines) == 1 and lines[0].startswith(where + ":") and reason in lines[0], out


def heads(out: str) -> list[str]:
    return [line.split(" ")[0] + " " + line.split(" ")[1] for line in out.splitlines()
            if line and not line.startswith(" ") and ": TL" in line]


# --- reading ----------------------------------------------------------------------------------


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads a chmod 000 file")
def test_chmod_000_file(run: Run, tmp_path: Path) -> None:
    locked = write(tmp_path / "locked.py", BUGGY)
    write(tmp_path / "z.py", BUGGY)
    locked.chmod(0)
    try:
        code, out, err = run("check", "--fix", ".")
    finally:
        locked.chmod(0o644)
    assert code == 1
    one_line(err.replace("tritonlint: fixed 1 file(s)\n", ""), "locked.py", "cannot read")
    assert locked.read_text() == BUGGY


@pytest.mark.parametrize("fix", [False, True], ids=["check", "fix"])
def test_unreadable_file_simulated(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fix: bool) -> None:
    write(tmp_path / "locked.py", BUGGY)
    write(tmp_path / "z.py", BUGGY)
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "locked.py":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    code, out, err = run("check", *(["--fix", "--unsafe-fixes", "-q"] if fix else []), ".")
    assert code == 1
    not_checked(out, "./locked.py", "cannot read: Permission denied")
    monkeypatch.undo()
    assert (tmp_path / "locked.py").read_text() == BUGGY
    if fix:
        assert (tmp_path / "z.py").read_text() == CLEAN
    else:
        assert heads(out) == ["./locked.py:1:1: TL001", "./z.py:9:5: TL102"]


def test_file_deleted_between_discovery_and_read(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "a_gone.py", BUGGY)
    write(tmp_path / "b.py", BUGGY)
    real = runner.discover

    def discover_then_delete(*args, **kwargs):  # type: ignore[no-untyped-def]
        files = list(real(*args, **kwargs))
        (tmp_path / "a_gone.py").unlink()
        return iter(files)

    monkeypatch.setattr("tritonlint.cli.discover", discover_then_delete)
    code, out, err = run("check", ".")
    assert code == 1
    not_checked(out, "./a_gone.py", "vanished")
    assert heads(out) == ["./a_gone.py:1:1: TL001", "./b.py:9:5: TL102"]


# --- writing ----------------------------------------------------------------------------------


def test_read_only_file_under_fix_is_refused(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "ro.py", BUGGY)
    path.chmod(0o444)
    try:
        code, _out, err = run("check", "--fix", "--unsafe-fixes", "ro.py")
        assert code == 1
        assert "ro.py: read-only file; fix not written" in err and err.count("\n") == 1, err
        assert path.read_text() == BUGGY
        assert snapshot(tmp_path) == {"ro.py": BUGGY.encode()}
    finally:
        path.chmod(0o644)


def test_file_modified_between_read_and_write_is_refused(run: Run, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "k.py", BUGGY)
    edited = BUGGY + "# saved by an editor meanwhile\n"
    real = runner.write_atomic

    def editor_saves_first(target: Path, text: str, expected: bytes) -> str | None:
        target.write_text(edited)
        return real(target, text, expected)

    monkeypatch.setattr(runner, "write_atomic", editor_saves_first)
    code, _out, err = run("check", "--fix", "--unsafe-fixes", "k.py")
    assert code == 1
    one_line(err, "k.py", "changed on disk since it was read; fix not written")
    assert path.read_text() == edited
    assert snapshot(tmp_path) == {"k.py": edited.encode()}


@pytest.mark.parametrize("failure", [errno.ENOSPC, errno.EXDEV, errno.EACCES], ids=["ENOSPC", "EXDEV", "EACCES"])
def test_rename_failure_leaves_the_original_and_no_temp_file(run: Run, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, failure: int) -> None:
    path = write(tmp_path / "k.py", BUGGY)

    def replace(src: str, dst: str) -> None:
        raise OSError(failure, os.strerror(failure))

    monkeypatch.setattr(os, "replace", replace)
    code, _out, err = run("check", "--fix", "--unsafe-fixes", "k.py")
    assert code == 1
    one_line(err, "k.py", "could not write the fix", os.strerror(failure), "file left as it was")
    assert snapshot(tmp_path) == {"k.py": BUGGY.encode()}
    assert path.read_text() == BUGGY


def test_disk_full_while_writing_the_temp_file(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "k.py", BUGGY)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)
    code, _out, err = run("check", "--fix", "--unsafe-fixes", "k.py")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert code == 1
    one_line(err, "k.py", "No space left on device", "file left as it was")
    assert snapshot(tmp_path) == {"k.py": BUGGY.encode()}


def test_fix_keeps_permissions(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "k.py", BUGGY)
    path.chmod(0o640)
    code, _out, _err = run("check", "--fix", "--unsafe-fixes", "-q", "k.py")
    assert code == 0 and path.read_text() == CLEAN
    assert path.stat().st_mode & 0o777 == 0o640
    assert snapshot(tmp_path) == {"k.py": CLEAN.encode()}


# --- what is found ------------------------------------------------------------------------------


def test_symlink_loops_and_links_out_of_the_tree_are_not_followed(run: Run, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    outside = tmp_path / "outside"
    write(tree / "bad.py", BUGGY)
    write(outside / "far.py", BUGGY)
    (tree / "loop").symlink_to(tree, target_is_directory=True)
    (tree / "out_dir").symlink_to(outside, target_is_directory=True)
    (tree / "out_file.py").symlink_to(outside / "far.py")
    (tree / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    before = snapshot(tmp_path)
    start = time.monotonic()
    code, out, err = run("check", "--fix", "--unsafe-fixes", "-q", "tree")
    assert time.monotonic() - start < 30
    assert code == 0 and err == "", err
    assert (tree / "bad.py").read_text() == CLEAN
    assert (outside / "far.py").read_text() == BUGGY  # never followed, never fixed
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if k != "tree/bad.py"} == \
        {k: v for k, v in before.items() if k != "tree/bad.py"}
    assert (tree / "out_file.py").is_symlink() and (tree / "loop").is_symlink()


ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8


@pytest.mark.parametrize("data", [ELF + b"triton.jit", b"import triton\x00@triton.jit\n"], ids=["elf", "nul"])
def test_binary_file_named_py(run: Run, tmp_path: Path, data: bytes) -> None:
    write(tmp_path / "blob.py", data)
    write(tmp_path / "z.py", BUGGY)
    code, out, err = run("check", "--fix", "--unsafe-fixes", "-q", ".")
    assert code == 1
    not_checked(out, "./blob.py", "binary file")
    assert (tmp_path / "blob.py").read_bytes() == data
    assert (tmp_path / "z.py").read_text() == CLEAN


def test_binary_file_without_kernel_words_is_skipped_silently(run: Run, tmp_path: Path) -> None:
    # The byte pre-filter: a file that never says `jit` and `triton` cannot hold a kernel.
    write(tmp_path / "blob.py", ELF)
    code, out, err = run("check", ".")
    assert (code, out.strip(), err) == (0, "All checks passed!", "") or (code, err) == (0, "")
    assert (tmp_path / "blob.py").read_bytes() == ELF


def test_non_utf8_file(run: Run, tmp_path: Path) -> None:
    data = BUGGY.encode().replace(b"import triton\n", b"import triton  # caf\xe9 (latin-1)\n", 1)
    write(tmp_path / "latin.py", data)
    code, out, err = run("check", "--fix", "--unsafe-fixes", "latin.py")
    assert code == 1
    not_checked(out, "latin.py", "not UTF-8 (byte 0xe9")
    assert (tmp_path / "latin.py").read_bytes() == data


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_bom_is_preserved_by_fix(run: Run, tmp_path: Path, newline: str) -> None:
    path = write(tmp_path / "bom.py", b"\xef\xbb\xbf" + BUGGY.replace("\n", newline).encode())
    code, out, err = run("check", "bom.py")
    assert code == 1 and heads(out) == ["bom.py:9:5: TL102"], (out, err)
    code, _out, _err = run("check", "--fix", "--unsafe-fixes", "-q", "bom.py")
    assert code == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + CLEAN.replace("\n", newline).encode()


def test_syntax_error_next_to_good_files(run: Run, tmp_path: Path) -> None:
    broken = "import triton\n\n@triton.jit\ndef k(:\n    pass\n"
    write(tmp_path / "a.py", BUGGY)
    write(tmp_path / "b_broken.py", broken)
    write(tmp_path / "c.py", CLEAN)
    write(tmp_path / "d.py", BUGGY)
    code, out, err = run("check", ".")
    assert code == 1
    not_checked(out, "./b_broken.py:4", "syntax error")
    assert heads(out) == ["./a.py:9:5: TL102", "./b_broken.py:4:1: TL001", "./d.py:9:5: TL102"]
    code, out, err = run("check", "--fix", "--unsafe-fixes", "-q", ".")
    assert code == 1 and "./b_broken.py:4:1: TL001" in out
    assert snapshot(tmp_path) == {"a.py": CLEAN.encode(), "b_broken.py": broken.encode(),
                                  "c.py": CLEAN.encode(), "d.py": CLEAN.encode()}


# --- size -------------------------------------------------------------------------------------


def test_5mb_generated_file(run: Run, tmp_path: Path) -> None:
    kernel = BUGGY.split("\n\n\n", 1)[1]
    parts = ["import triton\nimport triton.language as tl\n\n"]
    size = 0
    i = 0
    while size < 5_000_000:
        if i % 40 == 0:
            chunk = "\n\n" + kernel.replace("def k(", f"def k{i}(")
        else:  # plain Python between kernels, the bulk of a generated file
            chunk = f"\nTABLE_{i} = [{', '.join(str(j) for j in range(400))}]\n"
        parts.append(chunk)
        size += len(chunk)
        i += 1
    path = write(tmp_path / "big.py", "".join(parts))
    assert path.stat().st_size >= 5_000_000
    start = time.monotonic()
    code, out, err = run("check", "-q", "big.py")
    elapsed = time.monotonic() - start
    assert code == 1 and err == ""
    assert len(heads(out)) == len(range(0, i, 40))
    assert elapsed < 60, elapsed


def test_10000_files_in_a_folder(run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(10_000):
        (folder / f"m{n:05d}.py").write_bytes(b"x = 1\n" if n % 1000 else BUGGY.encode())
    start = time.monotonic()
    code, out, err = run("check", "-q", "many")
    elapsed = time.monotonic() - start
    assert code == 1 and err == ""
    assert len(heads(out)) == 10
    assert elapsed < 60, elapsed


# --- check and fix never run the code they read -----------------------------------------------


@pytest.mark.parametrize("argv", [["check"], ["check", "--fix", "--unsafe-fixes"], ["check", "--diff"]],
                         ids=["check", "fix", "diff"])
def test_never_runs_the_code(run: Run, tmp_path: Path, argv: list[str]) -> None:
    marker = tmp_path / "RAN"
    header = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    write(tmp_path / "pkg" / "sneaky.py", header + BUGGY)
    for name in ("__init__.py", "__main__.py", "conftest.py", "setup.py"):
        write(tmp_path / "pkg" / name, header)
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\n")
    code, _out, _err = run(*argv, "pkg")
    assert code in (0, 1)
    assert not marker.exists()
    if "--fix" in argv:
        assert (tmp_path / "pkg" / "sneaky.py").read_text() == header + CLEAN
