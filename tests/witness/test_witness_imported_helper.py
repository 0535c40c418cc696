"""A jit helper imported from a sibling module is read like one of the kernel's own file: a pointer
the kernel hands it, and that it loads indices through, is an integer tensor."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tritonlint.witness.extract import extract
from tritonlint.witness.synth import Facts, synthesize

HELPERS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def find_block(starts_ptr, target, count, BLOCK: tl.constexpr):
        lo = 0
        hi = count
        while lo < hi:
            mid = (lo + hi) // 2
            val = tl.load(starts_ptr + mid)
            key = val // BLOCK + mid
            if key <= target:
                lo = mid + 1
            else:
                hi = mid
        return lo - 1
""")

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from helpers import find_block


    @triton.jit
    def gather_rows(starts_ptr, x_ptr, out_ptr, count, n, BLOCK: tl.constexpr):
        block = find_block(starts_ptr, tl.program_id(0), count, BLOCK)
        offs = block * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
""")


def test_a_pointer_an_imported_helper_loads_indices_through_is_integer(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    path = tmp_path / "gather.py"
    path.write_text(KERNEL)
    extracted = extract(path, KERNEL, "gather_rows")
    assert "find_block" in extracted.helpers  # read, not only copied into the generated module
    facts = Facts(10, "TL101", {}, None, None, [], {}, set(), {})
    launch, _control = synthesize(extracted, facts)[0]
    dtypes = {a.name: a.dtype for a in launch.args if a.kind == "tensor"}
    # `val // BLOCK` runs on integers only: a float tensor stops the kernel ("unexpected type fp32").
    assert dtypes["starts_ptr"] == "int32" and dtypes["x_ptr"] == "float32", dtypes


SHIFTS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def _cdiv_pow2(n, log2_k):
        return (n + ((1 << log2_k) - 1)) >> log2_k


    @triton.jit
    def tile_counts(Hist, Out, n, log2_tile, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        hist = tl.load(Hist + offs, mask=offs < n, other=0)
        tl.store(Out + offs, _cdiv_pow2(hist, log2_tile), mask=offs < n)
""")


def test_a_value_a_helper_shifts_is_integer_and_so_is_the_shift(tmp_path: Path) -> None:
    path = tmp_path / "counts.py"
    path.write_text(SHIFTS)
    extracted = extract(path, SHIFTS, "tile_counts")
    launch, _control = synthesize(extracted, Facts(13, "TL101", {}, None, None, [], {}, set(), {}))[0]
    args = {a.name: a for a in launch.args}
    # A float tensor or a float shift stops the kernel: `>>` takes integers only.
    assert args["Hist"].dtype != "float32" and args["log2_tile"].kind == "int", launch.to_dict()
