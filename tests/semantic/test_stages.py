"""The analysis stages' answers, one stage at a time: walks, flags, mask bounds, facts, judgements.

The fixtures test the whole pipeline end to end; these pin what each stage hands forward, so a
change that breaks one stage fails here, naming the stage, before it shows as a changed finding.
"""

from __future__ import annotations

import textwrap

from tritonlint.config import Config
from tritonlint.engine import build_model, parse_kernels
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.paths import Literal
from tritonlint.source.names import code_of
from tritonlint.source.outline import line_starts

HEADER = "import triton\nimport triton.language as tl\n\n\n"


def _model(body: str) -> KernelContext:
    text = HEADER + textwrap.dedent(body)
    imports, kernels = parse_kernels(text)
    (kernel, module), = kernels
    return build_model(kernel, module, imports, Config(), text, line_starts(text))


def _access(model: KernelContext, line: int):  # type: ignore[no-untyped-def]
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


def test_a_layout_switch_of_one_pointer_name_is_no_flag() -> None:
    """One pointer name, assigned on both sides of the condition: the sides address different
    tensors, so the unmasked side promises nothing about full tiles (`_switches_layout`)."""
    model = _model("""\
        @triton.jit
        def k(X, Y, n, BLOCK: tl.constexpr, SHARED: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            if SHARED:
                p = Y + offs
                v = tl.load(p)
            else:
                p = X + offs
                v = tl.load(p, mask=offs < n)
        """)
    assert model.flags.flags == []


def test_the_same_pointer_name_assigned_once_is_a_flag() -> None:
    """The control for the test above: `p` built once, before the condition, so the two loads read
    one tile and the condition is learnt as an evenness flag."""
    model = _model("""\
        @triton.jit
        def k(X, n, BLOCK: tl.constexpr, SHARED: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            p = X + offs
            if SHARED:
                v = tl.load(p)
            else:
                v = tl.load(p, mask=offs < n)
        """)
    (flag,) = model.flags.flags
    assert (flag.atom, flag.even, flag.source) == ("SHARED", True, "usage")
    assert {model.ev.label(dim) for dim in flag.dims} == {"offs"}


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


# ---------------------------------------------------------------- exact answers of small helpers
# (each pins one function the mutation run showed unpinned; docs/testing/mutation.md names them)


def test_what_the_binder_records_for_each_kind_of_definition() -> None:
    model = _model("""\
        @triton.jit
        def k(X, n, BLOCK: tl.constexpr, SMALL: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            HALF: tl.constexpr = 1 if SMALL else 2
            m = offs < n
            m &= offs >= 0
            tl.load(X + offs, mask=m)
        """)
    defs = model.ir.defs
    assert [(d.kind, d.constexpr) for d in defs["n"]] == [("param", False)]
    assert [(d.kind, d.constexpr) for d in defs["BLOCK"]] == [("param", True)]
    assert [(d.kind, d.constexpr) for d in defs["offs"]] == [("assign", False)]
    # `A if C else B`: one definition a side, each keeping the constexpr annotation
    assert [(code_of(d.value), d.constexpr) for d in defs["HALF"] if d.value is not None] == [("1", True), ("2", True)]
    # `m &= x` is `m = m & (x)`: a mask, not an advance
    assert [(d.kind, code_of(d.value), d.constexpr) for d in defs["m"] if d.value is not None] == \
        [("assign", "offs<n", False), ("assign", "m&(offs>=0)", False)]


def test_a_while_tile_loop_walks_like_its_range() -> None:
    """`i = 0` / `while i < n:` / `i += BLOCK` is `for i in range(0, n, BLOCK)`: a tile loop whose
    last tile can be partial, over the counter alone."""
    model = _model("""\
        @triton.jit
        def k(X, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            i = 0
            while i < n:
                tl.load(X + i + offs)
                i += BLOCK
        """)
    (loop,) = model.ir.loops
    assert (loop.key, loop.tiles, loop.text, loop.targets) == ("loop:0", "partial", "range(0,n,BLOCK)", frozenset({"i"}))
    assert _access(model, 6).loops == (loop,)


