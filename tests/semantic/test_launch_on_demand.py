"""The launch facts only the witness reads (`Launch.live_callers`, `unknown_multiples`, `admitted`) are
worked out on their first read (`OnDemand`): `check` never reads them, and the witness reads the
same facts as when they were worked out at once (test_launch_latent_tables reads their values)."""

from __future__ import annotations

import pickle
import textwrap

import pytest

from tritonlint.config import Config, check_selectors
from tritonlint.engine import check_source
from tritonlint.semantic.host import launches as launches_module
from tritonlint.semantic.host.on_demand import OnDemand

# A kernel with a load past the tail, launched from a private function behind a table test, a
# divisor Python does not hold and a live caller's test: each witness-only fact has something to say.
TEXT = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from ._ext import alignment

    SHAPES = frozenset({(1024, 8), (2048, 16)})


    @triton.jit
    def tile_kernel(A, Out, M, K: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(A + offs)
        tl.store(Out + offs, x, mask=offs < M)


    def _launch(a, out):
        m, k = a.shape
        if (k, 8) not in SHAPES:
            raise ValueError(k)
        assert a.shape[0] % alignment() == 0
        tile_kernel[(triton.cdiv(m, 64),)](a, out, m, K=k, BLOCK=64)


    def run(a, out):
        assert a.shape[0] % 64 == 0
        _launch(a, out)
""")


def _check() -> list[tuple[int, str, str]]:
    report = check_source("ops.py", TEXT, Config(select=check_selectors(["ALL"], "test")), strict=True)
    return [(d.line, d.code, d.message) for d in report.diagnostics]


def test_check_reads_no_witness_only_fact(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[OnDemand[object, object]] = []
    original = OnDemand.__init__

    def counted(self: OnDemand[object, object], compute: object) -> None:
        original(self, compute)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(launches_module.OnDemand, "__init__", counted)
    findings = _check()
    assert findings, "the fixture's tail load is a finding"
    assert len(made) == 3, "one launch: its three witness-only facts"
    assert not any(fact.computed for fact in made), "check read a witness-only fact"
    # Read now, they are what the witness reads (and come out of a pickle as plain dicts).
    admitted, unknown = made[2], made[1]
    assert dict(admitted) == {"K": ((1024, 2048), admitted["K"][1])}, admitted
    assert set(unknown) == {("A", "alignment()"), ("M", "alignment()")}, unknown
    assert pickle.loads(pickle.dumps(admitted)) == dict(admitted)
    assert type(pickle.loads(pickle.dumps(admitted))) is dict
