"""The language server's incremental re-check: after an edit, exactly what a fresh `check_source` reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from tritonlint.config import Config
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source
from tritonlint.incremental import IncrementalChecker
from tritonlint.source.outline import outline

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in (*ROOT.glob("fixtures/*/*.py"), *ROOT.glob("tests/regressions/*.py"))
               if not p.name.endswith(("_harness.py", ".fixed.py")))


def exactly(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[Diagnostic, int, int]]:
    """Diagnostics with the offsets their equality leaves out."""
    return [(d, d.start_offset, d.end_offset) for d in diagnostics]


def edited(text: str, which: int = 0) -> str:
    """A line inserted at the top of a kernel's body (the first by default): every later line moves down."""
    kernel = outline(text).kernels[which]
    assert kernel.function is not None
    lines = text.splitlines(keepends=True)
    at = kernel.function.body[0].lineno - 1
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    return "".join([*lines[:at], f"{indent}edited_ = 0\n", *lines[at:]])


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_edit_gives_what_a_fresh_check_gives(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if not outline(text).kernels:
        pytest.skip("no kernel")
    checker = IncrementalChecker(str(path), Config())
    assert exactly(checker.check(text).diagnostics) == exactly(check_source(str(path), text, Config()).diagnostics)
    for which in (0, -1):  # the first kernel edited (the others move), then the last (the others stay)
        after = edited(text, which)
        again = checker.check(after)
        fresh = check_source(str(path), after, Config())
        assert exactly(again.diagnostics) == exactly(fresh.diagnostics)
        assert again.errors == fresh.errors and again.text == after


def test_unchanged_kernels_are_not_analysed_again() -> None:
    path = ROOT / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py"
    text = path.read_text(encoding="utf-8")
    checker = IncrementalChecker(str(path), Config())
    first = checker.check(text)
    assert checker.analysed == ("gemm_twin_ok", "gemm_twin_buggy")
    second = checker.check(edited(text))
    assert checker.analysed == ("gemm_twin_ok",)  # the edited one; the other came from memory
    # ...moved one line down, the line its note names too.
    [before], [after] = first.diagnostics, second.diagnostics
    assert after.line == before.line + 1
    assert any("advanced by the loop at line 60" in note for note in after.notes)
    assert any("advanced by the loop at line 59" in note for note in before.notes)
    checker.check(text)
    between = text.index("@triton.jit\ndef gemm_twin_buggy")
    spaced = text[:between] + "\n\n" + text[between:]  # blank lines between the kernels: nothing again
    assert exactly(checker.check(spaced).diagnostics) == exactly(check_source(str(path), spaced, Config()).diagnostics)
    assert checker.analysed == ()
    # Host code (another module's import, a launcher's constant) is never read by the analysis of
    # a kernel: edited, it re-analyses nothing, and the findings are a fresh check's, moved.
    for host in ("import os\n" + text, "import os\n" + text + "GRID = 4\n"):
        assert exactly(checker.check(host).diagnostics) == exactly(check_source(str(path), host, Config()).diagnostics)
        assert checker.analysed == ()
    # The names the kernels resolve through the imports changed: everything again.
    rebound = "import triton.language as tl_other\n" + text
    assert exactly(checker.check(rebound).diagnostics) == exactly(check_source(str(path), rebound, Config()).diagnostics)
    assert checker.analysed == ("gemm_twin_ok", "gemm_twin_buggy")
    # A file-level suppression in the host code hides every kernel's findings, and lifted, shows them again.
    for host in ("# tritonlint: noqa: TL101\n" + text, "# tritonlint: noqa: TL102\n" + text, text):
        assert exactly(checker.check(host).diagnostics) == exactly(check_source(str(path), host, Config()).diagnostics)
        assert checker.analysed == ("gemm_twin_ok", "gemm_twin_buggy")
    assert checker.check("# tritonlint: noqa: TL101\n" + text).diagnostics == ()


def test_kernels_calling_each_other_are_always_analysed() -> None:
    text = (ROOT / "fixtures" / "unmasked-tail-load" / "jit_helper_mask_constexpr.py").read_text(encoding="utf-8")
    kernels = [kernel.name for kernel in outline(text).kernels]
    checker = IncrementalChecker("helper.py", Config())
    checker.check(text)
    checker.check(edited(text, -1))  # the caller edited; the helpers it calls must be there for it
    assert list(checker.analysed) == kernels


def test_a_syntax_error_is_the_engines_report() -> None:
    checker = IncrementalChecker("broken.py", Config())
    report = checker.check("import triton\n@triton.jit\ndef k(:\n")
    assert report.errors == check_source("broken.py", "import triton\n@triton.jit\ndef k(:\n", Config()).errors
    assert report.errors and not report.diagnostics


def test_a_file_level_noqa_inside_one_kernel_hides_the_others_findings_too() -> None:
    path = ROOT / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py"
    text = path.read_text(encoding="utf-8")
    checker = IncrementalChecker(str(path), Config())
    assert len(checker.check(text).diagnostics) == 1  # in gemm_twin_buggy
    body = text.index("\n", text.index("def gemm_twin_ok")) + 1
    hidden = text[:body] + "    # tritonlint: noqa\n" + text[body:]  # a comment on its own line, in the other kernel
    assert check_source(str(path), hidden, Config()).diagnostics == ()
    assert checker.check(hidden).diagnostics == ()


@pytest.mark.parametrize(("case", "before", "after"), [
    # A launch argument turned into a weak evenness predicate (TL103, and the load it lets through).
    ("weak-evenness-predicate/launch_safe_predicates.py", "EVEN_K=K % BLOCK == 0, BLOCK_K=BLOCK)",
     "EVEN_K=K % 2 == 0, BLOCK_K=BLOCK)"),
    # An exact grid turned into a rounded-up one (TL101/TL102 from launch evidence).
    ("unmasked-tail-load/launch_safe_grids.py", "exact_kernel[(n // BLOCK,)]", "exact_kernel[(triton.cdiv(n, BLOCK),)]"),
])
def test_an_edit_to_a_launch_re_analyses_the_kernel(case: str, before: str, after: str) -> None:
    path = ROOT / "fixtures" / case
    text = path.read_text(encoding="utf-8")
    checker = IncrementalChecker(str(path), Config())
    assert exactly(checker.check(text).diagnostics) == exactly(check_source(str(path), text, Config()).diagnostics)
    changed = text.replace(before, after)
    assert changed != text
    fresh = check_source(str(path), changed, Config()).diagnostics
    assert fresh, "the edit makes a finding"
    assert exactly(checker.check(changed).diagnostics) == exactly(fresh)


def test_a_launch_with_its_grid_on_the_next_line_is_a_launch() -> None:
    path = ROOT / "fixtures" / "unmasked-tail-load" / "launch_safe_grids.py"
    launch = "exact_kernel[(n // BLOCK,)](x, out, n, BLOCK=BLOCK)"
    text = path.read_text(encoding="utf-8").replace(launch, "(exact_kernel\n     [(n // BLOCK,)](x, out, n, BLOCK=BLOCK))")
    checker = IncrementalChecker(str(path), Config())
    assert exactly(checker.check(text).diagnostics) == exactly(check_source(str(path), text, Config()).diagnostics)
    changed = text.replace("[(n // BLOCK,)]", "[(triton.cdiv(n, BLOCK),)]")
    fresh = check_source(str(path), changed, Config()).diagnostics
    assert fresh, "the edit makes a finding"
    assert exactly(checker.check(changed).diagnostics) == exactly(fresh)
