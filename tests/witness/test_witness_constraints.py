"""The kernel's own constraints on its constexprs: `tl.static_assert` (in the kernel, under a constexpr
branch, in a jit helper it calls) and non-empty power-of-two `tl.arange`s. A launch that breaks one
does not compile, so the synthesizer must choose constexprs that keep them."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.constraints import broken, constraints_of, locals_of, satisfy
from tritonlint.witness.runner import witness

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def _check_block(B: tl.constexpr):
        tl.static_assert(B % 128 == 0, "B must be a multiple of 128")


    @triton.jit
    def blocked_copy(X, Out, n, BLOCK: tl.constexpr, MODE: tl.constexpr):
        if MODE == "packed":
            tl.static_assert(BLOCK % 256 == 0)
        _check_block(BLOCK)
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Out + offs, x, mask=offs < n)


    @triton.jit
    def grouped_scale(X, S, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        g = tl.program_id(0) * (BLOCK // 128) + tl.arange(0, BLOCK // 128)
        s = tl.load(S + g, mask=g < n // 128, other=1.0)
        x = tl.load(X + offs)
        tl.store(Out + offs, x * tl.sum(s), mask=offs < n)
""")


def _witness_line(tmp_path: Path, line: int) -> object:
    path = tmp_path / "asserted.py"
    path.write_text(KERNELS)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line)
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=120)


def test_static_asserts_in_a_branch_and_a_helper_choose_the_tile(tmp_path: Path) -> None:
    # Before: BLOCK = 16 (and 64 on the retry) broke `B % 128 == 0`: "AssertionError" under the interpreter.
    w = _witness_line(tmp_path, 16)
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    launch = w.launch  # type: ignore[attr-defined]
    block = next(a["value"] for a in launch["args"] if a["name"] == "BLOCK")
    mode = next(a["value"] for a in launch["args"] if a["name"] == "MODE")
    assert block % 128 == 0
    assert mode != "packed" or block % 256 == 0


def test_a_tile_derived_arange_is_never_empty(tmp_path: Path) -> None:
    # Before: `tl.arange(0, BLOCK // 128)` with BLOCK = 16 or 64 is empty: the kernel did not run.
    w = _witness_line(tmp_path, 25)
    assert w.status == "confirmed", w.reason  # type: ignore[attr-defined]
    assert w.evidence is not None and w.evidence["tensor"] == "X"  # type: ignore[attr-defined]


def _kernel(src: str) -> ast.FunctionDef:
    fn = ast.parse(textwrap.dedent(src)).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return fn


def test_constraints_under_a_branch_not_taken_constrain_nothing() -> None:
    fn = _kernel("""\
        def k(X, BLOCK: tl.constexpr, IS_MX: tl.constexpr):
            is_mx = IS_MX
            if is_mx:
                tl.static_assert(BLOCK % 64 == 0)
    """)
    rules = constraints_of(fn, {})
    local = locals_of(fn)
    assert not broken(rules, {"BLOCK": 16, "IS_MX": False}, local)
    assert broken(rules, {"BLOCK": 16, "IS_MX": True}, local)
    # Only the names the synthesizer chose move: IS_MX is the finding's, BLOCK is free.
    env, still = satisfy(rules, {"BLOCK": 16, "IS_MX": True}, ["BLOCK"], local)
    assert not still and env["IS_MX"] is True and env["BLOCK"] % 64 == 0
    env, still = satisfy(rules, {"BLOCK": 16, "IS_MX": True}, [], local)
    assert still and env["BLOCK"] == 16


def test_runtime_values_and_dtypes_are_read_or_left_alone() -> None:
    fn = _kernel("""\
        def k(X, n, dt: tl.constexpr, BLOCK: tl.constexpr):
            tl.static_assert(dt == tl.bfloat16 or dt == tl.float16)
            tl.static_assert(n % BLOCK == 0)
            tl.static_assert(X.dtype.element_ty == tl.uint8)
    """)
    rules = constraints_of(fn, {})
    env, still = satisfy(rules, {"dt": {"dtype": "float32"}, "BLOCK": 16}, ["dt", "BLOCK"], {})
    assert not still  # the runtime size and the pointer's dtype are unknown: not judged here
    assert env["dt"] in ({"dtype": "bfloat16"}, {"dtype": "float16"}) and env["BLOCK"] == 16


def test_an_annotated_local_reads_a_module_constant() -> None:
    from tritonlint.witness.constraints import module_constants

    source = textwrap.dedent("""\
        import triton.language as tl
        try:
            MXFP_BLOCK_SIZE = tl.constexpr(32)
        except Exception:
            pass


        def k(X, BLOCK_K: tl.constexpr, MX: tl.constexpr):
            PACK: tl.constexpr = MXFP_BLOCK_SIZE
            if MX:
                tl.static_assert(BLOCK_K % PACK == 0)
    """)
    tree = ast.parse(source)
    fn = tree.body[-1]
    assert isinstance(fn, ast.FunctionDef)
    local = {**module_constants(source), **locals_of(fn)}
    rules = constraints_of(fn, {})
    env, still = satisfy(rules, {"BLOCK_K": 16, "MX": True}, ["BLOCK_K"], local)
    assert not still and env["BLOCK_K"] == 32


BRANCHED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def gated(X, G, Out, n, BLOCK: tl.constexpr, PER_ELEMENT: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n, other=0.0)
        if not PER_ELEMENT:
            g = tl.load(G)
        else:
            g = tl.load(G + offs)
        tl.store(Out + offs, x * g, mask=offs < n)
""")


def test_the_constexpr_branch_of_the_flagged_line_is_taken(tmp_path: Path) -> None:
    # Before: PER_ELEMENT was guessed False (a flag), the launch took the scalar branch and the flagged
    # load never ran: "stayed in bounds".
    path = tmp_path / "gated.py"
    path.write_text(BRANCHED)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 12)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    args = {a["name"]: a["value"] for a in (w.launch or {})["args"]}
    assert args["PER_ELEMENT"] is True
    assert w.evidence is not None and w.evidence["tensor"] == "G"


def test_reaching_reads_the_sides_of_nested_branches() -> None:
    fn = _kernel("""\
        def k(X, A: tl.constexpr, B: tl.constexpr):
            if A:
                pass
            else:
                if B == 2:
                    tl.load(X)
    """)
    from tritonlint.witness.constraints import reaching

    reach = reaching(fn, 6)
    assert [c.what for c in reach] == ["reach line 6: not A", "reach line 6: B == 2"]
    env, still = satisfy(reach, {"A": True, "B": 16}, ["A", "B"], {})
    assert not still and env == {"A": False, "B": 2}
