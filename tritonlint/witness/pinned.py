"""Which launch site to synthesize from: the one whose literal constexprs take the branches the flagged
line sits under. A kernel launched from two places (`IS_KDA=False` in its own module, `IS_KDA=True` in a
neighbour) reaches a line under `if IS_KDA:` only from the second; the first site's facts would launch a
kernel that never runs the line."""

from __future__ import annotations

from typing import Any

from tritonlint.witness.constraints import broken, locals_of, reaching
from tritonlint.witness.synth import launch_literal


def reaching_first(extracted: Any, line: int, launches: list[Any]) -> list[Any]:
    """`launches` with those whose literal arguments take the line's constexpr branches first (stable:
    otherwise in their order). Arguments that are no literal decide nothing."""
    fn = extracted.kernel.node
    if len(launches) < 2 or not (fn.lineno <= line <= (fn.end_lineno or fn.lineno)):
        return launches
    reach = reaching(fn, line)
    if not reach:
        return launches
    local = locals_of(fn)

    def missed(launch: Any) -> int:
        env = {p: v for p, text in launch.args.items() if (v := launch_literal(text)) is not None}
        return len(broken(reach, env, local))

    return sorted(launches, key=missed)