def test_a_while_loop_of_another_shape_is_a_loop_of_unknown_tiles() -> None:
    """A counter moved twice, or compared in another way, says nothing of its tiles."""
    model = _model("""\
        @triton.jit
        def k(X, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            i = 0
            while i < n:
                tl.load(X + i + offs)
                i += BLOCK
                if i > 3:
                    i += 1
            j = 0
            while j != n:
                tl.load(X + j + offs)
                j += BLOCK
        """)
    first, second = model.ir.loops
    assert (first.tiles, first.text, first.targets, first.iterable) == ("unknown", "i<n", frozenset({"i", "n"}), None)
    assert (second.tiles, second.text, second.targets, second.iterable) == ("unknown", "j!=n", frozenset({"j", "n"}), None)


def test_which_conditions_can_be_flags() -> None:
    from tritonlint.semantic.flags import _can_be_flag

    assert [_can_be_flag(atom) for atom in ("True", "False", "None", "0", "-1", "EVEN_K", "K % BLOCK_K == 0")] == \
        [False, False, False, False, False, True, True]


def test_what_the_evaluator_calls_run_time() -> None:
    import libcst as cst

    model = _model("""\
        @triton.jit
        def k(X, n, stride, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(X + offs)
            y = x + 1
            z = offs + BLOCK
        """)
    ev = model.ev
    assert [ev.runtime_stride(name) for name in ("stride", "n", "BLOCK", "offs", "no_such_name")] == \
        [True, True, False, False, False]
    assert [ev.runtime(cst.Name(name), 0) for name in ("y", "x", "n", "z", "BLOCK")] == [True, True, True, False, False]


def test_a_block_pointer_dimension_has_no_size_in_a_text() -> None:
    model = _model("""\
        @triton.jit
        def k(X, M, K, stride, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
            bp = tl.make_block_ptr(X, (M, K), (stride, 1), (0, 0), (BLOCK_M, BLOCK_K), (1, 0))
            for k in range(0, K, BLOCK_K):
                x = tl.load(bp)
                bp = tl.advance(bp, (0, BLOCK_K))
        """)
    dims = [w.dim for w in model.walker.walks(_access(model, 5))]
    assert dims and all(d is not None and d.endswith("]") for d in dims)
    assert [model.ev.size_in(d or "", "BLOCK_K BLOCK_M K M") for d in dims] == [False] * len(dims)


def test_the_stop_of_a_loop_as_written() -> None:
    from tritonlint.semantic.facts.peeled_tail import _loop_stop

    model = _model("""\
        @triton.jit
        def k(X, n, last, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            for i in range(n):
                tl.load(X + i)
            for i in range(1, n):
                tl.load(X + i)
            for i in range(0, last, BLOCK):
                tl.load(X + i + offs)
            for i in range(0, last - 1, BLOCK):
                tl.load(X + i + offs)
        """)
    assert [_loop_stop(loop) for loop in model.ir.loops] == ["n", "n", "last", None]


def test_a_one_element_tile_is_a_fact_by_its_name() -> None:
    model = _model("""\
        @triton.jit
        def k(X, n, BLOCK_M: tl.constexpr):
            offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
            if BLOCK_M == 1:
                tl.load(X + offs)
            tl.store(X + offs, 0.0, mask=offs < n)
        """)
    (judged,) = model.hazards.judgements(_access(model, 5))
    assert judged.hazard is None and judged.fact is not None
    assert (judged.fact.idiom, judged.fact.reason) == \
        ("one-row-tile", "the path holds BLOCK_M == 1: a one-element tile is never partial")


