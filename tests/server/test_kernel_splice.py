"""An edited kernel's tree spliced from its old one: the tree a whole parse gives, or no tree at all."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import libcst as cst
import pytest

from tritonlint.config import Config
from tritonlint.deferred_fixes import DeferredFixes
from tritonlint.diagnostics import Diagnostic
from tritonlint.engine import check_source
from tritonlint.incremental import IncrementalChecker
from tritonlint.kernel_splice import spliced
from tritonlint.source.outline import KernelSource, outline

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in ROOT.glob("fixtures/*/*.py") if not p.name.endswith(("_harness.py", ".fixed.py")))

# A kernel with nested loops and branches, comments at every depth, a statement over several lines.
NESTED = '''import triton
import triton.language as tl


@triton.jit
def nested(a_ptr, b_ptr, n, k, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    # the reduction
    for i in range(0, k, BLOCK):
        if EVEN:
            x = tl.load(a_ptr + offs + i)
        else:
            x = tl.load(a_ptr + offs + i,
                        mask=offs + i < k,
                        other=0.0)
        for j in range(2):
            acc += x * j  # inner
            # a comment at the end of the inner loop

        acc += 1.0
    tl.store(b_ptr + offs, acc)
    if pid == 0:
        tl.store(b_ptr, acc)


def launch(a, b, n, k):
    nested[(triton.cdiv(n, 64),)](a, b, n, k, BLOCK=64, EVEN=k % 64 == 0)
'''

_PIECES = ["x = x + 1", "acc += x", "y = tl.load(a_ptr + offs)", "tl.store(b_ptr + offs, acc)",
           "# a comment", "", "for q in range(3):\n{i}    acc += q", "if EVEN:\n{i}    acc += 2.0",
           "z = (x +\n{i}     1)", "pass"]


def random_edit(text: str, rng: random.Random) -> str:
    """One edit of a kernel's body: a line inserted (code, a comment, a blank line, a block), deleted,
    changed, re-indented, or a token deleted (which may break the syntax)."""
    lines = text.splitlines(keepends=True)
    body = [n for n, line in enumerate(lines) if n > 0 and line.startswith((" ", "\t"))]
    if not body:
        return text
    at = rng.choice(body)
    indent = re.match(r"[ \t]*", lines[at]).group(0)  # type: ignore[union-attr]
    newline = "\r\n" if lines[at].endswith("\r\n") else "\n"
    kind = rng.randrange(6)
    if kind <= 1:
        piece = rng.choice(_PIECES).format(i=indent).replace("\n", newline)
        lines.insert(at + rng.randrange(2), f"{indent}{piece}{newline}" if piece else newline)
    elif kind == 2 and len(body) > 2:
        del lines[at]
    elif kind == 3:
        lines[at] = lines[at].replace("+", "-", 1).replace("0", "1", 1)
    elif kind == 4:
        unit = "\t" if indent.startswith("\t") else "    "
        lines[at] = unit + lines[at] if rng.randrange(2) else lines[at][len(unit):] if lines[at].startswith(unit * 2) else lines[at]
    else:
        stripped = lines[at].rstrip("\r\n")
        cut = rng.randrange(len(stripped) + 1)
        lines[at] = stripped[:cut] + stripped[cut + 1:] + newline
    return "".join(lines)


def kernels_of(text: str) -> dict[str, KernelSource] | None:
    try:
        ast.parse(text)
        return {kernel.name: kernel for kernel in outline(text).kernels}
    except (SyntaxError, ValueError):
        return None


def test_a_spliced_tree_is_the_tree_of_a_whole_parse() -> None:
    """Random edits in every fixture's kernels and in a kernel with nested loops: a spliced tree,
    when there is one, prints the new text byte for byte and equals its whole parse node for node
    (comments and blank lines owned by the same statements and blocks)."""
    done = refused = 0
    variants = {"lf": NESTED, "crlf": NESTED.replace("\n", "\r\n"), "tabs": NESTED.replace("    ", "\t")}
    for path in [*variants, *FIXTURES]:
        text = variants[path] if isinstance(path, str) else path.read_text(encoding="utf-8")
        rng = random.Random(str(path))
        kernels = kernels_of(text)
        if not kernels:
            continue
        trees = {name: cst.parse_module(kernel.text) for name, kernel in kernels.items() if not kernel.indented}
        for _ in range(40 if isinstance(path, str) else 6):
            after = random_edit(text, rng)
            now = kernels_of(after)
            if now is None or set(now) != set(kernels):
                continue
            for name, tree in list(trees.items()):
                if now[name].text == kernels[name].text:
                    continue
                try:
                    whole = cst.parse_module(now[name].text)
                except cst.ParserSyntaxError:
                    continue
                fresh = spliced(kernels[name], tree, now[name])
                if fresh is None:
                    refused += 1
                else:
                    done += 1
                    assert fresh.code == now[name].text, f"{path}: {name}"
                    assert fresh.deep_equals(whole), f"{path}: {name}\n{now[name].text}"
                trees[name] = whole
            text, kernels = after, now
    assert done >= 100  # most edits are spliced...
    assert refused >= 5  # ...and the refusals are exercised too


def from_scratch(path: str, text: str) -> tuple[tuple[Diagnostic, ...], tuple[str, ...]]:
    """What a check of `text` alone publishes in the editor (fixes left for the code action)."""
    report = check_source(path, text, Config(), deferred=DeferredFixes())
    return report.diagnostics, report.errors


def published(diagnostics: tuple[Diagnostic, ...]) -> list[tuple[str, int, int, int, str, tuple[str, ...]]]:
    return [(d.code, d.line, d.start_offset, d.end_offset, d.message, d.notes) for d in diagnostics]


def test_random_edits_are_published_as_a_whole_check_reports_them() -> None:
    """The editor's findings after each edit of a sequence (insertions, deletions, a line in a nested
    loop, a token cut out and put back) are a from-scratch check's of the same text."""
    compared = broken = 0
    for path in [None, *FIXTURES[::7]]:
        text = NESTED if path is None else path.read_text(encoding="utf-8")
        rng = random.Random(f"publish {path}")
        checker = IncrementalChecker(str(path or "nested.py"), Config(), fixes=False)
        checker.check(text)
        for _ in range(30 if path is None else 5):
            after = random_edit(text, rng)
            again = checker.check(after)
            cold, errors = from_scratch(str(path or "nested.py"), after)
            assert published(again.diagnostics) == published(cold), f"{path}\n{after}"
            assert again.errors == errors
            compared += 1
            if errors:
                broken += 1
                repaired = checker.check(text)  # the syntax repaired: back to the last good text
                assert published(repaired.diagnostics) == published(from_scratch(str(path or "nested.py"), text)[0])
                continue
            text = after
    assert compared >= 60 and broken >= 2


def test_a_line_inside_a_nested_loop_is_parsed_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit in the innermost loop parses that loop's statement, not the kernel; the findings
    stay a cold check's."""
    parsed: list[str] = []
    real = cst.parse_module

    def parse_module(source: str) -> cst.Module:
        parsed.append(source)
        return real(source)

    checker = IncrementalChecker("nested.py", Config(), fixes=False)
    checker.check(NESTED)
    monkeypatch.setattr(cst, "parse_module", parse_module)
    after = NESTED.replace("acc += x * j  # inner", "acc += x * j * 2  # inner")
    report = checker.check(after)
    monkeypatch.undo()
    assert len(parsed) == 1 and "def nested" not in parsed[0] and "acc += x * j * 2" in parsed[0]
    assert parsed[0].count("\n") <= 5
    assert published(report.diagnostics) == published(from_scratch("nested.py", after)[0])
