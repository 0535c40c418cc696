"""The pre-commit hooks for real: `pre-commit try-repo` of this checkout on a throwaway git repo.

pre-commit builds the hook's environment with `pip install` of this repository (and libcst);
where pip can reach neither an index nor a local wheel for them the test is skipped, saying so.
It takes a while (a virtualenv per hook run), hence the `slow` mark; it is not deselected by default.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]  # this checkout, wherever it lies

BUGGY = """\
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.store(Y + offs, x * 2)
"""
FIXED = BUGGY.replace("tl.store(Y + offs, x * 2)", "tl.store(Y + offs, x * 2, mask=offs < n)")

# pip's words for "no index or wheel reachable": the only failures that skip instead of fail.
OFFLINE = ("No matching distribution found", "Could not find a version", "Failed to establish a new connection",
           "Temporary failure in name resolution", "Network is unreachable", "Max retries exceeded")


def _pre_commit() -> list[str] | None:
    beside = Path(sys.executable).with_name("pre-commit")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("pre-commit")
    return [found] if found else None


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pre_commit() -> list[str]:
    command = _pre_commit()
    if command is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[dev]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not (REPO / ".git").exists():
        pytest.skip("this checkout is not a git repository; pre-commit try-repo needs one")
    return command


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    (repo / "kernels").mkdir(parents=True)
    (repo / "kernels" / "scale.py").write_text(BUGGY, encoding="utf-8")
    (repo / "README.md").write_text("not python\n", encoding="utf-8")
    # What a user would commit; try-repo runs the same hooks without it, from this checkout.
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO.as_posix()}\n    rev: HEAD\n    hooks:\n"
        "      - id: tritonlint\n      - id: tritonlint-fix\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "test")
    _git(repo, "config", "commit.gpgsign", "false")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "a kernel with an unmasked tail store")
    return repo


def _try_repo(pre_commit: list[str], project: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Every hook of this checkout's .pre-commit-hooks.yaml, in its order, over every file of `project`.

    One run builds one hook environment (a virtualenv with `pip install` of this checkout) that
    both hooks share; a run per hook would build it again for each.
    """
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run([*pre_commit, "try-repo", str(REPO), "--all-files", "--verbose"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900, check=False)
    output = done.stdout + done.stderr
    if "An unexpected error has occurred" in output or "CalledProcessError" in output:
        log = (home / "pre-commit.log").read_text(errors="replace") if (home / "pre-commit.log").exists() else ""
        if any(sign in output + log for sign in OFFLINE):
            pytest.skip("pre-commit could not install the hook environment (no package index or wheel for "
                        "this repository's dependencies reachable)")
        pytest.fail(f"pre-commit failed to run the hooks:\n{output}\n{log}")
    return done


def _section(output: str, title: str) -> str:
    """The lines pre-commit printed for one hook: from its status line to the next hook's."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title + "."))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("tritonlint")
                and "...." in lines[i]), len(lines))
    return "\n".join(lines[start:end])


@pytest.mark.slow
def test_check_hook_fails_naming_the_finding_and_fix_hook_patches(pre_commit: list[str], project: Path,
                                                                   tmp_path: Path) -> None:
    done = _try_repo(pre_commit, project, tmp_path / "pre-commit-home")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    check = _section(done.stdout, "tritonlint")
    assert "Failed" in check.splitlines()[0], output
    assert "kernels/scale.py:9:5: TL102 tl.store can write past the end of the tensor" in check, output
    fix = _section(done.stdout, "tritonlint (fix)")
    assert "Failed" in fix.splitlines()[0], output
    assert "files were modified by this hook" in fix, output  # pre-commit fails a hook that changed files
    assert (project / "kernels" / "scale.py").read_text(encoding="utf-8") == FIXED
    assert (project / "README.md").read_text(encoding="utf-8") == "not python\n"  # types_or: [python, jupyter]
