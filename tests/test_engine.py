"""The engine on source text: which functions are kernels, positions, strict mode, crashes and fixes."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import libcst as cst
import pytest
from tritonlint.rules.tail_tile.finding import TailTileFinding

from tritonlint import engine
from tritonlint.cli import main
from tritonlint.config import Config
from tritonlint.diagnostics import Applicability, Edit
from tritonlint.engine import RuleCrash, check_source, fix_source
from tritonlint.fixing import edits
from tritonlint.fixing.masks import CallFix
from tritonlint.rule import all_rules
from tritonlint.source.outline import NESTED_PREFIX, line_starts

CONFIG = Config()

# The body of one kernel whose store (column 5 at top level) is unmasked while
# the load of the same dimension is masked: exactly one TL102 (line 9 of `kernel()`).
BODY = """\
def scale(X, Y, n, BLOCK: {tl}.constexpr):
    offs = {tl}.program_id(0) * BLOCK + {tl}.arange(0, BLOCK)
    x = {tl}.load(X + offs, mask=offs < n, other=0.0)
    {tl}.store(Y + offs, x * 2)
"""


def kernel(decorator: str = "@triton.jit", tl: str = "tl", imports: str = "import triton\nimport triton.language as tl\n") -> str:
    return f"{imports}\n\n{decorator}\n{BODY.format(tl=tl)}"


def found(text: str, config: Config = CONFIG) -> list[tuple[int, int, str]]:
    report = check_source("k.py", text, config, strict=True)
    assert not report.errors and not report.crashes, report.errors + report.crashes
    return [(d.line, d.column, d.code) for d in report.diagnostics]


def test_plain_kernel() -> None:
    assert found(kernel()) == [(9, 5, "TL102")]


def test_a_function_that_is_not_jit_is_not_checked() -> None:
    assert found(kernel(decorator="@functools.cache", imports="import functools\nimport triton.language as tl\n")) == []
    assert found(kernel(decorator="")) == []


def test_a_file_without_jit_or_triton_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(_text: str) -> None:
        raise AssertionError("outlined a file that cannot hold a kernel")

    monkeypatch.setattr(engine, "outline", fail)
    report = check_source("x.py", "def f(:\n  pass\n", CONFIG, strict=True)
    assert report.diagnostics == () and report.errors == ()


# --- how kernels and triton.language are spelled ---------------------------------------------


@pytest.mark.parametrize(
    ("imports", "decorator", "tl"),
    [
        ("import triton\nimport triton.language as tl\n", "@triton.jit()", "tl"),
        ("import triton\nimport triton.language as tl\n", "@triton.jit(do_not_specialize=['n'])", "tl"),
        ("from triton import jit\nimport triton.language as tl\n", "@jit", "tl"),
        ("from triton import jit as tjit\nimport triton.language as tl\n", "@tjit", "tl"),
        ("import triton as tr\nimport triton.language as language\n", "@tr.jit", "language"),
        ("import triton\nfrom triton import language as lang\n", "@triton.jit", "lang"),
        ("import triton\nimport triton.language\n", "@triton.jit", "triton.language"),
        ("from vllm.triton_utils import tl, triton\n", "@triton.jit", "tl"),
        ("from x.triton_utils import tl, triton\n", "@triton.jit", "tl"),
        ("from sglang.srt.utils import triton, tl\n", "@triton.jit", "tl"),
        ("import triton\nimport triton.language as tl\n",
         "@triton.autotune(configs=[], key=['n'])\n@triton.jit", "tl"),
        ("import triton\nimport triton.language as tl\n",
         "@triton.heuristics({'EVEN': lambda a: a['n'] % a['BLOCK'] == 0})\n@triton.jit", "tl"),
    ],
    ids=["jit-call", "jit-args", "from-jit", "from-jit-as", "import-as", "from-language-as",
         "dotted-language", "vllm-reexport", "other-reexport", "reexport-reversed", "autotune", "heuristics"],
)
def test_import_aliases_and_decorators(imports: str, decorator: str, tl: str) -> None:
    text = kernel(decorator=decorator, tl=tl, imports=imports)
    line = text.splitlines().index(f"    {tl}.store(Y + offs, x * 2)") + 1
    assert found(text) == [(line, 5, "TL102")]


def test_look_alike_load_from_another_module_is_not_checked() -> None:
    text = kernel(tl="np", imports="import triton\nimport numpy as np\n")
    assert found(text) == []


# --- nested kernels, positions ---------------------------------------------------------------


def test_nested_kernels_are_found_with_their_lines() -> None:
    nested = "\n".join("    " + line if line else "" for line in ("@triton.jit\n" + BODY.format(tl="tl")).splitlines())
    deeper = "\n".join("    " + line if line else "" for line in nested.splitlines())
    text = (
        "import triton\nimport triton.language as tl\n\n\n"
        "def make_kernel():\n"
        f"{nested}\n"
        "    return scale\n\n\n"
        "class Ops:\n"
        "    def build(self):\n"
        f"{deeper}\n"
        "        return scale\n"
    )
    lines = text.splitlines()
    stores = [number for number, line in enumerate(lines, start=1) if line.strip() == "tl.store(Y + offs, x * 2)"]
    columns = [lines[n - 1].index("tl.store") + 1 for n in stores]
    assert found(text) == [(stores[0], columns[0], "TL102"), (stores[1], columns[1], "TL102")]
    assert columns == [9, 13]


def test_multiline_call_spans_its_lines() -> None:
    text = kernel().replace("tl.store(Y + offs, x * 2)", "tl.store(\n        Y + offs,\n        x * 2,\n    )")
    report = check_source("k.py", text, CONFIG, strict=True)
    (d,) = report.diagnostics
    assert (d.line, d.column, d.end_line, d.end_column) == (9, 5, 12, 6)
    assert text[d.start_offset:d.end_offset].startswith("tl.store(") and text[d.start_offset:d.end_offset].endswith(")")


def test_crlf_positions_match_lf() -> None:
    lf = kernel()
    crlf = lf.replace("\n", "\r\n")
    lf_report = check_source("k.py", lf, CONFIG, strict=True)
    crlf_report = check_source("k.py", crlf, CONFIG, strict=True)
    positions = [(d.line, d.column, d.end_line, d.end_column) for d in lf_report.diagnostics]
    assert positions == [(d.line, d.column, d.end_line, d.end_column) for d in crlf_report.diagnostics]
    assert positions == [(9, 5, 9, 30)]
    (d,) = crlf_report.diagnostics
    assert crlf[d.start_offset:d.end_offset] == "tl.store(Y + offs, x * 2)"


def test_crlf_fixture_positions_through_the_cli(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parent.parent
    fixture = root / "fixtures" / "unmasked-tail-load" / "cross_entropy_class_weight_crlf.py"
    data = fixture.read_bytes()
    assert b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n")
    monkeypatch.chdir(root)
    main(["check", "-q", fixture.relative_to(root).as_posix()])
    head = capsys.readouterr().out.splitlines()[0]
    line, column = (int(part) for part in head.split(":")[1:3])
    source_line = data.split(b"\r\n")[line - 1].decode()
    assert source_line[column - 1:].startswith("tl.load(")


def test_diagnostic_notes_name_the_condition_and_the_dimension() -> None:
    text = kernel()
    (d,) = check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert d.name == "unmasked-tail-store"
    assert "tl.store" in d.message and "`offs`" in d.message
    assert any("reachable" in note for note in d.notes)
    assert any(note.startswith("walks `offs`") for note in d.notes)


# --- syntax errors, strict mode, crashes -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["import triton\n@triton.jit\ndef k(:\n    pass\n", "import triton\n@triton.jit\ndef k():\n\tif 1:\n        pass\n"],
    ids=["syntax", "tabs"],
)
def test_syntax_errors_are_one_line_errors(text: str) -> None:
    report = check_source("bad.py", text, CONFIG, strict=True)
    assert report.diagnostics == ()
    (error,) = report.errors
    assert error.startswith("bad.py:") and "\n" not in error


def test_deeply_nested_code_is_an_error_not_a_crash() -> None:
    text = "import triton\n@triton.jit\ndef k(x):\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"
    report = check_source("deep.py", text, CONFIG)
    assert report.errors and not report.crashes



FIXTURE_SOURCES = sorted(p for p in (Path(__file__).resolve().parent.parent / "fixtures").glob("*/*.py")
                         if not p.name.endswith("_harness.py"))


@pytest.mark.parametrize("path", FIXTURE_SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kernels_parsed_without_node_validation_match_a_validated_parse(path: Path) -> None:
    import libcst as cst

    hook = cst.CSTNode.__post_init__
    _, kernels = engine.parse_kernels(path.read_text())
    assert cst.CSTNode.__post_init__ is hook  # validation is back on for every other node
    for kernel, module in kernels:
        source = NESTED_PREFIX + kernel.text if kernel.indented else kernel.text
        assert module.code == source
        assert module.deep_equals(cst.parse_module(source))


def test_node_validation_is_restored_when_a_kernel_does_not_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst as cst

    def rejecting(source: str) -> cst.Module:
        raise cst.ParserSyntaxError("rejected", lines=[source], raw_line=1, raw_column=0)

    hook = cst.CSTNode.__post_init__
    monkeypatch.setattr(cst, "parse_module", rejecting)
    with pytest.raises(cst.ParserSyntaxError):
        engine.parse_kernels(kernel())
    assert cst.CSTNode.__post_init__ is hook
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_checking_a_file_leaves_no_cycles_and_the_collector_as_it_was() -> None:
    import gc

    path = next(Path(__file__).resolve().parent.parent.glob("fixtures/*/jit_helper_mask_constexpr.py"))
    text = path.read_text()  # kernels calling a jit helper: the models refer to each other
    assert check_source("k.py", text, CONFIG, strict=True).diagnostics
    assert gc.isenabled()
    gc.collect()
    gc.disable()  # else a collection may run between the check and the count
    try:
        check_source("k.py", text, CONFIG, strict=True)
        assert not gc.isenabled()
        assert gc.collect() == 0  # the syntax trees were freed by reference counting
    finally:
        gc.enable()


def test_node_classes_tested_by_exact_type_have_no_subclasses() -> None:
    """Hot paths spell `isinstance(node, cst.Name)` as `type(node) is cst.Name` (see tree.TypeTest):
    the same only while libcst's concrete node classes have no subclasses."""
    import re

    import libcst as cst

    package = Path(engine.__file__).resolve().parent
    source = "\n".join(path.read_text() for path in package.rglob("*.py"))
    tested = set(re.findall(r"type\([\w.]+\) (?:is|is not|in) \(?(cst\.\w+(?:, cst\.\w+)*)", source))
    names = {name.removeprefix("cst.") for group in tested for name in group.split(", ")}
    assert {"Name", "Call", "IfExp"} <= names
    for name in names:
        assert not getattr(cst, name).__subclasses__(), name

