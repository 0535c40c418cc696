"""`--emit-repro` for the confirmations that are a difference between two runs, not an access past an
end: TL104's tile wider than its group (the outputs change with the padding lanes switched off, or two
programs write one element with different values) and TL105's masked-off lanes (the output changes
when they hold the reduction's identity). Before, no script was written for them: the bounds script's
guard would have shown nothing. Each script runs alone (torch and triton only) and exits 1 with the
difference, as the bounds scripts do with the overrun."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tritonlint.cli import main

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def unit_groups(X, Y, total, G, BLOCK: tl.constexpr):
        g = tl.program_id(0)
        lane = tl.arange(0, BLOCK)
        idx = g * G + lane
        v = tl.load(X + idx, mask=idx < total, other=0.0)
        norm = tl.sqrt(tl.sum(v * v, axis=0) + 1e-6)
        tl.store(Y + idx, v / norm, mask=idx < total)


    @triton.jit
    def row_max(X, Y, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + row * n_cols + offs, mask=offs < n_cols)
        tl.store(Y + row, tl.max(x, axis=0))


    def unit(x, y, group):
        total = x.numel()
        unit_groups[(triton.cdiv(total, group),)](x, y, total, group, BLOCK=triton.next_power_of_2(group))


    def rowmax(x, y):
        rows, cols = x.shape
        row_max[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
""")


def _line(needle: str, after: str) -> int:
    lines = KERNELS.splitlines()
    start = next(i for i, ln in enumerate(lines) if after in ln)
    return next(i for i, ln in enumerate(lines) if i > start and needle in ln) + 1


def _scripts(tmp_path: Path) -> dict[int, Path]:
    (tmp_path / "kernels.py").write_text(KERNELS)
    out = tmp_path / "repro"
    assert main(["witness", "--select", "ALL", "--emit-repro", str(out), str(tmp_path / "kernels.py")]) == 1
    return {int(p.stem.split("_py_")[1].split("_")[0]): p for p in out.glob("repro_*.py")}


def _run(script: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    copy = tmp_path / "alone" / script.name  # runs from anywhere: nothing beside it is needed
    copy.parent.mkdir(exist_ok=True)
    copy.write_text(script.read_text())
    return subprocess.run([sys.executable, str(copy)], cwd=copy.parent, capture_output=True, text=True,
                          timeout=300, check=False)


def test_two_run_confirmations_get_scripts_that_show_the_difference(tmp_path: Path) -> None:
    scripts = _scripts(tmp_path)
    load, store = _line("tl.load", "def unit_groups"), _line("tl.store", "def unit_groups")
    reduced = _line("tl.load", "def row_max")
    assert set(scripts) == {load, store, reduced}, scripts
    for script in scripts.values():
        assert "tritonlint" not in script.read_text().replace("`tritonlint witness`", "")  # torch and triton only

    padded = _run(scripts[load], tmp_path)
    assert padded.returncode == 1, padded.stderr
    assert "`Y` differs from the run with the lanes past the group switched off at " in padded.stdout
    assert f"kernels.py:{load} in " in padded.stdout

    race = _run(scripts[store], tmp_path)
    assert race.returncode == 1, race.stderr
    assert f"kernels.py:{store} writes" in race.stdout and "(a race on a GPU)" in race.stdout

    identity = _run(scripts[reduced], tmp_path)
    assert identity.returncode == 1, identity.stderr
    assert "`Y` differs from the run with the masked-off lanes set to -inf at " in identity.stdout
    assert f"kernels.py:{reduced} in " in identity.stdout


# A gather whose address the witness cannot size (`(j*j+1)**2 * 99991` from loaded indices): its own
# child keeps such lanes inside the guard; the script must too, or the read lands in unmapped memory
# and the script dies (SIGSEGV) before it prints the flagged line's overrun.
WILD = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def gather_rows(X, IDX, Y, OUT, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        j = tl.load(IDX + offs, mask=offs < n, other=0)
        y = tl.load(Y + (j * j + 1) * (j * j + 1) * 99991, mask=offs < n, other=0.0)
        tl.store(OUT + offs, x + y, mask=offs < n)


    def run(x, idx, y, out):
        n = x.numel()
        gather_rows[(triton.cdiv(n, 16),)](x, idx, y, out, n, BLOCK=16)
""")


def test_a_wild_access_on_another_line_leaves_the_script_alive(tmp_path: Path) -> None:
    (tmp_path / "gather.py").write_text(WILD)
    out = tmp_path / "repro"
    assert main(["witness", "--select", "ALL", "--emit-repro", str(out), str(tmp_path / "gather.py")]) == 1
    [script] = list(out.glob("repro_*.py"))
    done = _run(script, tmp_path)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "gather.py:8 ran up to 8 element(s) past the end of `X`" in done.stdout, done.stdout
