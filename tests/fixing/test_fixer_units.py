"""The fixer's choices one guard at a time, on small kernels checked statically (no triton import).

The fixtures pin whole fixed files; these pin which mask source the fixer picks and why, so a
broken guard in tritonlint/fixing/masks.py fails here by name (and kills its mutants).
"""

from __future__ import annotations

import ast

from tritonlint.config import Config
from tritonlint.engine import check_source, fix_source

# Wide enough that every fix here stays on its own line: these tests are about which mask the
# fixer picks and how the call is rewritten, not about laying out a long one.
CONFIG = Config(line_length=240)

ROWS = '''\
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    MASK_DEF
    a = tl.load(x_ptr + offs[:, None] * stride, mask=MASK)
    b = tl.load(y_ptr + offs[:, None] * stride)
    tl.store(out_ptr + offs[:, None] * stride, a + b, mask=offs[:, None] < n)
'''


def _rows(mask_def: str, mask: str) -> str:
    return ROWS.replace("MASK_DEF", mask_def).replace("MASK", mask)


def _fix_of_line(text: str, line: int) -> tuple[str | None, str]:
    (diag,) = check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert (diag.line, diag.code) == (line, "TL101")
    fixed = fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text
    assert fixed is not None
    ast.parse(fixed)
    assert check_source("k.py", fixed, CONFIG, strict=True).diagnostics == ()
    # The mask's part of the title: what follows `; ` says why the fix is safe or not
    # (tests/fixing/test_fix_safety.py).
    return diag.fix.title.split("; the lanes")[0] if diag.fix else None, fixed.splitlines()[line - 1].strip()


def test_a_1d_sibling_mask_is_not_reused_on_a_column_pointer() -> None:
    """`mask=offs < n` beside `x_ptr + offs[:, None]` broadcasts to a square: the fixer skips it
    (`_carries`) and takes the store's `offs[:, None] < n`, the mask of this pointer's shape."""
    title, line = _fix_of_line(_rows("pass", "offs < n"), 10)
    assert title == "Mask the load with `offs[:, None] < n` (the mask of the tl.store at line 11)"
    assert line == "b = tl.load(y_ptr + offs[:, None] * stride, mask=offs[:, None] < n, other=0)"


def test_a_1d_sibling_mask_through_a_name_is_not_reused_on_a_column_pointer() -> None:
    title, _ = _fix_of_line(_rows("m = offs < n", "m"), 10)
    assert title == "Mask the load with `offs[:, None] < n` (the mask of the tl.store at line 11)"


def test_a_sibling_mask_that_spells_the_broadcast_is_reused() -> None:
    """The control: the first sibling's mask has the pointer's `[:, None]`, itself or via its name."""
    title, _ = _fix_of_line(_rows("pass", "offs[:, None] < n"), 10)
    assert title == "Mask the load with `offs[:, None] < n` (the mask of the tl.load at line 9)"
    title, line = _fix_of_line(_rows("m = offs[:, None] < n", "m"), 10)
    assert title == "Mask the load with `m` (the mask of the tl.load at line 9)"
    assert line == "b = tl.load(y_ptr + offs[:, None] * stride, mask=m, other=0)"


HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _fixed_body(body: str) -> str:
    """The fixed kernel (the header left off), after checking the fix parses and leaves no finding."""
    text = HEADER + body
    assert check_source("k.py", text, CONFIG, strict=True).diagnostics
    fixed = fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text
    assert fixed is not None and fixed.startswith(HEADER)
    ast.parse(fixed)
    assert check_source("k.py", fixed, CONFIG, strict=True).diagnostics == ()
    return fixed[len(HEADER):]


def test_an_advanced_pointer_name_is_not_its_own_offset() -> None:
    """`ptrs += BLOCK`: the offset is the `tl.arange` it was built from, never `ptrs < K - k`."""
    assert _fixed_body('''\
def k(X, K, BLOCK: tl.constexpr):
    ptrs = X + tl.arange(0, BLOCK)
    for k in range(0, K, BLOCK):
        x = tl.load(ptrs)
        ptrs += BLOCK
''').splitlines()[3] == "        x = tl.load(ptrs, mask=tl.arange(0, BLOCK) < K - k, other=0)"


