"""A scalar that only meets float data is no size: `s = cap * tl.exp(x / cap)`, `tl.where(s > cap, ...)`.

Before: `cap` reached a comparison through the scores' locals and counted as an integer size; where the
walk's bound could not be read (a jit helper returning a tuple), the synthesizer made `cap` partial,
first in parameter order (an attention kernel's `softcap`), and the finding stayed in bounds."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.synth import facts_from, synthesize
from tritonlint.witness.uses import Uses

CAPPED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def _span(n, BLOCK: tl.constexpr):
        return 0, tl.cdiv(n, BLOCK), n


    @triton.jit
    def capped_rows(X, Out, cap, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        lo, hi, end = _span(n, BLOCK)
        for j in range(lo, hi):
            pos = j * BLOCK + offs
            mask = pos < end
            x = tl.load(X + pos, mask=mask, other=0.0)
            y = tl.load(Out + pos)
            s = cap * tl.exp(x / cap)
            acc += tl.where(s > cap, cap, s) + y
        tl.store(Out + offs, acc)
""")


def test_a_scalar_meeting_only_float_data_is_no_integer() -> None:
    extracted = extract(Path("capped.py"), CAPPED, "capped_rows")
    ints = Uses(extracted.kernel, extracted.helpers).int_params()
    assert "cap" not in ints
    assert "n" in ints  # through the helper that bounds the loop


def test_the_size_made_partial_is_not_the_float_scalar(tmp_path: Path) -> None:
    path = tmp_path / "capped.py"
    path.write_text(CAPPED)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    line = CAPPED.splitlines().index("        y = tl.load(Out + pos)") + 1
    d = next(d for d in checked.diagnostics if d.line == line)
    facts = facts_from(d, checked.launches.get("capped_rows", []), checked.flags.get("capped_rows", {}))
    pairs = synthesize(extract(path, CAPPED, "capped_rows"), facts)
    axes = [partial.axis for partial, _control in pairs]
    assert axes and "cap" not in axes and axes[0] == "n"
    args = {a.name: a for a in pairs[0][0].args}
    assert args["cap"].kind == "float"
