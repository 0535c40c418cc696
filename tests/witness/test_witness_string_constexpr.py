"""A constexpr nobody gives a value and that the kernel hands to a string option of the language
(`tl.dot(..., input_precision=PRECISION)`) is a string valid everywhere, not the default tile 16
(`'int' object has no attribute 'lower'` stopped the kernel before it reached the finding)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tritonlint.witness.extract import extract
from tritonlint.witness.synth import Facts, synthesize

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def tile_products(A, B, C, n, PRECISION: tl.constexpr, HINT: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        cols = tl.arange(0, BLOCK)
        a = tl.load(A + offs[:, None] * BLOCK + cols[None, :], mask=offs[:, None] < n)
        b = tl.load(B + cols[:, None] * BLOCK + cols[None, :], eviction_policy=HINT)
        c = tl.dot(a, b, input_precision=PRECISION)
        tl.store(C + offs[:, None] * BLOCK + cols[None, :], c)
""")


def test_a_constexpr_given_to_a_string_option_is_a_valid_string() -> None:
    extracted = extract(Path("products.py"), KERNEL, "tile_products")
    facts = Facts(line=12, code="TL102", flags_off={}, walk="offs", tile="BLOCK", axis_hints=["n"],
                  launch_args={}, multiples=set(), even_flags={})
    hazard, _control = synthesize(extracted, facts)[0]
    values = {a.name: a.value for a in hazard.args if a.kind == "constexpr"}
    assert values["PRECISION"] == "ieee" and values["HINT"] == "", values
    assert isinstance(values["BLOCK"], int)


OPTIONAL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def scaled_rows(X, Y, n, POST_FN: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        if POST_FN is not None:
            x = POST_FN(x)
        tl.store(Y + offs, x, mask=offs < n)
""")


def test_a_constexpr_compared_with_none_is_left_out() -> None:
    extracted = extract(Path("optional.py"), OPTIONAL, "scaled_rows")
    facts = Facts(line=8, code="TL101", flags_off={}, walk="offs", tile="BLOCK", axis_hints=["n"],
                  launch_args={}, multiples=set(), even_flags={})
    hazard, _control = synthesize(extracted, facts)[0]
    values = {a.name: a.value for a in hazard.args if a.kind == "constexpr"}
    # 16 was called as a function (`'int' object is not callable`) before the load ran.
    assert values["POST_FN"] is None and isinstance(values["BLOCK"], int), values
