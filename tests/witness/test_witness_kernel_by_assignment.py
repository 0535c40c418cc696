"""A kernel jitted by assignment with its decorators applied as calls,
`k = triton.autotune(...)(triton.heuristics({...})(triton.jit(k)))`, is a kernel the witness launches:
the heuristics of the assignment set its flag in the generated module as they do in the package. Before,
only a bare `k = triton.jit(k)` counted, and the finding was "in no jit function" (cannot-synthesize).
The kernel is the fixture's (weak-evenness-predicate/heuristics_by_assignment.py)."""

from __future__ import annotations

from pathlib import Path

from tests.witness.witness_cli import witness_json

FIXTURE = Path(__file__).parents[2] / "fixtures" / "weak-evenness-predicate" / "heuristics_by_assignment.py"


def test_a_kernel_jitted_by_assignment_with_heuristics_is_launched() -> None:
    line = next(i for i, t in enumerate(FIXTURE.read_text().splitlines(), 1) if "expect: TL101" in t)
    found = witness_json(FIXTURE, "--select", "TL101", "--timeout", "120")
    witness = next(d for d in found if d["code"] == "TL101" and d["line"] == line)["witness"]
    assert witness["status"] == "confirmed", witness["reason"]  # cannot-synthesize before
    assert "past the end of `X`" in witness["reason"], witness
