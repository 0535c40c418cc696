"""Positions read from the `ast` outline agree with libcst's PositionProvider, and edits printed in
place agree with edits found by printing the whole kernel; results do not depend on hash order."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from tritonlint.config import Config
from tritonlint.engine import build_model, check_source, parse_kernels
from tritonlint.fixing import edits
from tritonlint.source.locations import Span
from tritonlint.source.names import dotted
from tritonlint.source.outline import line_starts
from tritonlint.source.tree import nodes_under

ROOT = Path(__file__).resolve().parents[2]
# Fixture modules that define kernels (a package's launcher module defines none).
FIXTURES = sorted(path for path in (ROOT / "fixtures").rglob("*.py")
                  if not path.name.startswith("_") and not path.stem.endswith("_harness")
                  and "@triton.jit" in path.read_text())
REGRESSIONS = ROOT / "tests" / "regressions"

# Non-ASCII text before a call (ast columns count bytes), a nested kernel, a multi-line call,
# a conditional expression holding calls, decorators with calls.
ODD = '''\
import triton
import triton.language as tl


class Holder:
    @triton.jit
    def kernel(X, Y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        s = "größe"; x = tl.load(X + offs) if EVEN else tl.load(X + offs, mask=offs < n)
        for i in range(0, n, BLOCK):
            tl.store(
                Y + offs,  # ünïcode comment
                x,
            )


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def other(X, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    while n > 0:
        tl.store(X + offs, tl.load(X + offs))
        n -= BLOCK
'''


def _models(text: str):  # type: ignore[no-untyped-def]
    imports, kernels = parse_kernels(text)
    starts = line_starts(text)
    for kernel, module in kernels:
        yield build_model(kernel, module, imports, Config(), text, starts)


def _indexed_nodes(model):  # type: ignore[no-untyped-def]
    wanted = (cst.Call, cst.Comparison, cst.For, cst.While)
    return [node for node in model._positions if isinstance(node, wanted)]


@pytest.mark.parametrize("text", [ODD, *(p.read_text() for p in FIXTURES)],
                         ids=["odd", *(p.stem for p in FIXTURES)])
def test_ast_positions_equal_position_provider(text: str) -> None:
    checked = 0
    for model in _models(text):
        assert model.locator is not None
        for node in _indexed_nodes(model):
            span = model.locator.span(model.function, node)
            assert span is not None, f"{type(node).__name__} not placed"
            position = model._positions[node]
            expected = Span(position.start.line + model.line_base, position.start.column,
                            position.end.line + model.line_base, position.end.column)
            if isinstance(node, (cst.For, cst.While)):  # only a loop's first line is ever used
                assert span.line == expected.line
            else:
                assert span == expected, cst.Module([]).code_for_node(node)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("text", [ODD, *(p.read_text() for p in FIXTURES[::3])],
                         ids=["odd", *(p.stem for p in FIXTURES[::3])])
def test_a_callee_is_placed_where_position_provider_places_it(text: str) -> None:
    """`tl.exp` of `tl.exp(x)` is placed from the ast callee of the ranked call (a rule names the line
    of a callee whose call the model rebuilt), exactly where libcst places it; any other callee
    (`(a & b).to`) is left to PositionProvider."""
    checked = 0
    for model in _models(text):
        assert model.locator is not None
        for node in _indexed_nodes(model):
            if not isinstance(node, cst.Call):
                continue
            span = model.locator.span(model.function, node.func)
            if "(" in cst.Module([]).code_for_node(node.func) or dotted(node.func) is None:
                assert span is None
                continue
            assert span is not None, cst.Module([]).code_for_node(node.func)
            position = model._positions[node.func]
            assert span == Span(position.start.line + model.line_base, position.start.column,
                                position.end.line + model.line_base, position.end.column)
            checked += 1
    assert checked > 0


def test_a_parenthesized_callee_is_left_to_position_provider() -> None:
    text = ODD.replace("tl.store(X + offs, tl.load(X + offs))", "(tl).store(X + offs, (tl.load)(X + offs))")
    model = list(_models(text))[1]
    assert model.locator is not None
    callees = [node.func for node in _indexed_nodes(model) if isinstance(node, cst.Call)
               and cst.Module([]).code_for_node(node.func) in ("(tl).store", "(tl.load)")]
    assert len(callees) == 2
    assert all(model.locator.span(model.function, callee) is None for callee in callees)


def test_a_node_of_another_tree_is_not_placed() -> None:
    first, second = list(_models(ODD))
    call = next(node for node in _indexed_nodes(second) if isinstance(node, cst.Call))
    with pytest.raises(KeyError):
        first.span_of(call)


FIXED_CASES = [p for p in FIXTURES if p.with_name(p.stem + ".fixed.py").exists()]


@pytest.mark.parametrize("path", FIXED_CASES, ids=lambda p: p.stem)
def test_edit_printed_in_place_equals_edit_from_the_whole_kernel(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fix of a fixture that has one is printed in place, and equals the edit found by
    printing the whole kernel with the call replaced."""
    text = path.read_text()
    printed: list[str | None] = []
    original = edits.print_in_place

    def spy(*args):  # type: ignore[no-untyped-def]
        printed.append(original(*args))
        return printed[-1]

    monkeypatch.setattr(edits, "print_in_place", spy)
    fast = check_source(str(path), text, Config(), strict=True)
    # TL103 rewrites a host predicate, not a call: nothing of it is printed.
    fixed = [d for d in fast.diagnostics if d.fix is not None and d.fix.edits and d.code != "TL103"]
    if not fixed:
        assert any(d.code == "TL103" and d.fix is not None and d.fix.edits for d in fast.diagnostics)
        return
    # The fast path served every fix (a long fix prints its call twice: inline, then with its mask named).
    assert len(fixed) <= len(printed) <= 2 * len(fixed) and None not in printed
    monkeypatch.setattr(edits, "print_in_place", lambda *args: None)  # force the kernel-wide path
    slow = check_source(str(path), text, Config(), strict=True)
    assert [d.fix for d in fast.diagnostics] == [d.fix for d in slow.diagnostics]


