"""TL105 on a masked load with no `other=`: Triton's IR leaves those lanes undefined, the lowerings (and the
interpreter) fill them with 0. A max over non-negative slot numbers never lets a 0 win, so the run at 0
equals the identity run; the undefined-lane run holds the lanes at the type's largest value and shows the
kernel depends on them: a latent confirmation. The same kernel that writes `other=0` is promised its 0 and
stays not-reproduced (the rule does not report it: its finding is moved there by hand)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.runner import Witness, witness
from tritonlint.witness.undefined_lanes import loads_without_other

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def last_used_slot(Slots, Cache, Out, count, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        lanes = tl.arange(0, BLOCK)
        slots = tl.load(Slots + row * stride + lanes, mask=lanes < count)
        vals = tl.load(Cache + slots, mask=lanes < count, other=0.0)
        tl.store(Out + row * 2, tl.max(slots, axis=0))
        tl.store(Out + row * 2 + 1, tl.sum(vals, axis=0).to(tl.int32))


    @triton.jit
    def last_used_slot_zero(Slots, Cache, Out, count, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        lanes = tl.arange(0, BLOCK)
        slots = tl.load(Slots + row * stride + lanes, mask=lanes < count, other=0)
        vals = tl.load(Cache + slots, mask=lanes < count, other=0.0)
        tl.store(Out + row * 2, tl.max(slots, axis=0))
        tl.store(Out + row * 2 + 1, tl.sum(vals, axis=0).to(tl.int32))
""")


LOAD, SHIFT = 9, 10  # the first kernel's flagged load; the second kernel sits ten lines below


def _witness(tmp_path: Path, shift: int) -> Witness:
    path = tmp_path / "slots.py"
    path.write_text(KERNELS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    checked = analysis.check_paths([str(path)], config)[0][0]
    d = next(d for d in checked.diagnostics if d.line == LOAD and d.code == "TL105")
    at = dict(d.facts)["reduction_line"]
    d = dataclasses.replace(d, line=d.line + shift, end_line=d.end_line + shift,
                            message=d.message.replace(f"at line {at}", f"at line {int(at) + shift}"),
                            facts=tuple((k, str(int(v) + shift) if k == "reduction_line" else v) for k, v in d.facts))
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None,
                   timeout=120)


def test_a_max_over_undefined_lanes_is_a_latent_confirmation(tmp_path: Path) -> None:
    w = _witness(tmp_path, 0)
    # not-reproduced without the undefined-lane run: "outputs equal the run with the masked-off lanes set to -inf"
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence.get("undefined_lanes") == "max", w.evidence
    assert "largest finite value" in w.reason and "latent:" in w.reason
    assert w.evidence.get("latent")
    assert w.second_run is None  # no repro script: its first run fills 0, as the hardware does


def test_a_load_that_writes_its_fill_is_not_judged_by_undefined_lanes(tmp_path: Path) -> None:
    w = _witness(tmp_path, SHIFT)
    assert w.status == "not-reproduced", w.reason


def test_which_loads_leave_their_lanes_undefined() -> None:
    text = textwrap.dedent("""\
        a = tl.load(P + o, mask=o < n)
        b = tl.load(P + o, mask=o < n, other=0)
        c = tl.load(P + o, o < n, 0)
        d = tl.load(P + o)
        e = tl.load(P + o, o < n)
    """)
    assert [loads_without_other(text, line, 5) for line in range(1, 6)] == [True, False, False, False, True]