def test_a_model_built_without_its_source_text_reads_the_tree() -> None:
    """`KernelContext(...)` without `source=` (the engine passes the text to save a re-print) reads
    the same facts from the module's own code."""
    from tritonlint.engine import _function_in

    text = HEADER + GEMM
    imports, kernels = parse_kernels(text)
    (_, module), = kernels
    model = KernelContext(module, _function_in(module), imports)
    assert [(f.atom, f.even, f.source) for f in model.flags.flags] == [("EVEN_K", True, "usage"), ("EVEN_K", True, "name")]
    assert [model.line_of(a.call) for a in model.accesses] == [6, 7, 9, 10]


def test_what_each_mask_shape_bounds() -> None:
    """`mask_dims`: the offsets a mask bounds, or None for a mask the analysis cannot see into (a
    parameter, or a value built from one)."""
    model = _model("""\
        @triton.jit
        def k(X, m, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            a = offs < n
            h1 = a
            h2 = h1
            h3 = h2
            h4 = h3
            h5 = h4
            h6 = h5
            h7 = h6
            h8 = h7
            tl.load(X + offs, mask=~m)
            tl.load(X + offs, mask=tl.where(offs < n, False, m))
            tl.load(X + offs, mask=tl.broadcast_to(m, (BLOCK,)))
            tl.load(X + offs, mask=a.to(tl.int1))
            tl.load(X + offs, mask=tl.broadcast_to(a, (BLOCK,)))
            tl.load(X + offs, mask=(offs < n) | (offs < 2 * n))
            tl.load(X + offs, mask=(offs < n) | m)
            tl.load(X + offs, mask=h8)
            tl.load(X + offs, mask=False)
        """)

    def bounds(line: int) -> set[str] | None:
        dims = model.ev.mask_dims(_access(model, line))
        return None if dims is None else {model.ev.label(d) for d in dims}

    assert [bounds(line) for line in range(13, 22)] == \
        [None, None, None, {"offs"}, {"offs"}, {"offs"}, None, {"offs"}, set()]


def test_each_flag_source_names_the_dimension_and_the_loop() -> None:
    """A `@triton.heuristics` evenness test and a flag's name say which block size they are about
    (`BLOCK_K`, `K`): each covers the offsets of that size and the loop stepping through it."""
    model = _model("""\
        @triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
        @triton.jit
        def k(X, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
            offs_k = tl.arange(0, BLOCK_K)
            for k in range(0, K, BLOCK_K):
                if EVEN_K:
                    x = tl.load(X + k + offs_k)
                else:
                    x = tl.load(X + k + offs_k, mask=offs_k < K - k)
        """)
    assert [(f.atom, f.even, f.source, sorted(f.dims)) for f in model.flags.flags] == [
        ("EVEN_K", True, source, ["arange(0,BLOCK_K)", "loop:0"]) for source in ("usage", "heuristics", "name")]


def test_the_names_that_hold_a_mask() -> None:
    import libcst as cst

    model = _model(GEMM)
    roots = model.flags._mask_roots(cst.parse_expression(
        "tl.broadcast_to(mask_k, (B,)) & (m.to(tl.int1) | (c if F else d[None, :])) & (offs < K)"))
    assert roots == {"mask_k", "m", "c", "d"}


def test_the_comparisons_a_mask_is_built_from_and_the_names_a_pointer_is_computed_from() -> None:
    model = _model("""\
        @triton.jit
        def k(X, I, n, m, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            rows = offs < n
            page = tl.load(I + offs // 4)
            tl.load(X + page * BLOCK + offs, mask=rows & (offs >= 0) & (offs + 1 < m))
            tl.load(X + tl.load(I + offs // 4) * BLOCK + offs)
        """)
    access = _access(model, 6)
    assert sorted(code_of(c) for c in model.flow.mask_comparisons(access)) == ["(offs+1<m)", "(offs>=0)", "offs<n"]
    # an index read from memory is data: the names inside the load are not followed
    assert model.flow.computed_from(access) == {"X", "page", "tl", "BLOCK", "offs"}  # `tl` of `tl.load`
    outer = next(a for a in model.accesses if "load" in code_of(a.pointer))
    assert model.flow.computed_from(outer) == {"X", "tl", "BLOCK", "offs"}