def test_findings_do_not_depend_on_hash_order() -> None:
    """Set iteration order changes with PYTHONHASHSEED; the output must not."""
    target = REGRESSIONS / "two_loops_one_pointer.py"
    outputs = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-m", "tritonlint", "check", "--no-cache", str(target)],
                                capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False)
        assert result.returncode == 1, result.stderr
        outputs.add(result.stdout)
    assert len(outputs) == 1, outputs
    (output,) = outputs
    # The inner loop moves the row offsets only: the column offsets are not walked by it.
    assert output.count("walks `rows` (tiles of BLOCK_N), advanced by the loop at line 19") == 1
    assert "walks `offs_hw`" not in output


@pytest.mark.parametrize("text", ["", "x", "x\n", "a\n\nb", "a\nb\n\n", "é\nü\n", "a\r\nb\rc\n", "a\x0cb\x1c\n"])
def test_line_starts_are_the_offsets_after_each_line_break(text: str) -> None:
    breaks = [i + 1 for i, char in enumerate(text)
              if char == "\n" or (char == "\r" and text[i + 1:i + 2] != "\n")]
    assert line_starts(text) == [0, *breaks]


@pytest.mark.parametrize("text", [ODD, *(p.read_text() for p in FIXTURES[::3])],
                         ids=["odd", *(p.stem for p in FIXTURES[::3])])
def test_a_statement_alone_on_its_line_starts_where_position_provider_says(text: str) -> None:
    """`Locator.statement_start` (a fix's named mask goes on the line above) finds the simple statement
    holding a call, nested in loops and branches too, where libcst places it; it is read from the ast,
    whose statements-only walk must meet every simple statement (else the slower PositionProvider
    answers instead: the same place, so only this test sees it)."""
    checked = 0
    for model in _models(text):
        assert model.locator is not None
        for line in (node for node in nodes_under(model.function) if isinstance(node, cst.SimpleStatementLine)):
            if len(line.body) != 1:
                continue
            statement = line.body[0]
            position = model._positions[statement]
            for call in (node for node in nodes_under(statement) if isinstance(node, cst.Call)):
                found = model.locator.statement_start(model.function, call, type(statement).__name__)
                assert found == (position.start.line + model.line_base, position.start.column), \
                    cst.Module([]).code_for_node(statement)
                checked += 1
    assert checked > 0
