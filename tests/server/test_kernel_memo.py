"""The editor's memory of each kernel's findings (`kernel_memo`): within a group analysed again, a
kernel is run through the rules again only when its text, a helper it names or a launch feeding it
changed; every report is exactly a cold check's."""

from __future__ import annotations

from tritonlint.config import Config
from tritonlint.deferred_fixes import DeferredFixes
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source
from tritonlint.incremental import IncrementalChecker

# A helper shared by two kernels (one group), each with a store it leaves unmasked: a finding in
# each caller, whose evidence is the helper's mask.
GROUP = '''import triton
import triton.language as tl


@triton.jit
def load_row(ptr, offs, n):
    return tl.load(ptr + offs, mask=offs < n, other=0.0)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = load_row(x_ptr, offs, n)
    tl.store(out_ptr + offs, x * 2.0)


@triton.jit
def shift_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    for k in range(0, 4):
        x = load_row(x_ptr, offs + k * n, n)
        tl.store(out_ptr + offs + k * n, x + 1.0)
'''


def exactly(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[Diagnostic, int, int, tuple[str, ...]]]:
    return [(d, d.start_offset, d.end_offset, d.notes) for d in diagnostics]


def cold(text: str) -> tuple[Diagnostic, ...]:
    return check_source("group.py", text, Config(), deferred=DeferredFixes()).diagnostics


def test_an_edited_caller_leaves_the_other_caller_and_the_helper_to_memory() -> None:
    checker = IncrementalChecker("group.py", Config(), fixes=False)
    assert exactly(checker.check(GROUP).diagnostics) == exactly(cold(GROUP))
    assert len(cold(GROUP)) >= 2  # a finding in each caller: the replayed one says something
    edited = GROUP.replace("    x = load_row(x_ptr, offs, n)\n", "    x = load_row(x_ptr, offs, n)\n    y = 0\n\n")
    again = checker.check(edited)
    assert exactly(again.diagnostics) == exactly(cold(edited))  # shift_kernel's finding moved two lines
    assert set(checker.analysed) == {"load_row", "scale_kernel", "shift_kernel"}  # one group...
    assert set(checker.replayed) == {"load_row", "shift_kernel"}  # ...the edited kernel alone run again


def test_an_edited_helper_re_analyses_every_caller() -> None:
    checker = IncrementalChecker("group.py", Config(), fixes=False)
    before = checker.check(GROUP).diagnostics
    unmasked = GROUP.replace("mask=offs < n, other=0.0", "")
    after = checker.check(unmasked)
    assert checker.replayed == ()
    assert exactly(after.diagnostics) == exactly(cold(unmasked))
    # The callers' stores were judged by the helper's mask ("the tl.load at line 7 masks the same
    # dimension"): without it, what they report changes; a stale replay would keep it.
    assert [(d.code, d.line, d.notes) for d in after.diagnostics] != [(d.code, d.line, d.notes) for d in before]
    # And back: the callers' findings without the helper's, none replayed from the unmasked text.
    assert exactly(checker.check(GROUP).diagnostics) == exactly(before)
