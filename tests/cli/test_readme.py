"""The README's examples work as printed: configuration, command lines, the pre-commit hooks, the workflow."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tritonlint.cli import build_parser, main
from tritonlint.config import load_config

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

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


def blocks(language: str, section: str | None = None) -> list[str]:
    """The fenced blocks of `language`, in the README or in one of its `## ` sections."""
    text = README
    if section is not None:
        start = README.index(f"## {section}\n")
        end = README.find("\n## ", start + 1)
        text = README[start:end if end != -1 else None]
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


def yaml_of(text: str) -> object:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load(text)


def test_the_configuration_example_loads(tmp_path: Path) -> None:
    (config_block,) = blocks("toml", "Configuration")
    (tmp_path / "pyproject.toml").write_text(config_block, encoding="utf-8")
    config = load_config(tmp_path / "pyproject.toml")  # an unknown key or code would raise
    assert config.enabled("TL100", default=False)  # extend-select = ["TL100"] turns it on
    assert config.respect_gitignore is True and config.unsafe_fixes is True


def command_lines() -> list[list[str]]:
    """Every `tritonlint ...` line of the README's shell blocks, as argv (no redirections)."""
    found = []
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.strip().removeprefix("$ ")
            if not line.startswith("tritonlint ") or line.endswith("\\"):
                continue
            words = shlex.split(line, comments=True)
            cut = next((i for i, word in enumerate(words) if word in ("<", ">", "|", "&&")), len(words))
            found.append(words[1:cut])
    return found


def test_the_readme_shows_command_lines() -> None:
    assert len(command_lines()) >= 12  # the extraction finds them


@pytest.mark.parametrize("argv", command_lines(), ids=" ".join)
def test_every_command_line_parses(argv: list[str]) -> None:
    if argv[0] == "verify" and importlib.util.find_spec("torch") is None:
        pytest.skip("verify's options need its extra")
    build_parser(verify_arguments=argv[0] == "verify").parse_args(argv)


# --- pre-commit -------------------------------------------------------------------------------------


def readme_hooks() -> list[dict[str, object]]:
    (block,) = blocks("yaml", "pre-commit")
    config = yaml_of(block)
    assert isinstance(config, dict)
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    hooks = repo["hooks"]
    assert isinstance(hooks, list)
    return hooks


def test_the_local_hooks_are_the_published_ones() -> None:
    published = yaml_of((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(published, list)
    local = readme_hooks()
    assert [hook["id"] for hook in local] == [hook["id"] for hook in published]
    for mine, theirs in zip(local, published):
        for key in ("name", "entry", "types_or"):
            assert mine[key] == theirs[key], (mine["id"], key)
        assert mine["language"] == "system"  # the installed tritonlint: no environment to build


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None or importlib.util.find_spec("pre_commit") is None,
                    reason="needs git and pre-commit")
def test_the_local_hooks_run_with_pre_commit(tmp_path: Path) -> None:
    (block,) = blocks("yaml", "pre-commit")
    project = tmp_path / "project"
    (project / "kernels").mkdir(parents=True)
    (project / "kernels" / "scale.py").write_text(BUGGY, encoding="utf-8")
    (project / "notes.md").write_text("not python\n", encoding="utf-8")
    (project / ".pre-commit-config.yaml").write_text(block, encoding="utf-8")  # pasted as printed
    _git(project, "init", "-q")
    _git(project, "add", ".")
    # The `tritonlint` of this environment, on PATH as it is where a user installed it.
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PRE_COMMIT_COLOR": "never",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    pre_commit = [sys.executable, "-m", "pre_commit"]
    done = subprocess.run([*pre_commit, "run", "--all-files"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "kernels/scale.py:9:5: TL102 tl.store can write past the end of the tensor" in done.stdout
    assert (project / "kernels" / "scale.py").read_text(encoding="utf-8") == BUGGY  # the fix hook is manual
    done = subprocess.run([*pre_commit, "run", "--hook-stage", "manual", "tritonlint-fix", "--all-files"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert "files were modified by this hook" in done.stdout, done.stdout + done.stderr
    assert (project / "kernels" / "scale.py").read_text(encoding="utf-8") == FIXED
    assert (project / "notes.md").read_text(encoding="utf-8") == "not python\n"


# --- GitHub Actions -----------------------------------------------------------------------------------


def test_the_workflow_commands_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = blocks("yaml", "GitHub Actions, with code scanning")
    workflow = yaml_of(block)
    assert isinstance(workflow, dict)
    steps = workflow["jobs"]["tritonlint"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs[0] == "python -m pip install ./tools/tritonlint"
    upload = next(step for step in steps if step.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "scale.py").write_text(BUGGY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    codes = []
    for run in runs[1:]:
        words = shlex.split(run)
        assert words[0] == "tritonlint"
        capsys.readouterr()
        codes.append(main(words[1:]))
    out = capsys.readouterr().out
    assert codes == [0, 1]  # the SARIF step never fails the job; the annotations step does
    sarif = json.loads((tmp_path / upload["with"]["sarif_file"]).read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["TL102"]
    assert out.startswith("::error file=./kernels/scale.py,line=9,col=5,")