def test_an_offset_redefined_from_itself_in_the_loop() -> None:
    """`offs = offs + BLOCK` reaches the access from the loop's back edge: the purity check stops
    (its depth bound) and the loop bound still gives the mask."""
    assert _fixed_body('''\
def k(X, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for k in range(0, K, BLOCK):
        x = tl.load(X + offs)
        offs = offs + BLOCK
''').splitlines()[3] == "        x = tl.load(X + offs, mask=tl.arange(0, BLOCK) < K - k, other=0)"


def test_a_call_over_lines_keeps_its_closing_parenthesis_line() -> None:
    assert _fixed_body('''\
def k(X, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for k in range(0, K, BLOCK):
        x = tl.load(
            X + k + offs
        )
''').splitlines()[3:6] == ["        x = tl.load(", "            X + k + offs, mask=offs < K - k, other=0", "        )"]


def test_a_call_with_one_argument_and_a_trailing_comma() -> None:
    """The new arguments go after the old one, one per line at its indentation (not the closing
    bracket's); the last keeps the trailing comma."""
    assert _fixed_body('''\
def k(X, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for k in range(0, K, BLOCK):
        x = tl.load(
            X + k + offs,
        )
''').splitlines()[3:8] == ["        x = tl.load(", "            X + k + offs,", "            mask=offs < K - k,",
                           "            other=0,", "        )"]


def test_a_none_side_of_the_same_flag_stays_none() -> None:
    """`mask=None if EVEN_K else m` on a load whose K tail is flagged by EVEN_K: the even side
    stays `None` (and `other` is switched with it), the bound goes inside the other side."""
    assert _fixed_body('''\
def k(X, W, M, K, s, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            w = tl.load(W + k + offs_k)
        else:
            w = tl.load(W + k + offs_k, mask=offs_k < K - k, other=0.0)
        x = tl.load(X + offs_m[:, None] * s + k + offs_k[None, :], mask=None if EVEN_K else offs_m[:, None] < M)
''').splitlines()[8] == ("        x = tl.load(X + offs_m[:, None] * s + k + offs_k[None, :], mask=None if EVEN_K else "
                         "(offs_m[:, None] < M) & (offs_k[None, :] < K - k), other=None if EVEN_K else 0)")


def test_a_comparison_of_another_access_is_rebroadcast_to_the_pointer() -> None:
    text = '''\
def k(X, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs[:, None] * stride)
    tl.store(X + offs[:, None] * stride, x, mask=offs < n)
'''
    (diag,) = check_source("k.py", HEADER + text, CONFIG, strict=True).diagnostics
    assert diag.fix is not None and diag.fix.title.split("; the lanes")[0] == "Mask the load with `offs[:, None] < n` (the comparison at line 9)"
    assert _fixed_body(text).splitlines()[2] == "    x = tl.load(X + offs[:, None] * stride, mask=offs[:, None] < n, other=0)"


def test_a_block_pointer_keeps_its_own_padding_option() -> None:
    """`padding_option=` given by keyword is kept as the kernel chose it; the new dimension joins the old check."""
    assert _fixed_body('''\
def k(X, M, K, stride, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    bp = tl.make_block_ptr(X, (M, K), (stride, 1), (tl.program_id(0) * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    for k in range(0, K, BLOCK_K):
        x = tl.load(bp, boundary_check=(0,), padding_option="nan")
        bp = tl.advance(bp, (0, BLOCK_K))
''').splitlines()[3] == '        x = tl.load(bp, boundary_check=(0, 1), padding_option="nan")'


def test_atom_parenthesizes_only_what_needs_it() -> None:
    from tritonlint.fixing.masks import _wrapped, atom_of

    assert atom_of("offs_k") == "offs_k"
    assert atom_of("tl.arange(0,\n BLOCK)") == "tl.arange(0,\n BLOCK)"  # a call over lines is one atom
    assert atom_of("K - k") == "(K - k)"
    assert atom_of("(K - k)") == "(K - k)"
    assert atom_of("(a) + (b)") == "((a) + (b))"
    assert (_wrapped("(a + b)"), _wrapped("(a) + (b)"), _wrapped("a + (b)")) == (True, False, False)


