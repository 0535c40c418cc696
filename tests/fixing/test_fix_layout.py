"""How a fix reads: a fix that would make its line longer than the project's line length names its
mask on the line above its statement when the call then fits on its line, in the file's indentation
and newlines (these tests use 140; test_fix_format.py has the wrapping and the default)."""

from __future__ import annotations

from dataclasses import replace

from tritonlint.config import Config
from tritonlint.engine import fix_source

HOISTING = Config(line_length=140)  # the call with its mask named fits in 140 (133), inline it does not (151)

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def scale_rows(X, Y, K, stride_row_of_the_input_matrix, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc += tl.load(X + row * stride_row_of_the_input_matrix + k * BLOCK_K + offs_k, mask=offs_k < K - k * BLOCK_K)
        {target} = tl.load(Y + row * stride_row_of_the_input_matrix + k * BLOCK_K + offs_k)  # the unmasked one
    tl.store(Y + row * BLOCK_K + offs_k, acc)
"""


def _fixed(text: str, config: Config | None = None) -> str:
    report = fix_source("k.py", text, config or HOISTING, unsafe=True, strict=True)
    assert report.fixed_text is not None and not report.errors, report.errors
    return report.fixed_text


def test_a_long_fix_names_its_mask_on_the_line_above() -> None:
    fixed = _fixed(KERNEL.format(target="acc"))
    lines = fixed.splitlines()
    at = next(i for i, line in enumerate(lines) if "the unmasked one" in line)
    assert lines[at - 1] == "        offs_k_mask = offs_k < K - k * BLOCK_K"
    assert lines[at] == ("        acc = tl.load(Y + row * stride_row_of_the_input_matrix + k * BLOCK_K + offs_k, "
                         "mask=offs_k_mask, other=0)  # the unmasked one")
    inline = _fixed(KERNEL.format(target="acc"), replace(Config(), line_length=1000)).splitlines()[at - 1]
    assert len(inline) > 140 and max(len(line) for line in lines[at - 1:at + 1]) <= 140
    assert fix_source("k.py", fixed, HOISTING, unsafe=True, strict=True).fixed_text is None  # settled


def test_within_the_line_length_the_fix_stays_inline() -> None:
    fixed = _fixed(KERNEL.format(target="acc"), replace(Config(), line_length=200))
    assert "offs_k_mask" not in fixed
    assert "offs_k, mask=offs_k < K - k * BLOCK_K, other=0)  # the unmasked one" in fixed


def test_the_name_never_shadows_one_the_kernel_uses() -> None:
    fixed = _fixed(KERNEL.format(target="offs_k_mask"), replace(Config(), line_length=150))  # 8 more
    assert "        offs_k_mask_2 = offs_k < K - k * BLOCK_K\n" in fixed
    assert "offs_k_mask = tl.load(" in fixed and "mask=offs_k_mask_2, other=0)" in fixed


def test_crlf_and_tabs_are_kept() -> None:
    text = KERNEL.format(target="acc").replace("    ", "\t").replace("\n", "\r\n")
    fixed = _fixed(text)
    assert "\r\n\t\toffs_k_mask = offs_k < K - k * BLOCK_K\r\n\t\tacc = tl.load(" in fixed
    assert "\n" not in fixed.replace("\r\n", "")


def test_two_accesses_in_one_statement_stay_inline() -> None:
    """Both fixes would insert above the same line: the edits would overlap (and SARIF's with them)."""
    text = KERNEL.format(target="acc").replace(
        "acc = tl.load(Y + row * stride_row_of_the_input_matrix + k * BLOCK_K + offs_k)",
        "acc = tl.load(Y + row * stride_row_of_the_input_matrix + k * BLOCK_K + offs_k) + "
        "tl.load(Y + k * BLOCK_K + offs_k)")
    fixed = _fixed(text)  # too long inline: the second call wraps as black (and ruff's formatter) would
    assert "offs_k_mask" not in fixed and fixed.count("mask=offs_k < K - k * BLOCK_K, other=0") == 2
    assert "+ tl.load(\n            Y + k * BLOCK_K + offs_k, mask=offs_k < K - k * BLOCK_K, other=0\n        )" in fixed


def test_a_statement_that_shares_its_line_stays_inline() -> None:
    """`a = ...; b = ...`: a mask named above would sit above both statements; the fix stays inline."""
    text = KERNEL.format(target="acc").replace("  # the unmasked one", "; acc += 1  # the unmasked one")
    fixed = _fixed(text)
    assert "offs_k_mask" not in fixed
    assert "offs_k, mask=offs_k < K - k * BLOCK_K, other=0); acc += 1  # the unmasked one" in fixed