class _Boom(Exception):
    pass


@pytest.fixture
def crashing_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = all_rules()[0]

    def check(self: object, kernel: object) -> Iterator[object]:
        raise _Boom("rule bug")

    monkeypatch.setattr(rule, "check", check)


@pytest.mark.usefixtures("crashing_rule")
def test_strict_mode_reraises_a_rule_crash() -> None:
    with pytest.raises(RuleCrash) as caught:
        check_source("k.py", kernel(), CONFIG, strict=True)
    assert isinstance(caught.value.__cause__, _Boom)
    assert "TL101" in str(caught.value) and "k.py" in str(caught.value)


@pytest.mark.usefixtures("crashing_rule")
def test_lenient_mode_reports_the_crash_and_runs_the_other_rules() -> None:
    report = check_source("k.py", kernel(), CONFIG)
    (crash,) = report.crashes
    assert "internal error in TL101 (unmasked-tail-load)" in crash and "_Boom: rule bug" in crash
    assert [d.code for d in report.diagnostics] == ["TL102"]


@pytest.mark.usefixtures("crashing_rule")
def test_a_crash_exits_2_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "k.py").write_text(kernel())
    monkeypatch.chdir(tmp_path)
    assert main(["check", "k.py"]) == 2
    captured = capsys.readouterr()
    assert "k.py:9:5: TL102" in captured.out
    assert "internal error in TL101" in captured.err


