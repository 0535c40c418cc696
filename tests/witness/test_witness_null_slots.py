"""Indices the kernel leaves on when null (`slot = tl.load(slots + seq)`; `if slot <= 0: return`) or
steps back from (`last = tl.load(counts + seq) - 1`): filled from 1, so the programs run.

Before: index tensors held 0, 1, 2, ...: every program of the first sequence (here every program:
`seq = pid // HEADS`) read the null slot 0 and returned, and the flagged tile never ran."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

STATE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def update_state(H0, Out, slots, counts, K, stride_slot, HEADS: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_k = tl.program_id(0)
        seq = tl.program_id(1) // HEADS
        slot = tl.load(slots + seq).to(tl.int64)
        if slot <= 0:
            return
        last = tl.load(counts + seq) - 1
        offs = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
        h = tl.load(H0 + slot * stride_slot + offs)
        tl.store(Out + seq * K + offs, h, mask=offs < K)
""")


def test_null_slots_and_counts_stepped_back_from_start_at_one() -> None:
    extracted = extract(Path("state.py"), STATE, "update_state")
    uses = Uses(extracted.kernel, extracted.helpers)
    assert uses.first_valid_index("slots") == 1
    assert uses.first_valid_index("counts") == 1
    assert uses.first_valid_index("H0") == 0


def test_the_programs_get_past_a_null_slot(tmp_path: Path) -> None:
    path = tmp_path / "state.py"
    path.write_text(STATE)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 14)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "H0"
    args = {a["name"]: a for a in (w.launch or {})["args"]}
    assert args["slots"]["fill"] == "index" and args["slots"]["value"] == 1
