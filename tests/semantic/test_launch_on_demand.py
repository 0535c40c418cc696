"""The launch facts only the witness reads (`Launch.live_callers`, `unknown_multiples`, `admitted`,
`offered`) are worked out on their first read (`OnDemand`): `check` never reads them, and the witness
reads the same facts as when they were worked out at once (test_launch_latent_tables reads their
values). `Launch.multiples` too: `check` reads them only where a hazard's tile may be kept whole."""

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


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[OnDemand[object, object]]:
    """Every on-demand fact made from now on, in the order made."""
    made: list[OnDemand[object, object]] = []
    original = OnDemand.__init__

    def counted(self: OnDemand[object, object], compute: object) -> None:
        original(self, compute)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(launches_module.OnDemand, "__init__", counted)
    return made


def test_check_reads_no_witness_only_fact(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _counting(monkeypatch)
    findings = _check()
    assert findings, "the fixture's tail load is a finding"
    # One launch: its multiples (read by `check` only where a hazard asks), then its four
    # witness-only facts (live callers, unknown multiples, admitted values, offered predicates).
    assert len(made) == 5
    assert not any(fact.computed for fact in made[1:]), "check read a witness-only fact"
    # Read now, they are what the witness reads (and come out of a pickle as plain dicts).
    admitted, unknown = made[3], made[2]
    assert dict(admitted) == {"K": ((1024, 2048), admitted["K"][1])}, admitted
    assert set(unknown) == {("A", "alignment()"), ("M", "alignment()")}, unknown
    assert pickle.loads(pickle.dumps(admitted)) == dict(admitted)
    assert type(pickle.loads(pickle.dumps(admitted))) is dict


# Every access masked: no hazard asks whether the host keeps a tile whole.
MASKED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def row_sums(A, Out, K, BLOCK_K: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            offs = k + tl.arange(0, BLOCK_K)
            acc += tl.load(A + row * K + offs, mask=offs < K)
        tl.store(Out + row, tl.sum(acc, axis=0))


    def run(a, out):
        m, k = a.shape
        assert k % 64 == 0
        row_sums[(m,)](a, out, k, BLOCK_K=64)
""")
# The same loop unmasked: its last tile is whole only because the host asserts it.
UNMASKED = MASKED.replace("mask=offs < K", "").replace(", )", ")")


def _multiples_made(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[OnDemand[object, object], list[str]]:
    made = _counting(monkeypatch)
    report = check_source("ops.py", text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    return made[0], [f"{d.code} {d.notes[-1]}" for d in report.diagnostics]


def test_a_launchs_multiples_are_not_worked_out_where_no_hazard_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    multiples, findings = _multiples_made(monkeypatch, MASKED)
    assert findings == []
    assert not multiples.computed
    assert dict(multiples) == {("K", "BLOCK_K"): "`assert k % 64 == 0` at ops.py:17"}  # what it would have said


def test_a_launchs_multiples_still_guard_a_loops_last_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    multiples, findings = _multiples_made(monkeypatch, UNMASKED)
    assert findings == ["TL111 every launch keeps the loop's tiles whole: `assert k % 64 == 0` at ops.py:17"]
    assert multiples.computed


# The loop's last tile kept whole by an autotune pruner (`file_launches` adds its pairs to each
# launch's multiples, still read only when asked).
PRUNED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    def prune(configs, named_args, **kwargs):
        return [c for c in configs if named_args["K"] % c.kwargs["BLOCK_K"] == 0]


    @triton.autotune(configs=[triton.Config({"BLOCK_K": 64}), triton.Config({"BLOCK_K": 128})], key=["K"],
                     prune_configs_by={"early_config_prune": prune})
    @triton.jit
    def row_sums(A, Out, K, BLOCK_K: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            acc += tl.load(A + row * K + k + tl.arange(0, BLOCK_K))
        tl.store(Out + row, tl.sum(acc, axis=0))


    def run(a, out):
        m, k = a.shape
        row_sums[(m,)](a, out, k)
""")


def test_an_autotune_pruners_multiples_still_guard_a_loops_last_tile() -> None:
    report = check_source("ops.py", PRUNED, Config(select=check_selectors(["ALL"], "test")), strict=True)
    assert [(d.line, d.code, d.notes[-1]) for d in report.diagnostics] == [
        (16, "TL111", ("every launch keeps the loop's tiles whole: the autotune pruner `prune` keeps only configs "
                       "with `named_args['K'] % c.kwargs['BLOCK_K'] == 0` (ops.py:5)"))]
