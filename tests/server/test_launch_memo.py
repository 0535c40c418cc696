"""The editor's memory of a buffer's launches (`launch_cache`): kept across an edit inside a kernel's
body, the host lines they name moved; never kept across an edit of the host code or a kernel's
header. Every report is exactly a cold check's."""

from __future__ import annotations

from tritonlint.config import Config
from tritonlint.deferred_fixes import DeferredFixes
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source
from tritonlint.incremental import IncrementalChecker
from tritonlint.semantic.host.file_launches import find_file_launches
from tritonlint.semantic.host.launch_cache import LaunchMemo, reusing_launches
from tritonlint.semantic.host.on_demand import OnDemand
from tritonlint.source.outline import outline

# A kernel above a launched one whose findings name its launch (`launches.py:NN`): a line inserted
# in the first kernel moves that launch.
LAUNCHED = '''import triton
import triton.language as tl


@triton.jit
def bump_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x + 1, mask=offs < n)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x)


def copy(x, out):
    n = x.numel()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    copy_kernel[grid](x, out, n, BLOCK)
'''

IN_BUMP = "    x = tl.load(x_ptr + offs, mask=offs < n)\n"


def exactly(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[Diagnostic, int, int, tuple[str, ...]]]:
    return [(d, d.start_offset, d.end_offset, d.notes) for d in diagnostics]


def cold(text: str) -> tuple[Diagnostic, ...]:
    return check_source("launches.py", text, Config(), deferred=DeferredFixes()).diagnostics


def checked(checker: IncrementalChecker, text: str) -> tuple[Diagnostic, ...]:
    found = checker.check(text).diagnostics
    assert exactly(found) == exactly(cold(text))
    return found


def test_a_line_inserted_in_a_kernel_moves_the_launches_below_it() -> None:
    checker = IncrementalChecker("launches.py", Config(), fixes=False)
    before = checked(checker, LAUNCHED)
    assert any("launches.py:25" in " ".join((d.message, *d.notes)) for d in before)  # the launch is named
    edited = LAUNCHED.replace(IN_BUMP, IN_BUMP + "    y = 0\n\n")
    after = checked(checker, edited)
    assert checker._launches.reused  # found again from memory, not from the host code
    assert any("launches.py:27" in " ".join((d.message, *d.notes)) for d in after)
    # A second edit, the other way: the memory moves from where the launches are now.
    assert checked(checker, LAUNCHED) == before and checker._launches.reused


BASE = LAUNCHED.replace(IN_BUMP, IN_BUMP + "    y = 0\n")


def edited(text: str) -> str:
    return text.replace("y = 0", "y = 2")


def warmed() -> IncrementalChecker:
    """A checker after edits in the first kernel (the launches left to memory), as an editor's typing
    leaves it. Each edit below changes that kernel too (one change of the whole document), so the
    engine sees the same kernels as when the launches were kept: only their key tells them apart."""
    checker = IncrementalChecker("launches.py", Config(), fixes=False)
    for text in (LAUNCHED, BASE.replace("y = 0", "y = 1"), BASE):
        checked(checker, text)
    assert checker._launches.reused
    return checker


def test_an_edited_grid_is_found_again() -> None:
    checker = warmed()
    checked(checker, edited(BASE.replace("grid = (triton.cdiv(n, BLOCK),)", "grid = (n // BLOCK,)")))
    assert not checker._launches.reused


def test_a_renamed_kernel_is_found_again() -> None:
    checker = warmed()
    checked(checker, edited(BASE.replace("copy_kernel", "move_kernel")))
    assert not checker._launches.reused


def test_a_line_added_above_a_launch_is_found_again() -> None:
    checker = warmed()
    checked(checker, edited(BASE.replace("    n = x.numel()\n", "    n = x.numel()\n    assert n > 0\n")))
    assert not checker._launches.reused


def test_a_kernels_new_signature_is_found_again() -> None:
    checker = warmed()
    # A kernel's parameters name the launch's arguments: its tile is now `TILE`, which the host's
    # `BLOCK` sets (the grid's divisor).
    renamed = BASE.replace("def copy_kernel(x_ptr, out_ptr, n, BLOCK", "def copy_kernel(x_ptr, out_ptr, n, TILE")
    renamed = renamed.replace("    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs)\n",
                              "    offs = pid * TILE + tl.arange(0, TILE)\n    x = tl.load(x_ptr + offs)\n")
    assert "TILE)" in renamed and cold(renamed)
    checked(checker, edited(renamed))
    assert not checker._launches.reused


def test_moved_launches_equal_the_launches_found_again() -> None:
    # Every field, the witness-only facts included (left to be worked out when read, then moved).
    guarded = LAUNCHED.replace("    n = x.numel()\n", "    n = x.numel()\n    if n % get_align() != 0:\n        return\n")
    edited = guarded.replace(IN_BUMP, IN_BUMP + "    y = 0\n\n")
    memo = LaunchMemo()
    with reusing_launches(memo):
        find_file_launches("launches.py", guarded, outline(guarded), None)
        moved = find_file_launches("launches.py", edited, outline(edited), None)
        assert memo.reused
    (launch,) = moved["copy_kernel"]
    assert isinstance(launch.unknown_multiples, OnDemand) and not launch.unknown_multiples.computed
    assert launch.where == "launches.py:29"
    assert moved == find_file_launches("launches.py", edited, outline(edited), None)
    assert launch.unknown_multiples  # (the test names its line: moved with it)
