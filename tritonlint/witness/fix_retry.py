"""The retry that settles a fix which failed at guessed tiles, on a deadline of its own.

A tile nobody passes is the witness's guess, and some fixes can only be judged at a larger one (a
swizzled scale layout that holds K rounded up to 64 lanes overruns the host's padding only past it).
That retry used to share the finding's deadline with every attempt before it, so on a loaded machine it
ran out of time and the fix's verdict stayed `failed`: a verdict that depended on the load. Here it gets
the whole per-finding time again, and a retry that still runs out of time leaves the fix `not-run`,
saying so: an unsettled fix is never reported as a wrong one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar


class _Verdict(Protocol):
    """What this module reads and writes of runner.Witness (not imported: the runner imports this)."""

    status: str
    reason: str
    launch: dict[str, Any] | None
    validation: dict[str, str] | None


Witness = TypeVar("Witness", bound=_Verdict)

# How `_child` words a run killed at its time limit (runner._child); the retry's own verdict then says
# nothing about the fix.
OUT_OF_TIME = "the run took longer than"


def settle_failed_fix(failed: Witness, retry: Callable[..., Witness | None], budget: float, tile: int) -> Witness:
    """`failed` is confirmed with its fix failed at guessed tiles; `retry(deadline=...)`
    runs the finding once more at tiles of `tile` (None: those are the launches already tried). The
    retry's confirmation replaces `failed` where the fix validates there; where the retry ran out of its
    own `budget` seconds, the fix is `not-run`; otherwise the failure stands."""
    again = retry(deadline=time.monotonic() + budget)
    validation = failed.validation or {}
    small = (failed.launch or {}).get("label", "the first launch")
    if again is None:
        return failed
    if again.status == "error" and again.reason.startswith(OUT_OF_TIME):
        failed.validation = {"status": "not-run", "reason": (
            f"out of time: the fix failed at {small}, with guessed tiles ({validation.get('reason', '')[:200]}), "
            f"and the run at tiles of {tile} that settles it did not finish in its own {budget:g} s "
            f"({again.reason})")}
        return failed
    if again.status == "confirmed" and (again.validation or {}).get("status") == "validated":
        again.reason += (f" (at {small}, with guessed tiles, the fix failed: "
                         f"{validation.get('reason', '')[:200]})")
        return again
    return failed
