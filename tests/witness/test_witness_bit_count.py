"""A constexpr nobody sets that counts bits (`bins: tl.constexpr = 2 ** BITS`, `(1 << BITS) - 1`) is
guessed 1, not a tile's 16: at 16 the histogram loop walks 65536 bins in tiles and the run ended at
the timeout (an `error`); at 1 the bins are fewer than a tile, the partial tile of the host's
narrowest type (one bit a pass)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tritonlint.witness.extract import extract
from tritonlint.witness.synth import Facts, synthesize

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def digit_histogram(Keys, Hist, n, n_passes, TILE_B: tl.constexpr, TILE_N: tl.constexpr, BITS: tl.constexpr):
        row = tl.program_id(0)
        bins: tl.constexpr = 2 ** BITS
        digit_mask: tl.constexpr = (1 << BITS) - 1
        offs_n = tl.arange(0, TILE_N)
        keys = tl.load(Keys + row * n + offs_n, mask=offs_n < n, other=0)
        for p in range(0, n_passes):
            digits = (keys >> (p * BITS)) & digit_mask
            for b0 in range(0, bins, TILE_B):
                offs_b = b0 + tl.arange(0, TILE_B)
                hits = tl.sum((offs_b[:, None] == digits[None, :]).to(tl.int32), axis=1)
                tl.store(Hist + (row * n_passes + p) * bins + offs_b, hits)
""")


def test_a_bit_count_is_guessed_one() -> None:
    extracted = extract(Path("digits.py"), KERNEL, "digit_histogram")
    facts = Facts(line=17, code="TL102", flags_off={}, walk="offs_b", tile="TILE_B", axis_hints=[],
                  launch_args={}, multiples=set(), even_flags={})
    hazard, _control = synthesize(extracted, facts)[0]
    values = {a.name: a.value for a in hazard.args if a.kind == "constexpr"}
    assert values["BITS"] == 1, values
    assert values["TILE_B"] == 16 and values["TILE_N"] == 16, values  # tiles keep a tile's value
