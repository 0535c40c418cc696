"""A branch no launch takes: the access sits under `if IS_KDA:` (or its `else`) and every launch
passes that parameter a literal that sends it the other way (`IS_KDA=False`).

The kernel is compiled per constexpr value and a runtime flag is tested per call: either way an
access under a test of a parameter runs only where some launch passes a value satisfying it. When
every launch in view passes `True`/`False`/`None`/an integer literal for which the test goes the
other way, no launch in view reaches the access: it is kept from the tail by the host (TL111/TL112,
naming the launches), not a default finding. A parameter the kernel reassigns is not read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tritonlint.semantic.ir import Access

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages

_TRUTH = {"True": True, "False": False, "None": False}


def uncompiled_branch(kernel: Stages, access: Access) -> str:
    """Why no launch reaches the access ("every launch passes `IS_KDA=False` (ops.py:12)"); "" when one may."""
    launches = kernel.launches
    if not launches:
        return ""
    for literal in sorted(access.path, key=lambda each: each.atom):
        atom = literal.atom
        defs = kernel.ir.defs.get(atom, ())
        if not atom.isidentifier() or not defs or any(d.kind != "param" for d in defs):
            continue
        values = [_truth(launch.args.get(atom, "")) for launch in launches]
        if all(value is not None and value != literal.value for value in values):
            given = sorted({f"`{atom}={launch.args[atom]}` ({launch.where})" for launch in launches})
            return f"no launch takes this branch: every launch passes {', '.join(given)}"
    return ""


def _truth(text: str) -> bool | None:
    if text in _TRUTH:
        return _TRUTH[text]
    if text.lstrip("-").isdigit():
        return int(text) != 0
    return None