# --- suppressions in the engine --------------------------------------------------------------


@pytest.mark.parametrize(("comment", "suppressed"), [
    ("# tritonlint: ignore[TL102] padded by the caller", True),
    ("# noqa: TL102", True),
    ("# noqa:TL101,TL102", True),
    ("# tritonlint: ignore[TL101]", False),
    ("# noqa: TL101", False),
])
def test_suppressions_are_counted(comment: str, suppressed: bool) -> None:
    text = kernel().replace("tl.store(Y + offs, x * 2)", f"tl.store(Y + offs, x * 2)  {comment}")
    report = check_source("k.py", text, CONFIG, strict=True)
    assert (report.suppressed, len(report.diagnostics)) == ((1, 0) if suppressed else (0, 1))


def test_a_suppression_on_the_line_above_does_not_count() -> None:
    text = kernel().replace("    x = tl.load", "    # noqa: TL102\n    x = tl.load")
    assert [code for _, _, code in found(text)] == ["TL102"]


# --- fixing -----------------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_fix_source_masks_the_store_and_converges(newline: str) -> None:
    text = kernel().replace("\n", newline)
    report = fix_source("k.py", text, CONFIG, unsafe=True, strict=True)
    assert not report.errors and report.fixed_text is not None
    fixed = report.fixed_text
    assert fixed == text.replace("x * 2)", "x * 2, mask=offs < n)")
    ast.parse(fixed)
    assert found(fixed) == []
    assert fix_source("k.py", fixed, CONFIG, unsafe=True, strict=True).fixed_text is None