def test_tl_range_and_static_range_are_tile_loops() -> None:
    model = _model("""\
        @triton.jit
        def k(X, K, BLOCK_K: tl.constexpr):
            offs_k = tl.arange(0, BLOCK_K)
            for k in tl.range(0, K, BLOCK_K):
                tl.load(X + k + offs_k)
            for k in tl.static_range(0, K, BLOCK_K):
                tl.load(X + k + offs_k)
            for k in range(0, K // BLOCK_K):
                tl.load(X + k * BLOCK_K + offs_k)
            for k in my_range(0, K, BLOCK_K):
                tl.load(X + k + offs_k)
        """)
    assert [loop.tiles for loop in model.ir.loops] == ["partial", "partial", "full", "unknown"]


def test_a_helper_argument_replaces_its_parameter_as_one_operand() -> None:
    import libcst as cst

    from tritonlint.semantic.verdicts import _Substitute

    bound = {"x": cst.parse_expression("a + b"), "y": cst.Name("z")}
    result = cst.parse_expression("x * 2 + y + w").visit(_Substitute(bound))
    assert cst.Module([]).code_for_node(result) == "(a + b) * 2 + z + w"


def test_a_scratch_page_is_indexed_by_the_program_not_by_a_stride() -> None:
    """`P + pid * (BLOCK_M * BLOCK_N) + rows[:, None] * BLOCK_N + cols[None, :]` is the program's own
    page; the same shape with a run-time parameter `s` added to the program id is a tile of some
    tensor (`s` may be a stride), not a page."""
    model = _model("""\
        @triton.jit
        def k(P, C, s, M, N, stride_c, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
            pid = tl.program_id(0)
            rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
            rn = tl.arange(0, BLOCK_N)
            rows = tl.arange(0, BLOCK_M)
            cols = tl.arange(0, BLOCK_N)
            tl.store(P + pid * BLOCK_M * BLOCK_N + rows[:, None] * BLOCK_N + cols[None, :], 0.0)
            tl.store(P + (pid + s) * BLOCK_M * BLOCK_N + rows[:, None] * BLOCK_N + cols[None, :], 0.0)
            tl.store(C + rm[:, None] * stride_c + rn[None, :], 0.0, mask=(rm < M)[:, None] & (rn < N)[None, :])
        """)
    judged = [[(j.hazard is not None, j.fact.idiom if j.fact else None) for j in model.hazards.judgements(_access(model, line))]
              for line in (8, 9)]
    # rows: masked by the store to C (evidence of a partial tile); cols: no evidence either way
    assert judged == [[(False, None), (False, "scratch-page")], [(False, None), (True, None)]]


def test_a_pointer_advanced_by_a_block_size_walks_its_loop_without_an_offset_name() -> None:
    """`X += BLOCK_K * stride` moves a tile a step, though no offset of size BLOCK_K is in the pointer."""
    model = _model("""\
        @triton.jit
        def k(X, K, stride, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
            offs_n = tl.arange(0, BLOCK_N)
            for k in range(0, K, BLOCK_K):
                tl.load(X + offs_n)
                X += BLOCK_K * stride
        """)
    walks = model.walker.walks(_access(model, 5))
    assert [(model.ev.label(w.dim) if w.dim else None, w.loop.key if w.loop else None) for w in walks] == \
        [("offs_n", None), (None, "loop:0")]


def test_a_pointer_variable_never_names_a_dimension() -> None:
    """`p = X + tl.arange(0, BLOCK)`: `p` is a pointer (built from the pointer parameter X), so the
    dimension keeps its arange as its label."""
    model = _model("""\
        @triton.jit
        def k(X, n, BLOCK: tl.constexpr):
            p = X + tl.arange(0, BLOCK)
            tl.load(p, mask=tl.arange(0, BLOCK) < n)
        """)
    assert [model.ev.label(w.dim or "") for w in model.walker.walks(_access(model, 4))] == ["tl.arange(0,BLOCK)"]
    assert model.ev.dim_owners == {}
