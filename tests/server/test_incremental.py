"""The language server's incremental re-check: after an edit, exactly what a fresh `check_source` reports."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tritonlint.config import Config
from tritonlint.deferred_fixes import DeferredFixes
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


def test_kernels_calling_each_other_are_analysed_together() -> None:
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
@pytest.mark.parametrize("fixes", [True, False], ids=["check", "editor"])
def test_an_edit_to_a_launch_re_analyses_the_kernel(case: str, before: str, after: str, fixes: bool) -> None:
    """(In the editor's mode, the kernel the launch feeds is not replayed from memory either.)"""
    path = ROOT / "fixtures" / case
    text = path.read_text(encoding="utf-8")
    checker = IncrementalChecker(str(path), Config(), fixes=fixes)
    deferred = None if fixes else DeferredFixes
    assert exactly(checker.check(text).diagnostics) == \
        exactly(check_source(str(path), text, Config(), deferred=deferred and deferred()).diagnostics)
    changed = text.replace(before, after)
    assert changed != text
    fresh = check_source(str(path), changed, Config(), deferred=deferred and deferred()).diagnostics
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


# Files whose kernels call helpers and are launched from the file's host code: where a dependency
# graph that drops an edge would reuse stale findings.
GRAPH_FILES = ["unmasked-tail-load/jit_helper_mask_constexpr.py", "unmasked-tail-load/launch_safe_grids.py",
               "weak-evenness-predicate/launch_safe_predicates.py", "unmasked-tail-load/mask_kept_for_a_helper.py",
               "unmasked-tail-load/launch_divisor_helper.py", "unmasked-tail-load/gemm_even_k_twin.py"]


def places(text: str) -> dict[str, list[int]]:
    """0-based lines by where they are: in a helper (a kernel another kernel names), in a kernel that
    is no helper, in a launch (`name[`), in the rest of the host code."""
    kernels = outline(text).kernels
    names = {kernel.name for kernel in kernels}
    helpers = {name for kernel in kernels for name in names - {kernel.name} if name in kernel.text}
    found: dict[str, list[int]] = {"helper": [], "kernel": [], "launch": [], "host": []}
    inside: set[int] = set()
    for kernel in kernels:
        first = kernel.first_line - 1
        lines = range(first + 1, first + kernel.text.rstrip("\n").count("\n") + 1)
        inside.update(range(first, lines.stop))
        found["helper" if kernel.name in helpers else "kernel"].extend(lines)
    for number, line in enumerate(text.splitlines()):
        if number not in inside:
            launch = any(f"{name}[" in line for name in names)
            found["launch" if launch else "host"].append(number)
    return found


def mutated(text: str, line: int, rng: random.Random) -> str:
    """`text` with one change on `line`: a mask dropped, a comparison or a grid changed, a constant
    changed, or a statement inserted before it (the lines after it move)."""
    lines = text.splitlines(keepends=True)
    old = lines[line]
    indent = old[:len(old) - len(old.lstrip())]
    changes = [
        re.sub(r",\s*mask=[^,()]+(\([^()]*\))?[^,()]*", "", old, count=1),
        old.replace(" < ", " <= ", 1),
        old.replace("triton.cdiv(", "max(", 1),
        re.sub(r"\b([\w.]+) // (\w+)\b", r"triton.cdiv(\1, \2)", old, count=1),  # an exact grid rounded up
        re.sub(r"triton\.cdiv\(([\w.]+), (\w+)\)", r"\1 // \2", old, count=1),  # and back
        old.replace("// ", "% ", 1),
        re.sub(r"\b(\d+)\b", lambda m: str(int(m.group(1)) + 1), old, count=1),
    ]
    candidates = [change for change in changes if change != old]
    if candidates and rng.random() < 0.7:
        lines[line] = rng.choice(candidates)
    elif old.strip() and not old.rstrip().endswith((",", "(", "\\")):
        lines.insert(line, f"{indent}edited_{rng.randrange(1000)} = 0\n")
    else:
        lines.insert(line, "\n")
    return "".join(lines)


@pytest.mark.parametrize("fixes", [True, False], ids=["check", "editor"])
def test_random_edits_give_what_a_cold_check_gives(fixes: bool) -> None:
    """Edits at random places (a helper, a kernel, a launch, the rest of the host code), one after
    the other: after each, the incremental findings are exactly a cold check's. In the editor's
    mode (no fixes) kernels of a group analysed again are replayed from memory (`kernel_memo`)
    where their inputs are unchanged: those too must be a cold check's."""
    changed_findings = 0
    replayed = 0
    for case in GRAPH_FILES:
        path = ROOT / "fixtures" / case
        text = path.read_text(encoding="utf-8")
        rng = random.Random(case)
        checker = IncrementalChecker(str(path), Config(), fixes=fixes)
        before = checker.check(text)
        for step in range(24):
            where = places(text)
            kind = ["helper", "kernel", "launch", "host"][step % 4]
            if not where[kind]:
                continue
            after = mutated(text, rng.choice(where[kind]), rng)
            again = checker.check(after)
            replayed += len(checker.replayed)
            cold = check_source(str(path), after, Config(), deferred=None if fixes else DeferredFixes())
            assert exactly(again.diagnostics) == exactly(cold.diagnostics), f"{case}, step {step}: an edit in a {kind}"
            assert again.errors == cold.errors
            if cold.errors:  # a text that does not parse is checked, and the next edit goes elsewhere
                continue
            changed_findings += [(d.code, d.message) for d in before.diagnostics] != \
                [(d.code, d.message) for d in cold.diagnostics]
            text, before = after, cold
    # Edits that change what is reported: without them stale findings would pass unseen.
    assert changed_findings >= 3
    assert fixes or replayed >= 10  # (the editor's memory was used: the comparison says something of it)


def test_an_edit_to_one_group_leaves_the_others_alone() -> None:
    """A helper edited re-analyses it and its callers; kernels that neither call it nor are called by
    it come from memory."""
    helpers = (ROOT / "fixtures" / "unmasked-tail-load" / "jit_helper_mask_constexpr.py").read_text(encoding="utf-8")
    twins = (ROOT / "fixtures" / "unmasked-tail-load" / "gemm_even_k_twin.py").read_text(encoding="utf-8")
    text = helpers + "\n\n" + twins
    group = [kernel.name for kernel in outline(helpers).kernels]
    checker = IncrementalChecker("both.py", Config())
    checker.check(text)
    changed = edited(text, 0)  # the first helper
    assert exactly(checker.check(changed).diagnostics) == exactly(check_source("both.py", changed, Config()).diagnostics)
    assert list(checker.analysed) == group
    outside = "import os\n" + changed
    assert exactly(checker.check(outside).diagnostics) == exactly(check_source("both.py", outside, Config()).diagnostics)
    assert checker.analysed == ()


def test_a_group_analysed_again_re_parses_only_the_edited_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor keeps each kernel's libcst tree by its text: after an edit of the caller, its
    helpers' trees are reused (not parsed again), and the findings are still a cold check's; after
    an edit of a helper, the helper's new text is parsed (a tree kept by name would be stale)."""
    import libcst

    text = (ROOT / "fixtures" / "unmasked-tail-load" / "jit_helper_mask_constexpr.py").read_text(encoding="utf-8")
    parsed: list[str] = []
    real = libcst.parse_module

    def parse_module(source: str) -> libcst.Module:
        parsed.append(source)
        return real(source)

    monkeypatch.setattr(libcst, "parse_module", parse_module)
    kernels = outline(text).kernels
    checker = IncrementalChecker("helper.py", Config(), fixes=False)
    checker.check(text)
    assert len(parsed) == len(kernels)
    parsed.clear()
    caller_edited = edited(text, -1)
    again = checker.check(caller_edited)
    assert list(checker.analysed) == [kernel.name for kernel in kernels]  # the whole group analysed...
    # ...the edited kernel alone parsed: the statement edited in it (spliced into its old tree)
    assert len(parsed) == 1 and "edited_ = 0" in parsed[0]
    fresh = check_source("helper.py", caller_edited, Config(), deferred=None)
    assert [(d.code, d.line, d.message) for d in again.diagnostics] == \
        [(d.code, d.line, d.message) for d in fresh.diagnostics]
    # The helper's mask taken away: its new text is parsed, and the finding it now has is reported.
    helper = kernels[0]
    assert helper.text.count("mask=") >= 1
    unmasked_helper = caller_edited.replace(helper.text, re.sub(r", mask=[^,)]*", "", helper.text), 1)
    parsed.clear()
    after = checker.check(unmasked_helper)
    helper_now = outline(unmasked_helper).kernels[0].text  # parsed whole, or its edited statements alone
    assert len(parsed) == 1 and all(line in helper_now for line in parsed[0].splitlines() if line.strip() != "if 1:")
    cold = check_source("helper.py", unmasked_helper, Config())
    assert [(d.code, d.line, d.message) for d in after.diagnostics] == \
        [(d.code, d.line, d.message) for d in cold.diagnostics]
    assert len(cold.diagnostics) > len(fresh.diagnostics)  # the edit changed what is reported