def test_fix_leaves_comments_and_other_code_alone() -> None:
    text = kernel().replace("tl.store(Y + offs, x * 2)", "tl.store(Y + offs,  # the output\n        x * 2)  # done")
    fixed = fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text
    assert fixed is not None
    assert "# the output\n" in fixed and fixed.endswith("  # done\n")
    before, after = text.splitlines(), fixed.splitlines()
    # Everything above the store's last line is kept, its comments included; the mask goes in
    # where the call's arguments are (one per line here), and `# done` stays after its `)`.
    assert after[:len(before) - 1] == before[:-1]
    assert after[-1].endswith(")  # done")
    # The store means what it did, plus the mask (compared on the syntax tree, whatever the layout).
    stores = [ast.unparse(c) for t in (text, fixed) for c in ast.walk(ast.parse(t))
              if isinstance(c, ast.Call) and ast.unparse(c.func) == "tl.store"]
    assert stores == ["tl.store(Y + offs, x * 2)", "tl.store(Y + offs, x * 2, mask=offs < n)"]


def test_clean_source_has_nothing_to_fix() -> None:
    text = kernel().replace("x * 2)", "x * 2, mask=offs < n)")
    assert fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text is None


def test_fix_source_names_the_codes_it_fixed() -> None:
    text = kernel()
    report = fix_source("k.py", text, CONFIG, unsafe=True, strict=True)
    assert report.fixed_text is not None and report.fixed == ("TL102",)
    assert report.text == text  # the report's text is the file as read; the fixed text is beside it
    assert fix_source("k.py", report.fixed_text, CONFIG, unsafe=True, strict=True).fixed == ()


def _nested(text: str) -> str:
    """`text`'s kernel defined inside a function (an indented kernel, parsed behind a wrapper)."""
    head, _, body = text.partition("@triton.jit\n")
    return head + "def make():\n" + "".join(f"    {line}\n" if line else "\n" for line in
                                             ("@triton.jit\n" + body).splitlines()) + "    return scale\n"


@pytest.mark.parametrize("nested", [False, True], ids=["top-level", "nested"])
def test_a_parenthesized_call_is_fixed_through_the_whole_kernel(nested: bool) -> None:
    # The parentheses are outside the call's span, so the call cannot be re-printed in place:
    # the kernel is printed with the call replaced and the edit trimmed to what differs.
    text = kernel().replace("tl.store(Y + offs, x * 2)", "(tl.store(Y + offs, x * 2))")
    if nested:
        text = _nested(text)
    report = fix_source("k.py", text, CONFIG, unsafe=True, strict=True)
    assert not report.errors and report.fixed == ("TL102",)
    assert report.fixed_text == text.replace("x * 2))", "x * 2, mask=offs < n))")