def test_a_comparison_broadcast_inside_its_left_side_is_taken_as_written() -> None:
    """`pid * BLOCK + r[:, None] < n`: the broadcast is inside the compared expression and matches
    the pointer's `[:, None]`, so the comparison is reused as it is (not broadcast a second time)."""
    text = '''\
def k(X, Z, n, m, stride, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(X + (pid * BLOCK + r[:, None]) * stride + cols[None, :], mask=cols[None, :] < m)
    tl.store(Z + (pid * BLOCK + r[:, None]) * stride, tl.sum(x, axis=1)[:, None], mask=pid * BLOCK + r[:, None] < n)
'''
    (diag,) = check_source("k.py", HEADER + text, CONFIG, strict=True).diagnostics
    assert diag.fix is not None
    assert diag.fix.title.split("; the lanes")[0] == "Mask the load with `(pid * BLOCK + r[:, None]) < n` (the comparison at line 11)"
    assert _fixed_body(text).splitlines()[4] == (  # only the parentheses precedence needs
        "    x = tl.load(X + (pid * BLOCK + r[:, None]) * stride + cols[None, :], "
        "mask=(cols[None, :] < m) & (pid * BLOCK + r[:, None] < n), other=0)")


def test_a_prefetch_in_a_loop_that_starts_after_the_first_tile_takes_no_mask_of_the_current_tile() -> None:
    """`range(1, tl.cdiv(K, BLOCK_K))` still counts BLOCK_K tiles: the load of tile `k + 1` is not
    bounded by the mask of tile `k` (that mask lets the last program read a whole tile past K)."""
    text = HEADER + '''\
def k(A, B, K, BLOCK_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    for k in range(1, tl.cdiv(K, BLOCK_K)):
        b = tl.load(B + k * BLOCK_K + offs, mask=k * BLOCK_K + offs < K, other=0)
        a = tl.load(A + (k + 1) * BLOCK_K + offs)
'''
    (finding,) = check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert finding.line == 10 and finding.fix is not None and finding.fix.edits == ()
    assert finding.fix.title.split("; the lanes")[0] == ("no mask can be derived: the comparison at line 9 bounds this dimension "
                                 "elsewhere (another tile, shape or place), not at this access")
    assert fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text is None


FLAGGED_BLOCK_POINTER = '''\
import triton
import triton.language as tl


@triton.jit
def k(A, B, Y, M, K, stride, EVEN_K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    bp = tl.make_block_ptr(A, shape=(M, K), strides=(stride, 1), offsets=(0, 0),
                           block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            b = tl.load(B + k * BLOCK_K + offs_k)
        else:
            b = tl.load(B + k * BLOCK_K + offs_k, mask=k * BLOCK_K + offs_k < K, other=0.0)
        a = tl.load(bp{check})
        acc += a * b[None, :]
        bp = tl.advance(bp, (0, BLOCK_K))
    tl.store(Y + tl.arange(0, BLOCK_M)[:, None] * BLOCK_K + offs_k[None, :], acc)
'''


def test_block_pointer_fix_under_a_flag_keeps_the_even_side_as_written() -> None:
    # The even side keeps the boundary_check it had (none: `()`), the tail side adds the walked dimension.
    for check, even, tail in (("", "()", "(1,)"), (", boundary_check=(0,)", "(0,)", "(0, 1)")):
        text = FLAGGED_BLOCK_POINTER.format(check=check)
        fixed = fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text
        assert fixed is not None
        line = next(line for line in fixed.splitlines() if "a = tl.load(bp" in line)
        assert line.strip() == (f'a = tl.load(bp, boundary_check={even} if EVEN_K else {tail}, '
                                'padding_option="" if EVEN_K else "zero")'), line


WHILE_TILES = '''\
import triton
import triton.language as tl


@triton.jit
def k(A, B, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    a_ptrs = A + offs
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    k = 0
    while k < K:
        if EVEN_K:
            b = tl.load(B + k + offs)
        else:
            b = tl.load(B + k + offs, mask=k + offs < K, other=0.0)
        a = tl.load(a_ptrs)
        acc += a * b
        a_ptrs += BLOCK_K
        k += BLOCK_K
'''


def test_a_while_loop_gives_no_loop_bound_and_the_sibling_mask_is_used() -> None:
    # `while k < K` has no range to derive `offs < K - k * BLOCK_K` from: the loop source declines
    # (it must not read a `for` loop's parts off a `while`), and the sibling's mask serves.
    report = check_source("k.py", WHILE_TILES, Config(), strict=True)
    assert not report.crashes
    (finding,) = report.diagnostics
    assert finding.line == 16 and finding.fix is not None
    assert "the mask of the tl.load at line 15" in finding.fix.title


