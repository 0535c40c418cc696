"""`.gitignore` support: the matcher against git itself, and discovery respecting it as ruff does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tritonlint.cli import main
from tritonlint.config import ConfigError, load_config
from tritonlint.gitignore import GitIgnore, parse

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x * 2)
"""

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")


def git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def write(path: Path, text: str = KERNEL) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def checked(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    """The files with a finding, as printed (concise output)."""
    capsys.readouterr()
    main(["check", "--no-cache", "--output-format", "concise", *argv])
    out = capsys.readouterr().out
    return sorted({line.split(":")[0] for line in out.splitlines() if ": TL" in line})


# (the .gitignore files, by folder) and the paths whose verdicts git gives: the matcher must agree.
CASES = [
    ({"": "*.log\n"}, ["a.log", "d/b.log", "a.py"]),
    ({"": "gen/\n"}, ["gen/", "x/gen/"]),
    ({"": "gen/\n"}, ["gen", "x/gen"]),  # a file named `gen` is not a folder
    ({"": "/top.py\n"}, ["top.py", "d/top.py"]),
    ({"": "d/k.py\n"}, ["d/k.py", "x/d/k.py"]),
    ({"": "**/deep/*.py\n"}, ["deep/a.py", "x/y/deep/a.py", "deep/z/a.py"]),
    ({"": "a/**/b.py\n"}, ["a/b.py", "a/x/b.py", "a/x/y/b.py", "b.py"]),
    ({"": "out/**\n"}, ["out/a.py", "out/x/a.py"]),
    ({"": "*.py\n!keep.py\n"}, ["keep.py", "d/keep.py", "other.py"]),
    ({"": "k?.py\nz[0-9].py\nw[!a].py\n"}, ["k1.py", "k12.py", "z5.py", "za.py", "wb.py", "wa.py"]),
    ({"": "\\#hash.py\n\\!bang.py\n# comment.py\n"}, ["#hash.py", "!bang.py", "comment.py"]),
    ({"": "trail.py   \n"}, ["trail.py"]),
    ({"": "*.py\n", "sub": "!mine.py\n"}, ["sub/mine.py", "mine.py", "sub/other.py"]),
    ({"": "!x.py\n", "sub": "x.py\n"}, ["sub/x.py", "x.py"]),
    ({"sub": "/only.py\n"}, ["sub/only.py", "sub/d/only.py", "only.py"]),
]


@needs_git
@pytest.mark.parametrize(("ignores", "paths"), CASES)
def test_the_matcher_agrees_with_git(tmp_path: Path, ignores: dict[str, str], paths: list[str]) -> None:
    git_init(tmp_path)
    for folder, text in ignores.items():
        write(tmp_path / folder / ".gitignore", text)
    matcher = GitIgnore(tmp_path)
    for path in paths:
        is_dir = path.endswith("/")
        if is_dir:
            (tmp_path / path).mkdir(parents=True, exist_ok=True)
        else:
            write(tmp_path / path, "")
        # --no-index: judge by the patterns alone, as for an untracked file.
        git = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=tmp_path, check=False)
        assert git.returncode in (0, 1), path
        ours = matcher.ignored(tmp_path / path.rstrip("/"), is_dir=is_dir)
        assert ours == (git.returncode == 0), (ignores, path)
        if not is_dir:
            (tmp_path / path).unlink()


def test_unreadable_patterns_are_skipped_not_fatal() -> None:
    patterns = parse("[unclosed\n*.py\n\n   \n")
    assert [p.regex.pattern for p in patterns][-1] == "[^/]*\\.py\\Z"


def tree(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(tmp_path / ".gitignore", "gen/\n*_tmp.py\n")
    write(tmp_path / "src" / ".gitignore", "vendored/\n!keep_tmp.py\n")
    write(tmp_path / ".git" / "info" / "exclude", "private.py\n")
    for name in ("k.py", "gen/g.py", "a_tmp.py", "src/s.py", "src/vendored/v.py", "src/keep_tmp.py",
                 "src/b_tmp.py", "private.py", "src/private.py"):
        write(tmp_path / name)


def test_discovery_respects_gitignore_at_every_level_and_info_exclude(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert checked(tmp_path, capsys) == ["./k.py", "./src/keep_tmp.py", "./src/s.py"]
    # From a folder below: the .gitignore files above it still hold.
    assert checked(tmp_path, capsys, "src") == ["src/keep_tmp.py", "src/s.py"]
    every = ["./a_tmp.py", "./gen/g.py", "./k.py", "./private.py", "./src/b_tmp.py", "./src/keep_tmp.py",
             "./src/private.py", "./src/s.py", "./src/vendored/v.py"]
    assert checked(tmp_path, capsys, "--no-respect-gitignore") == every
    assert checked(tmp_path, capsys, "--respect-gitignore") == checked(tmp_path, capsys)


def test_the_configuration_turns_it_off_and_the_flag_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    tree(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\nrespect-gitignore = false\n")
    monkeypatch.chdir(tmp_path)
    assert "./gen/g.py" in checked(tmp_path, capsys)
    assert "./gen/g.py" not in checked(tmp_path, capsys, "--respect-gitignore")
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\nrespect-gitignore = 1\n")
    with pytest.raises(ConfigError, match="respect-gitignore must be true or false"):
        load_config(tmp_path / "pyproject.toml")


def test_a_configuration_silent_on_it_keeps_the_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A `[tool.tritonlint]` table that does not name the key still respects .gitignore (ruff's default).
    tree(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.tritonlint]\nline-length = 100\n")
    monkeypatch.chdir(tmp_path)
    assert checked(tmp_path, capsys) == ["./k.py", "./src/keep_tmp.py", "./src/s.py"]


def test_files_and_folders_named_explicitly_are_checked_even_when_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # ruff 0.17.6 does the same, --force-exclude or not: ignore files judge only what a walk finds.
    tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert checked(tmp_path, capsys, "a_tmp.py", "private.py") == ["a_tmp.py", "private.py"]
    assert checked(tmp_path, capsys, "--force-exclude", "a_tmp.py") == ["a_tmp.py"]
    assert checked(tmp_path, capsys, "gen") == ["gen/g.py"]


def test_outside_a_git_work_tree_gitignore_means_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # As in ruff (and git): a .gitignore outside a repository is just a file.
    write(tmp_path / ".gitignore", "gen/\n")
    write(tmp_path / "gen" / "g.py")
    monkeypatch.chdir(tmp_path)
    if GitIgnore.for_path(tmp_path) is not None:
        pytest.skip("the temporary folder lies inside a git work tree")
    assert checked(tmp_path, capsys) == ["./gen/g.py"]


def test_a_worktree_reads_the_common_info_exclude(tmp_path: Path) -> None:
    main_tree = tmp_path / "main"
    git_init(main_tree)
    write(main_tree / ".git" / "info" / "exclude", "secret.py\n")
    # What `git worktree add` leaves: `.git` is a file naming the worktree's folder in the common one.
    worktree_git = main_tree / ".git" / "worktrees" / "wt"
    worktree_git.mkdir(parents=True)
    (worktree_git / "commondir").write_text("../..\n")
    other = tmp_path / "wt"
    other.mkdir()
    (other / ".git").write_text(f"gitdir: {worktree_git}\n")
    matcher = GitIgnore.for_path(other)
    assert matcher is not None and matcher.root == other.resolve()
    assert matcher.ignored(other.resolve() / "secret.py", is_dir=False)
