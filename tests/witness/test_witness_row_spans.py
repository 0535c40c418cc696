"""Blocks of rows a pointer lays out itself (`Y + g * (N + E) * D + rows * D + cols`, no launch site): the
tensor holds blocks of `N + E` rows of `D`, whatever mask compares the rows with `N`; the synthesizer sizes it
so (the block term's stride the whole product, the row term's extent the span), covers the span with the
programs of the axis that walks the rows, and makes the span's tile partial. `g * N * D` is a block of N rows,
no tile of the program (`constexpr_sizes`): N is a size made partial, not a guessed tile.
(Was: `N` read as a per-program tile, the launch at default sizes out of bounds at whole tiles too.)"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from witness_cli import witness_json

from tritonlint.witness.extract import jit_functions
from tritonlint.witness.row_spans import SPAN, span_rest
from tritonlint.witness.uses import Uses

# Head rows `< N` copied from H, the E tail rows of each block set to a constant; the store is unmasked.
SPANNED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def fill_blocks(H, Y, N: tl.constexpr, E: tl.constexpr, D: tl.constexpr, ROWS: tl.constexpr):
        g = tl.program_id(0)
        r = tl.program_id(1) * ROWS + tl.arange(0, ROWS)
        d = tl.arange(0, D)
        head = r < N
        h = tl.load(H + r[:, None] * D + d[None, :], mask=head[:, None], other=0.0)
        y = tl.where(head[:, None], h, -1.0)
        tl.store(Y + g * (N + E) * D + r[:, None] * D + d[None, :], y)


    @triton.jit
    def scale_blocks(H, Y, N: tl.constexpr, D: tl.constexpr, ROWS: tl.constexpr):
        g = tl.program_id(0)
        r = tl.program_id(1) * ROWS + tl.arange(0, ROWS)
        d = tl.arange(0, D)
        head = r < N
        h = tl.load(H + r[:, None] * D + d[None, :], mask=head[:, None], other=0.0)
        tl.store(Y + g * N * D + r[:, None] * D + d[None, :], h * 3.0)


    @triton.jit
    def pad8_blocks(H, Y, N: tl.constexpr, D: tl.constexpr, ROWS: tl.constexpr):
        g = tl.program_id(0)
        r = tl.program_id(1) * ROWS + tl.arange(0, ROWS)
        d = tl.arange(0, D)
        head = r < N
        h = tl.load(H + r[:, None] * D + d[None, :], mask=head[:, None], other=0.0)
        tl.store(Y + g * (N + 8) * D + r[:, None] * D + d[None, :], h)


    @triton.jit
    def fill_blocks_masked(H, Y, N: tl.constexpr, E: tl.constexpr, D: tl.constexpr, ROWS: tl.constexpr):
        g = tl.program_id(0)
        r = tl.program_id(1) * ROWS + tl.arange(0, ROWS)
        d = tl.arange(0, D)
        head = r < N
        h = tl.load(H + r[:, None] * D + d[None, :], mask=head[:, None], other=0.0)
        y = tl.where(head[:, None], h, -1.0)
        tl.store(Y + g * (N + E) * D + r[:, None] * D + d[None, :], y, mask=r[:, None] < N + E)
""")


def _uses(name: str) -> Uses:
    fns = jit_functions(ast.parse(SPANNED))
    return Uses(fns[name], {})


def _store_dims(name: str) -> list[tuple[str | None, object]]:
    uses = _uses(name)
    sizes = uses.constexpr_sizes()
    store = uses.pointers()["Y"][0]
    return uses.dims(store, sizes, uses.stride_params())


def test_a_program_ids_product_scaled_by_a_row_length_is_no_tile() -> None:
    assert _uses("scale_blocks").constexpr_sizes() == {"N"}
    assert _uses("fill_blocks").constexpr_sizes() == {"N"}


def test_the_block_term_strides_the_whole_span_and_the_rows_span_it() -> None:
    dims = _store_dims("fill_blocks")
    assert dims[0] == ("(N+E)*D", ("grid", 0)), dims
    assert dims[1] == ("D", (SPAN, [("size", "N"), ("tile", "E")], 1)), dims
    dims = _store_dims("scale_blocks")
    assert dims[0] == ("N*D", ("grid", 0)), dims
    assert dims[1] == ("D", ("size", "N")), dims  # the span is what the mask says: kept as it reads


def test_the_span_adds_its_other_summands() -> None:
    assert span_rest([("size", "N"), ("tile", "E")], "N", {"E": 16, "N": 40}) == 16
    assert span_rest([("size", "N"), ("const", 8)], "N", {}) == 8
    assert span_rest([("size", "M")], "N", {}) is None


def _witnessed(tmp_path: Path) -> dict[int, dict[str, object]]:
    path = tmp_path / "spanned.py"
    path.write_text(SPANNED)
    return {f["line"]: f for f in witness_json(path, "--select", "ALL", "--timeout", "60")}


def test_each_blocks_unmasked_tail_is_confirmed_and_the_masked_one_not_flagged(tmp_path: Path) -> None:
    found = _witnessed(tmp_path)
    assert sorted(found) == [13, 23, 33], sorted(found)  # the masked store at 44: no finding
    for line in (13, 23, 33):
        w = found[line]["witness"]
        assert isinstance(w, dict)
        assert w["status"] == "confirmed", (line, w["reason"])
    # A span of N + 8 rows walked in tiles of 16: N is 8 off whole tiles so that the span is partial
    # (N = 40 would make N + 8 whole, and the control N = 48 partial).
    launch = found[33]["witness"]["launch"]  # type: ignore[index]
    assert launch["label"] == "N=32", launch["label"]
    # Blocks of N rows: the sibling load's mask is this tensor's row count, its fix validated.
    fix = found[23]["fix"]
    assert isinstance(fix, dict) and fix["validation"]["status"] == "validated", fix


def test_the_fixture_is_confirmed_at_both_stores_and_its_fix_validated() -> None:
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "unmasked-tail-store" / "partial_span_bound.py"
    found = {f["line"]: f for f in witness_json(fixture, "--select", "ALL", "--timeout", "60")}
    assert found[28]["witness"]["status"] == "confirmed", found[28]["witness"]["reason"]
    assert found[38]["witness"]["status"] == "confirmed", found[38]["witness"]["reason"]
    assert found[38]["fix"]["validation"]["status"] == "validated", found[38]["fix"]["validation"]