def test_a_mask_counted_by_a_while_loop_is_not_used_after_it() -> None:
    # After `while k < K: ...; k += BLOCK_K`, `k` is past the end: `k + offs < K` would switch off
    # every lane of the store below the loop. The fixer offers no mask rather than that one.
    text = WHILE_TILES + "    tl.store(Y + offs, acc)\n"
    report = check_source("k.py", text, Config(), strict=True)
    store = next(d for d in report.diagnostics if d.line == 20)
    assert store.fix is not None and not store.fix.edits
    assert "k + offs" not in store.fix.title


def test_an_offset_in_groups_is_not_bounded_by_the_loop_over_elements() -> None:
    # `offs // G` counts groups of G elements, the loop's `tl.cdiv(K, BLOCK)` counts elements:
    # `offs_g < K - k * BLOCK` would let the last tiles read past the K // G scales. The loop bound
    # is no source here, and the kernel compares the groups nowhere, so no mask is offered.
    text = HEADER + '''\
def k(S, Y, K, G: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    offs_g = offs // G
    s_ptrs = S + offs_g
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK)):
        acc += tl.load(s_ptrs)
        s_ptrs += BLOCK // G
    tl.store(Y + offs, acc)
'''
    (finding,) = check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert finding.line == 12 and finding.fix is not None and finding.fix.edits == ()
    assert finding.fix.title.split("; the lanes")[0] == "no mask can be derived: the kernel never compares this dimension with a bound"
    assert fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text is None


def test_of_two_comparisons_of_the_same_rank_the_first_in_the_kernel_is_used() -> None:
    # Both stores compare `offs` (as rows of 2-D tiles, so neither mask is this 1-D load's sibling):
    # the fix takes the first one in program order, `offs < n`, not the one whose text sorts first.
    text = '''\
def k(X, Y, Z, n, m, s, BLOCK: tl.constexpr, BN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BN)
    x = tl.load(X + offs)
    tl.store(Y + offs[:, None] * s + cols[None, :], x[:, None], mask=(offs < n)[:, None])
    tl.store(Z + offs[:, None] * s + cols[None, :], x[:, None], mask=(offs < m)[:, None])
'''
    (diag,) = check_source("k.py", HEADER + text, CONFIG, strict=True).diagnostics
    assert diag.fix is not None and diag.fix.title.split("; the lanes")[0] == "Mask the load with `offs < n` (the comparison at line 10)"
    assert _fixed_body(text).splitlines()[3] == "    x = tl.load(X + offs, mask=offs < n, other=0)"


LANES_1D = '''\
import triton
import triton.language as tl


@triton.jit
def unswizzle(tile):
    LANES: tl.constexpr = tile.shape[0]
    tile = tile.reshape(LANES // 64, 2, 8, 2, 2)
    tile = tile.trans(0, 3, 1, 2, 4)
    return tile.reshape(LANES // 32, 32)


@triton.jit
def k(X, S, Y, K, BLOCK_K: tl.constexpr, SCALES: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    offs_s = tl.arange(0, SCALES)
    x_ptrs = X + offs_k
    s_ptrs = S + offs_s
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K):
        x = tl.load(x_ptrs, mask=offs_k < k, other=0.0)
        s = unswizzle(tl.load(s_ptrs))
        acc += x * tl.sum(tl.sum(s, axis=1), axis=0)
        x_ptrs += BLOCK_K
        s_ptrs += SCALES
    tl.store(Y + offs_k, acc)
'''


def test_a_1d_tile_reordered_by_a_helper_is_masked_in_the_helper_lane_order() -> None:
    # A flat (1-D) tile of scale lanes, put in column order by `unswizzle`: lane j holds column
    # `2 * (j // 64) + (j // 2) % 2` of SCALES // 32, so the rescaled bound compares that column,
    # not `offs_s * BLOCK_K // SCALES` (the lane's place in memory). Every lane-map case elsewhere
    # is a 2-D `[None, :]` tile; this pins the unbroadcast one.
    (finding,) = check_source("k.py", LANES_1D, CONFIG, strict=True).diagnostics
    assert finding.line == 22 and finding.fix is not None
    assert finding.fix.title.split("; the lanes")[0] == ("Mask the load with `(2 * (offs_s // 64) + (offs_s // 2) % 2) * BLOCK_K // (SCALES // 32) < k` "
                                 "(rescaled from the comparison at line 21, in the lane order `unswizzle` puts the tile in)")
    fixed = fix_source("k.py", LANES_1D, CONFIG, unsafe=True, strict=True).fixed_text
    assert fixed is not None
    assert fixed.splitlines()[21].strip() == ("s = unswizzle(tl.load(s_ptrs, mask=(2 * (offs_s // 64) + (offs_s // 2) % 2) "
                                              "* BLOCK_K // (SCALES // 32) < k, other=0))")


