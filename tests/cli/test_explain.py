"""`tritonlint check --explain PATH:LINE`: the reasons for every access on a line, reported or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonlint.cli import main

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def dot(X, W, Y, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            x = tl.load(X + k + offs)
            w = tl.load(W + k + offs)
        else:
            x = tl.load(X + k + offs, mask=k + offs < K, other=0.0)
            w = tl.load(W + k + offs)
        acc += x * w
    tl.store(Y, tl.sum(acc, axis=0))
    tl.store(Y + offs, acc, mask=offs < K)
"""


def _explain(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: int) -> tuple[int, list[str]]:
    path = tmp_path / "dot.py"
    path.write_text(KERNEL)
    code = main(["check", "--explain", f"{path}:{line}"])
    out = capsys.readouterr().out.replace(str(path), "dot.py")
    return code, out.splitlines()


def test_a_reported_load_shows_its_walk_the_evidence_and_the_verdict(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _explain(tmp_path, capsys, 15)
    assert code == 1
    assert lines == [
        "dot.py:15:17: tl.load(W + k + offs, ...) in dot",
        "  mask: none",
        "  walks `offs` (tiles of BLOCK_K), advanced by the loop at line 9",
        "    partial tile: EVEN_K is an evenness flag for this dimension (by how the kernel uses it)",
        "    unbounded: reachable when EVEN_K is False",
        "fix (safe): Mask the load with `offs < K - k` (derived from the loop bound); the lanes it switches "
        "off reach only `tl.sum` (line 17) as 0, the tl.store at line 18 (its mask drops them)",
        "verdict: reported as TL101 at dot.py:15:17: tl.load can read past the end of the tensor on a "
        "partial tail tile: no mask bounds `offs`",
    ]


def test_the_even_side_and_the_masked_twin_say_what_bounds_them(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _explain(tmp_path, capsys, 11)
    assert code == 0
    assert "    bounded: runs only when EVEN_K is True: full tiles there" in lines
    assert lines[-1] == "verdict: nothing reported on this line"
    code, lines = _explain(tmp_path, capsys, 14)
    assert code == 0
    assert "  mask: k + offs < K" in lines
    assert "    bounded: the mask bounds it on the tail side of EVEN_K" in lines


def test_a_mask_on_the_walked_dimension_and_a_scalar_store(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _explain(tmp_path, capsys, 18)
    assert code == 0
    assert "    bounded: the mask bounds it on the tail side of EVEN_K" in lines
    plain = tmp_path / "plain.py"
    plain.write_text(KERNEL[:KERNEL.index("@triton.jit")] + (  # no flag: the mask is the only word on it
        "@triton.jit\ndef copy(X, Y, n, BLOCK: tl.constexpr):\n    offs = tl.program_id(0) * BLOCK + "
        "tl.arange(0, BLOCK)\n    tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)\n"))
    assert main(["check", "--explain", f"{plain}:8"]) == 0
    assert "    bounded: the mask bounds it" in capsys.readouterr().out.splitlines()
    code, lines = _explain(tmp_path, capsys, 17)
    assert code == 0
    assert "  walks no tiled dimension (a scalar access): nothing to bound" in lines


def test_a_line_without_an_access_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _explain(tmp_path, capsys, 7)
    assert code == 0
    assert lines == ["dot.py:7: no tl.load or tl.store of a jit function on this line",
                     "verdict: nothing reported on this line"]
    assert main(["check", "--explain", "no-line-number"]) == 2
    assert "--explain takes PATH:LINE" in capsys.readouterr().err
    assert main(["check", "--explain", f"{tmp_path / 'missing.py'}:3"]) == 2
    err = capsys.readouterr().err
    assert "missing.py: cannot read" in err and len(err.splitlines()) == 1


def test_the_readme_explain_example_prints_what_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The `--explain` block in README.md, run on the README's first example, prints exactly that."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    first = readme[readme.index("## A first example"):]
    source = first[first.index("<<'EOF'\n") + 8:first.index("\nEOF\n") + 1]
    section = readme[readme.index("## Why is (or isn't) this line flagged?"):]
    block = section[section.index("```text\n") + 8:section.index("\n```", section.index("```text\n")) + 1]
    command, shown = block.split("\n", 1)
    assert command.startswith("$ tritonlint check --explain dot.py:")
    (tmp_path / "dot.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    code = main(command.split()[2:])
    assert capsys.readouterr().out == shown
    assert code == 0
