"""A helper a sibling module binds under a top-level `if` on an environment flag (`if FAST: exp =
fastlib.exp_approx` / `else: exp = tl.exp`), where the first branch's module cannot be imported in the
generated module: the generated module evaluates the test and binds the branch it takes (the name was
left unbound, `name 'exp' is not defined`)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tritonlint.witness.extract import extract

pytest.importorskip("torch")
pytest.importorskip("triton")

MATH = textwrap.dedent("""\
    import os

    import triton.language as tl
    from acceleratorlib.device import fastlib

    if os.environ.get("MY_FAST_MATH", "0") == "1":
        exp = fastlib.exp_approx
        log = fastlib.log_approx
    else:
        exp = tl.exp
        log = tl.log
""")

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from mathops import exp


    @triton.jit
    def decay(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n, other=0.0)
        tl.store(Y + offs, exp(-x), mask=offs < n)
""")

LAUNCH = textwrap.dedent("""\
    x = torch.zeros(8)
    y = torch.empty(8)
    decay[(1,)](x, y, 8, BLOCK=8)
    print("ran", y.tolist())
""")


def test_a_helper_bound_under_an_environment_flag_takes_the_branch_the_flag_chooses(tmp_path: Path) -> None:
    (tmp_path / "mathops.py").write_text(MATH)
    path = tmp_path / "decay.py"
    path.write_text(KERNEL)
    extracted = extract(path, KERNEL, "decay")
    script = tmp_path / "generated.py"
    script.write_text(extracted.source + LAUNCH)
    env = dict(os.environ, TRITON_INTERPRET="1")
    env.pop("MY_FAST_MATH", None)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert "ran [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]" in proc.stdout, proc.stderr[-2000:]