def test_the_indentations_above_a_line_are_its_leading_whitespace_only() -> None:
    text = "def f():\n    if x:\n\ty = (1,\n  2)\n"
    assert list(edits._indents_above(text, line_starts(text), 4)) == ["  ", "\t", "    ", ""]


def test_a_model_built_with_the_file_text_takes_positions_from_its_ast() -> None:
    text = kernel()
    found_, kernels = engine.parse_file(text)
    ((source, module),) = kernels
    model = engine.build_model(source, module, found_.imports, CONFIG, text)
    assert model.locator is not None
    assert engine.build_model(source, module, found_.imports, CONFIG).locator is None


def _faulty_fix(monkeypatch: pytest.MonkeyPatch, change: Callable[[cst.Call], cst.Call]) -> None:
    """The tail-tile fix (TL101/TL102) replaced by a broken one (the fixer's bugs the engine must catch)."""

    def fix(self: TailTileFinding) -> CallFix:
        return CallFix("broken fix", Applicability.SAFE, change(self.hazard.access.call))

    monkeypatch.setattr(TailTileFinding, "fix", fix)


def test_a_fix_that_would_not_parse_is_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    # `None=0`: each node valid to libcst, the call not Python.
    _faulty_fix(monkeypatch, lambda call: call.with_changes(
        args=[*call.args, cst.Arg(cst.Integer("0"), keyword=cst.Name("None"))]))
    text = kernel()
    report = fix_source("k.py", text, CONFIG, strict=True)
    (error,) = report.errors
    assert error.startswith("k.py: fix not applied: the fixed source would not parse (") and error.endswith(", line 9)")
    assert report.fixed_text is None and report.text == text
    assert [(d.line, d.code) for d in report.diagnostics] == [(9, "TL102")]


def test_a_fix_that_never_settles_is_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each round adds one more (ignored) keyword: always a new edit, never the old one again.
    _faulty_fix(monkeypatch, lambda call: call.with_changes(
        args=[*call.args, cst.Arg(cst.Integer("0"), keyword=cst.Name(f"k{len(call.args)}"))]))
    text = kernel()
    report = fix_source("k.py", text, CONFIG, strict=True)
    assert report.errors == (f"k.py: fix not applied: fixes did not settle after {engine.MAX_FIX_ROUNDS} rounds",)
    assert report.fixed_text is None and report.text == text
    assert [(d.line, d.column, d.end_column, d.code) for d in report.diagnostics] == [(9, 5, 30, "TL102")]


def test_a_fix_that_rewrites_its_own_edit_is_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    # Round one writes `y`; round two, finding the access again, would replace that `y`.
    def swap(call: cst.Call) -> cst.Call:
        last = call.args[-1]
        new = "z" if isinstance(last.value, cst.Name) and last.value.value == "y" else "y"
        return call.with_changes(args=[*call.args[:-1], last.with_changes(value=cst.Name(new))])

    _faulty_fix(monkeypatch, swap)
    text = kernel()
    report = fix_source("k.py", text, CONFIG, strict=True)
    assert report.errors == (("k.py: fix not applied: a fixed access was still reported; please report this "
                              "tritonlint bug with the file"),)
    assert report.fixed_text is None and report.text == text
    assert [(d.line, d.column, d.end_column, d.code) for d in report.diagnostics] == [(9, 5, 30, "TL102")]


def test_the_smallest_edit_of_an_appended_or_removed_tail() -> None:
    assert edits.smallest_edit("ab", "abc", 10) == Edit(12, 12, "c")
    assert edits.smallest_edit("abc", "ab", 10) == Edit(12, 13, "")
    assert edits.smallest_edit("a(b)", "a(b, c)", 0) == Edit(3, 3, ", c")


def test_apply_edits_skips_only_the_edit_that_overlaps() -> None:
    # the second edit overlaps the first and waits for the next round; the third is applied now
    edits = [Edit(0, 2, "X"), Edit(1, 3, "Y"), Edit(4, 5, "Z")]
    assert engine.apply_edits("abcdef", edits) == "XcdZf"
