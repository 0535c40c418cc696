"""`tl.extra.cuda.num_warps()` / `num_threads()` under the interpreter answer with the launch's
num_warps (4 when the launch gives none), as the compiler does; Triton 3.6's interpreter raises."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

REPO = Path(__file__).resolve().parents[2]

DRIVER = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl
    if {compat}:
        from tritonlint.verify import interpreter_compat
        interpreter_compat.install()


    @triton.jit
    def threads():
        return tl.extra.cuda.num_threads()


    @triton.jit
    def warps(Out):
        n: tl.constexpr = tl.extra.cuda.num_warps()
        tl.static_assert(n > 0)
        tl.store(Out, n)
        tl.store(Out + 1, threads())


    out = torch.zeros(2, dtype=torch.int32)
    warps[(1,)](out, num_warps=8)
    first = out.tolist()
    warps[(1,)](out)
    print("ran", first, out.tolist())
""")


@pytest.mark.parametrize("compat", [True, False])
def test_num_warps_is_the_launchs(tmp_path: Path, compat: bool) -> None:
    (tmp_path / "driver.py").write_text(DRIVER.format(compat=compat))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(tmp_path / "driver.py")], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    if compat:
        assert "ran [8, 256] [4, 128]" in proc.stdout, proc.stderr[-2000:]
    else:
        assert "ran" not in proc.stdout


def test_installing_the_shims_again_wraps_nothing_twice(tmp_path: Path) -> None:
    # A generated module installs the shims again in a process that has them: each shim wraps the
    # interpreter's language patch once, whichever shim wrapped it last.
    driver = tmp_path / "again.py"
    driver.write_text(textwrap.dedent("""\
        from triton.runtime import interpreter as interp
        from tritonlint.verify import interpreter_compat
        interpreter_compat.install()
        first = (interp._patch_lang_core, interp.InterpretedFunction.run)
        interpreter_compat.install()
        print("same", first == (interp._patch_lang_core, interp.InterpretedFunction.run))
    """))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(driver)], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert "same True" in proc.stdout, proc.stderr[-2000:]
