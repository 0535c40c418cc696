"""A fix validated against the fixed file as written, other fixes included: the stray row-tail writes
another fix drops are explained as the finding's own are (scripts/measure_fixes.py runs it so)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.engine import fix_source
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

# Rows of `n` laid out contiguously: each unmasked store's tail lanes land in the next row, which the
# programs, walking the rows backwards, have already written.
ROWS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def two_outputs(X, A, B, n, stride, BLOCK: tl.constexpr):
        row = tl.num_programs(0) - 1 - tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + row * stride + offs, mask=offs < n, other=0.0)
        tl.store(A + row * stride + offs, x)
        tl.store(B + row * stride + offs, x * 2.0)
""")


def test_each_fix_validates_against_the_whole_fixed_file(tmp_path: Path) -> None:
    path = tmp_path / "rows.py"
    path.write_text(ROWS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, errors = analysis.check_paths([str(path)], config)
    assert not errors and len(files) == 1
    checked = files[0]
    assert sorted(d.line for d in checked.diagnostics) == [10, 11]
    fixed = fix_source(str(path), checked.text, config, unsafe=True).fixed_text
    assert fixed is not None and fixed.count("mask=offs < n") == 3
    for d in checked.diagnostics:
        w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, fixed,
                    timeout=120)
        assert w.validation is not None and w.validation["status"] == "validated", (d.line, w.validation)