def test_a_prefetch_pointer_built_in_a_definition_is_masked_for_the_tile_it_reads() -> None:
    # `nxt = A + (k + 1) * BLOCK_K`: the load reads tile k + 1, the shift is in the name's definition
    # (not in the call), and the loop bound must be taken for that tile: `K - (k + 1) * BLOCK_K`.
    # Bounding it as tile k (`offs < K - k * BLOCK_K`) lets the last iteration read past K.
    assert _fixed_body('''\
def k(A, Y, K, BLOCK_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        nxt = A + (k + 1) * BLOCK_K
        acc += tl.load(nxt + offs)
    tl.store(Y + offs, acc)
''').splitlines()[5] == "        acc += tl.load(nxt + offs, mask=offs < K - (k + 1) * BLOCK_K, other=0)"


def test_a_bound_assigned_on_the_other_branch_only_is_not_available_to_the_fix() -> None:
    # Before the load, `lim` is assigned only under `if HAS_LIMIT:`; on the load's own branch it is
    # assigned after the load. `mask=offs < lim` would read a name not defined there: no fix.
    text = HEADER + '''\
def k(X, Y, L, n, BLOCK: tl.constexpr, HAS_LIMIT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if HAS_LIMIT:
        lim = tl.load(L)
        tl.store(Y + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < lim)
    else:
        x = tl.load(X + offs)
        lim = n
        tl.store(Y + offs, x, mask=offs < lim)
'''
    (finding,) = check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert finding.line == 12 and finding.fix is not None and finding.fix.edits == ()
    assert finding.fix.title.split("; the lanes")[0] == ("no mask can be derived: the comparison at line 14 bounds this dimension "
                                 "elsewhere (another tile, shape or place), not at this access")
    assert fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text is None


def test_a_comparison_kept_in_a_local_on_the_other_branch_is_not_used() -> None:
    # `valid = offs < m` is the ROWS branch's bound (another shape); the load is on the other branch,
    # whose own comparison `offs < n` reads `n` loaded after the load. Neither can mask it.
    text = HEADER + '''\
def k(X, Y, N, m, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if ROWS:
        valid = offs < m
        tl.store(Y + tl.program_id(0), tl.sum(valid.to(tl.int32)))
    else:
        x = tl.load(X + offs)
        n = tl.load(N)
        tl.store(Y + offs, x, mask=offs < n)
'''
    (finding,) = check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert finding.line == 12 and finding.fix is not None and finding.fix.edits == ()
    assert finding.fix.title.split("; the lanes")[0] == ("no mask can be derived: the comparison at line 14 bounds this dimension "
                                 "elsewhere (another tile, shape or place), not at this access")
    assert fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text is None


def test_a_sibling_mask_the_fixer_cannot_read_is_passed_over() -> None:
    # `in_bounds(offs, n)` is a helper's result: what it bounds is not known here, so that load's
    # mask is no source (and must not stop the search); the store's `offs < n` is used.
    text = HEADER + '''\
def in_bounds(offs, n):
    return offs < n


@triton.jit
def k(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    z = tl.load(Z + offs, mask=in_bounds(offs, n), other=0.0)
    x = tl.load(X + offs)
    tl.store(Y + offs, x + z, mask=offs < n)
'''
    title, line = _fix_of_line(text, 14)
    assert title == "Mask the load with `offs < n` (the mask of the tl.store at line 15)"
    assert line == "x = tl.load(X + offs, mask=offs < n, other=0)"


def test_a_comparison_over_two_offsets_is_skipped_and_a_later_one_used() -> None:
    # The first store compares the flat index `offs[:, None] * s + cols[None, :]` (two offsets: it
    # bounds no one dimension); the search goes on to the second store's `offs < n`.
    text = '''\
def k(X, Y, Z, n, total, s, BLOCK: tl.constexpr, BN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BN)
    x = tl.load(X + offs)
    tl.store(Y + offs[:, None] * s + cols[None, :], x[:, None], mask=offs[:, None] * s + cols[None, :] < total)
    tl.store(Z + offs[:, None] * s + cols[None, :], x[:, None], mask=(offs < n)[:, None])
'''
    load = next(d for d in check_source("k.py", HEADER + text, CONFIG, strict=True).diagnostics if d.line == 9)
    assert load.fix is not None and load.fix.title.split("; the lanes")[0] == "Mask the load with `offs < n` (the comparison at line 11)"
    assert _fixed_body(text).splitlines()[3] == "    x = tl.load(X + offs, mask=offs < n, other=0)"


