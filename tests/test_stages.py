"""The analysis stages' answers, one stage at a time: walks, flags, mask bounds, facts, judgements.

The fixtures test the whole pipeline end to end; these pin what each stage hands forward, so a
change that breaks one stage fails here, naming the stage, before it shows as a changed finding.
"""

from __future__ import annotations

import textwrap

from tritonlint.config import Config
from tritonlint.engine import build_model, parse_kernels
from tritonlint.triton.model import KernelModel
from tritonlint.triton.outline import line_starts
from tritonlint.triton.paths import Literal

HEADER = "import triton\nimport triton.language as tl\n\n\n"


def _model(body: str) -> KernelModel:
    text = HEADER + textwrap.dedent(body)
    imports, kernels = parse_kernels(text)
    (kernel, module), = kernels
    return build_model(kernel, module, imports, Config(), text, line_starts(text))


def _access(model: KernelModel, line: int):  # type: ignore[no-untyped-def]
    """The access on a line of the kernel body (1 = the `@triton.jit` line)."""
    found = [a for a in model.accesses if model.line_of(a.call) == line + 4]
    assert len(found) == 1, found
    return found[0]


GEMM = """\
@triton.jit
def k(X, W, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            x = tl.load(X + k + offs_k)
            w = tl.load(W + k + offs_k)
        else:
            x = tl.load(X + k + offs_k, mask=offs_k < K - k, other=0.0)
            w = tl.load(W + k + offs_k)
"""


def test_walks_name_the_offset_and_the_loop_that_advances_it() -> None:
    model = _model(GEMM)
    (walk,) = model.walker.walks(_access(model, 10))
    assert model.ev.label(walk.dim or "") == "offs_k"
    assert walk.loop is not None and walk.loop.tiles == "partial"
    assert model.describe_walk(walk) == "`offs_k` (tiles of BLOCK_K), advanced by the loop at line 8"


def test_a_scalar_access_walks_nothing() -> None:
    model = _model("""\
        @triton.jit
        def k(X, Y):
            tl.store(Y, tl.load(X))
        """)
    assert [model.walker.walks(a) for a in model.accesses] == [[], []]


def test_the_flag_recogniser_learns_even_k_from_how_the_twins_differ() -> None:
    model = _model(GEMM.replace("EVEN_K", "FULL"))  # no name hint: learnt by usage alone
    (flag,) = model.flags.flags
    assert (flag.atom, flag.even, flag.source) == ("FULL", True, "usage")
    assert any(model.ev.label(dim) == "offs_k" for dim in flag.dims)


def test_a_layout_switch_with_different_pointers_is_no_flag() -> None:
    model = _model("""\
        @triton.jit
        def k(X, Y, n, BLOCK: tl.constexpr, SHARED: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            if SHARED:
                v = tl.load(Y)
            else:
                v = tl.load(X + offs, mask=offs < n)
        """)
    assert model.flags.flags == []


def test_the_evaluator_reads_what_a_mask_bounds_on_each_side_of_a_flag() -> None:
    model = _model(GEMM)
    masked = _access(model, 9)
    bounded = model.ev.mask_dims(masked)
    assert bounded is not None and {model.ev.label(d) for d in bounded if not d.startswith("loop:")} == {"offs_k"}
    assert model.ev.mask_dims(_access(model, 10)) == frozenset()


def test_a_mask_from_a_parameter_cannot_be_read() -> None:
    model = _model("""\
        @triton.jit
        def k(X, m, BLOCK: tl.constexpr):
            tl.load(X + tl.arange(0, BLOCK), mask=m)
        """)
    assert model.ev.mask_dims(model.accesses[0]) is None


def test_a_judgement_keeps_the_evidence_and_the_tail_side() -> None:
    model = _model(GEMM)
    (judged,) = model.hazards.judgements(_access(model, 10))
    assert judged.hazard is not None
    assert judged.hazard.tail == Literal("EVEN_K", False)
    assert judged.hazard.evidence == "EVEN_K is an evenness flag for this dimension (by how the kernel uses it)"
    (even,) = model.hazards.judgements(_access(model, 7))
    assert even.hazard is None and even.reason == "runs only when EVEN_K is True: full tiles there"
    (masked,) = model.hazards.judgements(_access(model, 9))
    assert masked.hazard is None and masked.reason == "the mask bounds it on the tail side of EVEN_K"


def test_a_full_tile_loop_is_a_fact_with_its_reason() -> None:
    model = _model("""\
        @triton.jit
        def k(X, K, BLOCK_K: tl.constexpr):
            offs_k = tl.arange(0, BLOCK_K)
            for k in range(K // BLOCK_K):
                tl.load(X + k * BLOCK_K + offs_k)
            tl.load(X + offs_k, mask=offs_k < K)
        """)
    judgements = list(model.hazards.judgements(_access(model, 5)))
    assert [j.hazard for j in judgements] == [None]
    assert judgements[0].fact is not None and judgements[0].fact.idiom == "full-tile-loop"


def test_a_static_assert_makes_the_loop_full_and_says_so() -> None:
    model = _model("""\
        @triton.jit
        def k(X, K, BLOCK_K: tl.constexpr):
            tl.static_assert(K % BLOCK_K == 0)
            offs_k = tl.arange(0, BLOCK_K)
            for k in range(0, K, BLOCK_K):
                tl.load(X + k + offs_k)
        """)
    (judged,) = model.hazards.judgements(_access(model, 6))
    assert judged.hazard is None and judged.fact is not None
    assert judged.fact.idiom == "full-tile-loop"
    assert judged.fact.reason.endswith("the kernel asserts K % BLOCK_K == 0")


def test_an_if_on_divisibility_is_a_divisible_extent_fact() -> None:
    model = _model("""\
        @triton.jit
        def k(X, K, BLOCK_K: tl.constexpr):
            offs_k = tl.arange(0, BLOCK_K)
            for k in range(0, K, BLOCK_K):
                if K % BLOCK_K == 0:
                    tl.load(X + k + offs_k)
                tl.load(X + k + offs_k, mask=offs_k < K - k)
        """)
    (judged,) = model.hazards.judgements(_access(model, 6))
    assert judged.hazard is None and judged.fact is not None
    assert judged.fact.idiom == "divisible-extent"
    assert judged.fact.reason == "the path condition holds K % BLOCK_K == 0: every tile is full"


def test_a_peeled_tail_is_a_fact_naming_the_masked_access() -> None:
    model = _model("""\
        @triton.jit
        def k(X, K, BLOCK_K: tl.constexpr):
            offs_k = tl.arange(0, BLOCK_K)
            for k in range(0, K, BLOCK_K):
                tl.load(X + k + offs_k)
            tl.load(X + offs_k, mask=offs_k < K)
        """)
    (judged,) = model.hazards.judgements(_access(model, 5))
    assert judged.fact is not None and judged.fact.idiom == "peeled-tail"
    assert "line 10" in judged.fact.reason


def test_the_flag_recogniser_answers_verify_per_kernel_with_the_even_value() -> None:
    from tritonlint.engine import evenness_flags

    text = (HEADER + textwrap.dedent(GEMM).replace("EVEN_K", "MASK_K").replace("if MASK_K:", "if not MASK_K:"))
    # learnt by usage, whatever the name says: MASK_K False is the side with full tiles
    assert evenness_flags(text, Config()) == {"k": {"MASK_K": False}}
    assert evenness_flags("def broken(:\n", Config()) == {}
