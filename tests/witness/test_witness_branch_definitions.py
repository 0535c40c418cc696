"""A flagged pointer defined on two constexpr branches (`if not WIDE: p = X + row` else
`p = X + row * K + offs`): the flagged load sits under neither branch, yet only the second definition
walks the offset the finding names.

Before: the constexpr took its guessed side (`WIDE = False`, the scalar definition), so the load
ran in bounds; and the buffer was sized by the first definition alone (one element per row), so a
launch on the walking side overran at full tiles too."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

GATE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def gate(X, Y, R, K, WIDE: tl.constexpr, BLOCK_K: tl.constexpr):
        row = tl.program_id(0)
        pid_k = tl.program_id(1)
        offs = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
        if not WIDE:
            p = X + row
        else:
            p = X + row * K + offs
        x = tl.load(p)
        tl.store(Y + row * K + offs, x, mask=offs < K)
""")


def _witnessed(tmp_path: Path) -> object:
    path = tmp_path / "gate.py"
    path.write_text(GATE)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 14)
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=120)


def test_the_branch_of_the_walking_definition_is_taken(tmp_path: Path) -> None:
    w = _witnessed(tmp_path)
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    args = {a["name"]: a for a in (w.launch or {})["args"]}  # type: ignore[attr-defined]
    assert args["WIDE"]["value"] is True
    assert w.evidence["tensor"] == "X"  # type: ignore[attr-defined]


def test_every_definition_of_a_pointer_local_is_read() -> None:
    extracted = extract(Path("gate.py"), GATE, "gate")
    uses = Uses(extracted.kernel, extracted.helpers)
    (load, _store) = uses.accesses
    # `dims` reads the first definition (one element per row); the other adds the row length and offsets.
    assert uses.dims(load, {"R", "K"}, set()) == [(None, ("grid", 0))]
    others = uses.other_definitions(load, {"R", "K"}, set())
    assert len(others) == 1 and ("K", ("grid", 0)) in others[0] and (None, ("size", "K")) in others[0]