def test_an_offset_rebased_from_itself_before_the_loop_is_masked_from_the_loop_bound() -> None:
    # `offs_k = offs_k + START`: the name's definition reads the name, and the purity check looks it
    # up again at the access, finding the same definition; its depth bound ends that walk (a name is
    # pure), and the loop bound gives the mask. Without the bound it recurses until Python stops it.
    assert _fixed_body('''\
def k(A, Y, K, START, BLOCK_K: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    offs_k = offs_k + START
    a_ptrs = A + offs_k
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        acc += tl.load(a_ptrs)
        a_ptrs += BLOCK_K
    tl.store(Y + tl.arange(0, BLOCK_K), acc)
''').splitlines()[6] == "        acc += tl.load(a_ptrs, mask=offs_k < K - k * BLOCK_K, other=0)"


def test_a_block_pointer_keeps_a_padding_option_passed_by_position() -> None:
    """`tl.load(bp, None, None, (0,), "nan")`: the fifth positional argument is the padding; it is
    kept, and no `padding_option="zero"` is added or written over it."""
    assert _fixed_body('''\
def k(X, M, K, stride, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    bp = tl.make_block_ptr(X, (M, K), (stride, 1), (tl.program_id(0) * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    for k in range(0, K, BLOCK_K):
        x = tl.load(bp, None, None, (0,), "nan")
        bp = tl.advance(bp, (0, BLOCK_K))
''').splitlines()[3] == '        x = tl.load(bp, None, None, (0, 1), "nan")'


def test_a_comparison_in_a_tile_of_unknown_size_gives_no_rescaled_mask() -> None:
    # `tl.arange(SCALES)` (one argument: Triton rejects it, but code being written has it) has no
    # size, so `offs_s` in other units than the loop's `offs_k` cannot be rescaled from `offs_k < k`:
    # the comparison is passed over (no crash on the missing size), and no mask is offered.
    text = '''\
def k(X, S, Y, K, BLOCK_K: tl.constexpr, SCALES: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    offs_s = tl.arange(SCALES)
    x_ptrs = X + offs_k
    s_ptrs = S + offs_s
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K):
        x = tl.load(x_ptrs, mask=offs_k < k, other=0.0)
        s = tl.load(s_ptrs)
        acc += x * tl.sum(s, axis=0)
        x_ptrs += BLOCK_K
        s_ptrs += SCALES
    tl.store(Y + offs_k, acc)
'''
    (diag,) = check_source("k.py", HEADER + text, CONFIG, strict=True).diagnostics
    assert diag.line == 14 and diag.fix is not None and diag.fix.edits == ()
    assert diag.fix.title.split("; the lanes")[0] == "no mask can be derived: the kernel never compares this dimension with a bound"


def test_a_comparison_met_first_at_the_end_of_a_long_chain_of_names_is_read_by_the_short_one() -> None:
    # The store's mask `k2 & k7`: `k7` is read first and reaches `k1` six names down, where the walk
    # stops (its depth bound); `k2` reaches the same `k1` at once. The comparison `offs < n` must be
    # found through `k2`: a node met at the depth limit is read again when a shorter way reaches it.
    # (The store is 2-D, so its mask is no sibling of the 1-D load.)
    text = '''\
def k(X, Y, n, s, BLOCK: tl.constexpr, BN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BN)
    x = tl.load(X + offs)
    k1 = offs < n
    k2 = k1
    k3 = k2
    k4 = k3
    k5 = k4
    k6 = k5
    k7 = k6
    tl.store(Y + offs[:, None] * s + cols[None, :], x[:, None], mask=(k2 & k7)[:, None])
'''
    (diag,) = check_source("k.py", HEADER + text, CONFIG, strict=True).diagnostics
    assert diag.fix is not None and diag.fix.title.split("; the lanes")[0] == "Mask the load with `offs < n` (the comparison at line 10)"
    assert _fixed_body(text).splitlines()[3] == "    x = tl.load(X + offs, mask=offs < n, other=0)"
