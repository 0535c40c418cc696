"""Jupyter notebooks through the command line: cells checked, magics masked, `cell N` locations in
every format, and `--fix` writing the notebook back with its JSON layout intact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tritonlint.cli import main

KERNEL = [
    "@triton.jit\n",
    "def scale(X, Y, n, BLOCK: tl.constexpr):\n",
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n",
    "    x = tl.load(X + offs, mask=offs < n, other=0.0)\n",
    "    !nvidia-smi\n",
    "    tl.store(Y + offs, x * 2)",
]


def notebook(kernel: list[str] | str = KERNEL) -> dict[str, Any]:
    """A markdown cell, imports after a line magic, a `%%bash` cell, then the kernel (cell 4)."""
    return {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Scaling\n", "on the GPU"]},
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
             "source": ["%matplotlib inline\n", "import triton\n", "import triton.language as tl"]},
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": ["%%bash\n", "echo 'def broken(:'\n"]},
            {"cell_type": "code", "execution_count": 2, "metadata": {"tags": ["caf\u00e9"]}, "outputs": [],
             "source": kernel},
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def save(path: Path, data: dict[str, Any], indent: int = 1, ascii_only: bool = False, newline: bool = True) -> bytes:
    raw = (json.dumps(data, indent=indent, ensure_ascii=ascii_only) + ("\n" if newline else "")).encode()
    path.write_bytes(raw)
    return raw


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)

    def invoke(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return invoke


def test_a_kernel_in_a_cell_is_reported_by_cell_and_line(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    save(tmp_path / "nb.ipynb", notebook())
    code, out, err = run("check", "--no-cache", ".")  # found by walking the folder
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == ("./nb.ipynb:cell 4:6:5: TL102 tl.store can write past the end of the tensor on a partial "
                        "tail tile: no mask bounds `offs`")
    # Lines named in notes and fix titles count within the cell too.
    assert "    note: the tl.load at line 4 masks the same dimension" in lines
    assert "    help: Mask the store with `offs < n` (the mask of the tl.load at line 4); the lanes it switches off are not written (safe fix)" in lines
    code, out, _ = run("check", "--no-cache", "--output-format", "full", "nb.ipynb")
    assert out.splitlines()[2] == "6 |     tl.store(Y + offs, x * 2)"


def test_notebook_locations_in_json_sarif_and_github(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    save(tmp_path / "nb.ipynb", notebook())
    (found,) = json.loads(run("check", "--no-cache", "--output-format", "json", "nb.ipynb")[1])
    assert (found["cell"], found["line"], found["column"], found["end_line"]) == (4, 6, 5, 6)
    assert found["fix"]["edits"][0]["location"] == {"row": 6, "column": 29}
    result = json.loads(run("check", "--no-cache", "--output-format", "sarif", "nb.ipynb")[1])["runs"][0]["results"][0]
    assert result["properties"] == {"cell": 4}
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    github = run("check", "--no-cache", "--output-format", "github", "nb.ipynb")[1]
    assert github.startswith("::error file=nb.ipynb,line=6,col=5,endLine=6,endColumn=30,"
                             "title=TL102 unmasked-tail-store (cell 4)::")


def test_fix_writes_only_the_changed_cell_and_keeps_the_layout(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "nb.ipynb"
    before = save(path, notebook())
    code, out, _err = run("check", "--fix", "nb.ipynb")
    assert (code, out) == (0, "Found 1 error (1 fixed, 0 remaining).\n")
    expected = notebook([*KERNEL[:-1], "    tl.store(Y + offs, x * 2, mask=offs < n)"])
    after = path.read_bytes()
    assert after == before.replace(b'"    tl.store(Y + offs, x * 2)"', b'"    tl.store(Y + offs, x * 2, mask=offs < n)"')
    assert json.loads(after) == expected  # magics, the bash cell, the missing final newline: all as they were
    assert run("check", "--no-cache", "nb.ipynb")[:2] == (0, "All checks passed!\n")


@pytest.mark.parametrize(("indent", "ascii_only", "newline"), [(2, True, False), (4, False, True)])
def test_fix_keeps_other_layouts_and_source_as_one_string(run, tmp_path: Path, indent: int,  # type: ignore[no-untyped-def]
                                                          ascii_only: bool, newline: bool) -> None:
    path = tmp_path / "nb.ipynb"
    before = save(path, notebook("".join(KERNEL) + "\n"), indent, ascii_only, newline)
    assert run("check", "--fix", "nb.ipynb")[0] == 0
    after = path.read_bytes()
    assert after == before.replace(b"tl.store(Y + offs, x * 2)", b"tl.store(Y + offs, x * 2, mask=offs < n)")


def test_a_layout_that_cannot_be_reproduced_is_not_rewritten(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "nb.ipynb"
    raw = json.dumps(notebook(), indent=1).replace('"nbformat": 4', '"nbformat":   4').encode()
    path.write_bytes(raw)
    code, out, err = run("check", "--fix", "nb.ipynb")
    assert code == 1 and "nb.ipynb:cell 4:6:5: TL102" in out
    assert err == "tritonlint: nb.ipynb: its JSON layout cannot be reproduced, so it is not rewritten; fix not written\n"
    assert path.read_bytes() == raw


def test_add_suppressions_in_a_notebook(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "nb.ipynb"
    save(path, notebook())
    assert run("check", "--add-suppressions", "nb.ipynb")[0] == 0
    cell = json.loads(path.read_bytes())["cells"][3]["source"]
    assert cell[-1].startswith("    tl.store(Y + offs, x * 2)  # tritonlint: ignore[TL102] TODO")
    assert cell[4] == "    !nvidia-smi\n"
    assert run("check", "--no-cache", "nb.ipynb")[0] == 0


@pytest.mark.parametrize(("raw", "reason"), [
    (b"{not json at all, jit triton", "not a valid notebook (not JSON"),
    (b'{"cells": 3, "jit": "triton"}', "not a valid notebook (no list of cells)"),
])
def test_a_broken_notebook_is_tl001(run, tmp_path: Path, raw: bytes, reason: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "nb.ipynb").write_bytes(raw)
    code, out, _err = run("check", "--no-cache", "nb.ipynb")
    assert code == 1 and out.startswith(f"nb.ipynb:1:1: TL001 file not checked: {reason}")


def test_a_notebook_on_stdin_is_fixed_to_stdout(tmp_path: Path) -> None:
    before = json.dumps(notebook(), indent=1) + "\n"
    done = subprocess.run([sys.executable, "-m", "tritonlint", "check", "-", "--stdin-filename", "nb.ipynb", "--fix"],
                          cwd=tmp_path, input=before.encode(), capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == before.replace("x * 2)\"", "x * 2, mask=offs < n)\"")
