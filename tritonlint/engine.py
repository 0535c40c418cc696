"""The engine: source text in, diagnostics (and fixed text) out. Pure; never raises on user code."""

from __future__ import annotations

import ast
import gc
import os
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

import libcst as cst
from libcst._nodes.internal import CodegenState

from tritonlint.config import Config
from tritonlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from tritonlint.report import FileReport
from tritonlint.rule import Rule, all_rules
from tritonlint.suppressions import comments_by_line, file_suppressions, suppressions_in_line
from tritonlint.triton.launches import Launch, find_launches, kernel_params, may_launch
from tritonlint.triton.locations import Locator, Span, char_column
from tritonlint.triton.model import KernelModel, TailHazard
from tritonlint.triton.names import ImportMap
from tritonlint.triton.outline import (
    KernelSource,
    Outline,
    line_starts,
    might_hold_kernels,
    outline,
)
from tritonlint.triton.predicates import WeakPredicate
from tritonlint.triton.tree import child_nodes

# The modules beside a file, (display path, text), read on demand: where its kernels may be launched.
Neighbours = Callable[[], Sequence[tuple[str, str]]]

# Wraps an indented (nested) function so libcst can parse it on its own.
_NESTED_PREFIX = "if 1:\n"


class RuleCrash(Exception):
    """A rule raised on user code; reported as an internal error naming the rule."""


def enabled_rules(config: Config) -> list[Rule]:
    return [rule() for rule in all_rules() if config.enabled(rule.code, rule.default)]


def parse_kernels(text: str) -> tuple[ImportMap, list[tuple[KernelSource, cst.Module]]]:
    """Each jit function of a file, parsed with libcst on its own.

    Raises SyntaxError (from the outline) or libcst.ParserSyntaxError for code that does not parse.
    """
    found, parsed = parse_file(text)
    return found.imports, parsed


def parse_file(text: str) -> tuple[Outline, list[tuple[KernelSource, cst.Module]]]:
    """The file's outline and each of its jit functions parsed with libcst (see `parse_kernels`)."""
    if not might_hold_kernels(text):
        return Outline(ImportMap()), []
    found = outline(text)
    parsed = []
    with _unvalidated_nodes():
        for kernel in found.kernels:
            source = _NESTED_PREFIX + kernel.text if kernel.indented else kernel.text
            parsed.append((kernel, cst.parse_module(source)))
    return found, parsed


@contextmanager
def _unvalidated_nodes() -> Iterator[None]:
    """Within it, libcst nodes are built without their `_validate` check (a tenth of parsing time).

    The check guards hand-built trees; the native parser's output is valid by construction, so
    re-checking every node it builds is redundant. Nodes built elsewhere (the model's, the fixer's)
    are still checked. Should a libcst version move the hook, parsing simply stays validated.
    """
    original = cst.CSTNode.__dict__.get("__post_init__")
    if original is None:
        yield
        return
    cst.CSTNode.__post_init__ = _skip_validation  # type: ignore[method-assign]
    try:
        yield
    finally:
        cst.CSTNode.__post_init__ = original  # type: ignore[method-assign]


def _skip_validation(self: cst.CSTNode) -> None:
    pass


def build_model(kernel: KernelSource, module: cst.Module, imports: ImportMap, config: Config,
                text: str | None = None, starts: Sequence[int] | None = None) -> KernelModel:
    """The kernel's model; given the file's text (and line starts), positions come from its ast."""
    line_base = kernel.first_line - 1 - (1 if kernel.indented else 0)
    locator = None
    if kernel.function is not None and text is not None:
        locator = Locator(kernel.function, text, starts if starts is not None else line_starts(text))
    return KernelModel(module, _function_in(module), imports, line_base, config.even_flags, kernel.text, locator)


def _function_in(module: cst.Module) -> cst.FunctionDef:
    statement: cst.BaseStatement = module.body[0]
    if isinstance(statement, cst.If):  # the nested-function wrapper
        inner = statement.body
        assert isinstance(inner, cst.IndentedBlock)
        statement = inner.body[0]
    assert isinstance(statement, cst.FunctionDef)
    return statement


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a file is checked (a tenth of the analysis time).

    Checking allocates hundreds of thousands of tree nodes that all live until the file is done,
    and leaves no cycles behind (see `helpers.clear()`): the collector's passes find nothing.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@_collector_paused()
def check_source(path: str, text: str, config: Config, *, strict: bool = False,
                 neighbours: Neighbours | None = None) -> FileReport:
    """Every enabled rule over every kernel of one file.

    Syntax errors become a one-line error for the file; a crashing rule becomes an
    internal error naming the rule, or is re-raised when `strict` (the tests' mode).
    Kernels launched in the file, or in one of `neighbours` that imports them, are judged with
    what their launches' grids say.
    """
    rules = enabled_rules(config)
    starts = line_starts(text)
    diagnostics: list[Diagnostic] = []
    crashes: list[str] = []
    suppressed = 0
    used: list[tuple[int, str]] = []
    try:
        found, kernels = parse_file(text)
        imports = found.imports
    # The text goes with the error so that a notebook's TL001 is placed in its cell.
    except SyntaxError as error:
        return FileReport(path, errors=(f"{path}:{error.lineno or 0}: syntax error: {error.msg}",), unchecked=True,
                          text=text)
    except cst.ParserSyntaxError as error:
        return FileReport(path, errors=(f"{path}:{error.raw_line}: syntax error: {error.message}",),
                          unchecked=True, text=text)
    except RecursionError:
        return FileReport(path, errors=(f"{path}: nested too deeply to parse",), unchecked=True, text=text)
    models: list[tuple[KernelSource, KernelModel]] = []
    for kernel, module in kernels:
        try:
            models.append((kernel, build_model(kernel, module, imports, config, text, starts)))
        except Exception as error:
            if strict:
                raise RuleCrash(f"building the model crashed on {path}:{kernel.first_line}") from error
            crashes.append(_crash_line(path, kernel, "the kernel model", error))
    helpers = {kernel.name: model for kernel, model in models}
    sources = {id(model): kernel for kernel, model in models}
    launches = find_file_launches(path, text, found, neighbours) if models else {}
    reported: set[tuple[str, int]] = set()  # a helper's access is reported once, from its first caller
    placed: set[tuple[str, int, int]] = set()  # a predicate shared by two kernels' launch is reported once
    depends: set[str] = set()
    for kernel, model in models:
        model.helpers = helpers
        model.launches = launches.get(kernel.name, [])
        model.origin = (path, text)
        model.depends = depends
        for rule in rules:
            try:
                hazards = list(rule.check(model))
                for hazard in hazards:
                    owner = hazard.helper or model
                    key = (rule.code, id(hazard.access))
                    if key in reported:
                        continue
                    reported.add(key)
                    diagnostic = _diagnostic(rule, hazard, owner, sources[id(owner)], path, text, starts,
                                             config.line_length or DEFAULT_LINE_LENGTH)
                    suppressed += _place(diagnostic, text, starts, diagnostics, used)
                for weak in rule.predicates(model):
                    diagnostic = _predicate_diagnostic(rule, weak, model, path, text, starts)
                    if (rule.code, diagnostic.line, diagnostic.column) in placed:
                        continue
                    placed.add((rule.code, diagnostic.line, diagnostic.column))
                    suppressed += _place(diagnostic, text, starts, diagnostics, used)
            except Exception as error:
                if strict:
                    raise RuleCrash(f"{rule.code} crashed on {path}:{kernel.first_line}") from error
                crashes.append(_crash_line(path, kernel, f"{rule.code} ({rule.name})", error))
    # Each model refers to the others through `helpers`: a cycle that would leave every syntax tree
    # of the file to the cyclic garbage collector. Broken here, they are freed on return.
    helpers.clear()
    hidden = file_suppressions(text)
    if hidden is not None:
        kept = [d for d in diagnostics if not hidden.covers(d.code)]
        suppressed += len(diagnostics) - len(kept)
        diagnostics = kept
    diagnostics.sort(key=Diagnostic.sort_key)
    return FileReport(path, tuple(diagnostics), crashes=tuple(crashes), suppressed=suppressed, text=text,
                      suppressions_used=tuple(sorted(set(used))), depends=tuple(sorted(depends)))


def evenness_flags(text: str, config: Config) -> dict[str, dict[str, bool]]:
    """Per kernel of a file, its evenness flags that are plain names, with the value that promises
    full tiles (`{"matmul": {"EVEN_K": True}}`): the recogniser `check` uses, shared with `verify`,
    which needs to know which specializations can have partial tiles. A file that does not parse
    has none."""
    try:
        imports, kernels = parse_kernels(text)
    except (SyntaxError, cst.ParserSyntaxError, RecursionError):
        return {}
    found: dict[str, dict[str, bool]] = {}
    starts = line_starts(text)
    for kernel, module in kernels:
        model = build_model(kernel, module, imports, config, text, starts)
        found[kernel.name] = {flag.atom: flag.even for flag in model.flags.flags if flag.atom.isidentifier()}
    return found


def find_file_launches(path: str, text: str, found: Outline, neighbours: Neighbours | None) -> dict[str, list[Launch]]:
    """The launches of the file's kernels, by kernel name: in the file itself, and in the neighbouring
    modules that import them (`from .kernels import k`, `from . import kernels`). Only text that
    names a kernel and the file's module is parsed; nothing is imported or run."""
    params = {k.name: kernel_params(k.function) for k in found.kernels if k.function is not None}
    if not params:
        return {}
    names = {name: name for name in params} | {alias: k for alias, k in found.aliases.items() if k in params}
    launches: list[Launch] = []
    if found.tree is not None and may_launch(text, list(names)):
        launches += find_launches(found.tree, names, params, os.path.basename(path), local=True, text=text)
    stem = os.path.splitext(os.path.basename(path))[0]
    for display, other in neighbours() if neighbours is not None else ():
        if stem not in other or not may_launch(other, list(names)):
            continue
        try:
            tree = ast.parse(other)
        except (SyntaxError, ValueError, RecursionError):
            continue  # reported when that file itself is checked
        local, modules = _imported_kernels(tree, stem, names)
        if local or modules:
            launches += find_launches(tree, local, params, os.path.basename(display), frozenset(modules), names,
                                      text=other)
    by_kernel: dict[str, list[Launch]] = {}
    for launch in launches:
        by_kernel.setdefault(launch.kernel, []).append(launch)
    return by_kernel


def _imported_kernels(tree: ast.Module, stem: str, names: dict[str, str]) -> tuple[dict[str, str], set[str]]:
    """Local names of the kernels a module imports from the module `stem` (`from .kernels import k as
    local`), and local names of that module itself (`from . import kernels`)."""
    local: dict[str, str] = {}
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.module is not None and node.module.split(".")[-1] == stem:
                local.update({alias.asname or alias.name: names[alias.name] for alias in node.names
                              if alias.name in names})
            else:
                modules.update(alias.asname or alias.name for alias in node.names if alias.name == stem)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname for alias in node.names
                           if alias.asname and alias.name.split(".")[-1] == stem)
    return local, modules


def _crash_line(path: str, kernel: KernelSource, what: str, error: Exception) -> str:
    where = traceback.extract_tb(error.__traceback__)[-1]
    detail = str(error).splitlines()[0][:160] if str(error) else ""
    return (f"{path}:{kernel.first_line}: internal error in {what} on kernel {kernel.name}: "
            f"{type(error).__name__}: {detail} [{where.filename.rsplit('/', 1)[-1]}:{where.lineno}]")


def _segment_edit(model: KernelModel, kernel: KernelSource, old: cst.Call, new: cst.Call, text: str,
                  span: Span, starts: Sequence[int]) -> Edit:
    """The smallest file edit turning `old` into `new`: the span where their text differs."""
    start = starts[span.line - 1] + span.column
    end = starts[span.end_line - 1] + span.end_column
    printed = _print_in_place(model.module, old, new, text[start:end], text, span, starts)
    if printed is not None:
        return _smallest_edit(text[start:end], printed, start)
    # The call could not be re-printed exactly where it is: print the kernel with it replaced
    # (libcst round-trips exactly, so the parsed kernel's text is its source).
    prefix = _NESTED_PREFIX if kernel.indented else ""
    after = model.module.deep_replace(old, new).code  # type: ignore[union-attr]
    return _smallest_edit(prefix + kernel.text, after, kernel.start_offset - len(prefix))


def _smallest_edit(before: str, after: str, base: int) -> Edit:
    """The edit turning `before` (which starts at offset `base` of the file) into `after`,
    trimmed to where the two differ, so everything else stays byte-identical."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return Edit(base + head, base + len(before) - tail, after[head:len(after) - tail])


def _print_in_place(module: cst.Module, old: cst.Call, new: cst.Call, original: str, text: str, span: Span,
                    starts: Sequence[int]) -> str | None:
    """`new` printed as it will read in the file, or None when that cannot be done exactly.

    Continuation lines of a call spread over several lines store their indentation relative to
    the enclosing block, so the call is printed with that block's indentation. Which one it is
    the file says: the indentation for which `old` prints back exactly as the file spells it.
    A parenthesized call is left to the kernel-wide path (the parentheses are outside the span).
    """
    if old.lpar or new.lpar:
        return None
    tried: set[str] = set()
    for indent in _indents_above(text, starts, span.line):
        if indent in tried:
            continue
        tried.add(indent)
        if _print(module, old, indent) == original:
            return _print(module, new, indent)
        if span.line == span.end_line:
            return None  # one line: the indentation cannot matter, so something else differs
    return None


def _indents_above(text: str, starts: Sequence[int], line: int, limit: int = 60) -> Iterator[str]:
    """Leading whitespace of `line` and of the lines above it: the enclosing statement's is among them."""
    for number in range(line, max(line - limit, 0), -1):
        begin = starts[number - 1]
        end = starts[number] if number < len(starts) else len(text)
        content = text[begin:end]
        yield content[:len(content) - len(content.lstrip(" \t"))]


def _print(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """`node`'s code inside a block indented by `indent` (`Module.code_for_node` assumes none;
    libcst exports no public way to give its code generator an indentation)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens.append(indent)
    node._codegen(state)
    return "".join(state.tokens)


def _diagnostic(rule: Rule, hazard: TailHazard, model: KernelModel, kernel: KernelSource, path: str, text: str,
                starts: Sequence[int], line_length: int = 0) -> Diagnostic:
    span = model.span_of(hazard.access.call)
    line, end_line = span.line, span.end_line
    start_offset = starts[line - 1] + span.column
    end_offset = starts[end_line - 1] + span.end_column
    call = "tl.load" if hazard.access.kind == "load" else "tl.store"
    verb = "read" if hazard.access.kind == "load" else "write"
    what = f"`{model.label(hazard.walk.dim)}`" if hazard.walk.dim else "the loop's tile"
    message = rule.message(model, hazard) or \
        f"{call} can {verb} past the end of the tensor on a partial tail tile: no mask bounds {what}"
    notes = [hazard.condition, f"walks {hazard.walked or model.describe_walk(hazard.walk)}", hazard.evidence]
    if hazard.guard:
        notes.append(hazard.guard)
    fix = None
    proposed = rule.fix(model, hazard) if not hazard.via and not hazard.predicate else None
    if hazard.predicate:
        fix = Fix(f"Test {hazard.predicate} instead (TL103)", Applicability.DISPLAY_ONLY, ())
    if hazard.via:
        notes.insert(0, f"in a jit helper, {hazard.via}")
        notes.append("no fix: the offsets and bound live in the caller; pass a mask into the helper")
        fix = Fix("pass a mask into the helper", Applicability.DISPLAY_ONLY, ())
    if proposed is not None:
        if proposed.new_call is None:
            notes.append(f"no fix: {proposed.title}")
            fix = Fix(proposed.title, Applicability.DISPLAY_ONLY, ())
        else:
            edit = _segment_edit(model, kernel, hazard.access.call, proposed.new_call, text, span, starts)
            if line_length and _longest_line(text, edit) > line_length:
                edit = _hoisted_mask(model, kernel, hazard, proposed.new_call, text, span, starts) or edit
            fix = Fix(proposed.title, proposed.applicability, (edit,))
    return Diagnostic(
        code=rule.code, name=rule.name, message=message, path=path,
        line=line, column=span.column + 1, end_line=end_line, end_column=span.end_column + 1,
        notes=tuple(notes), fix=fix, start_offset=start_offset, end_offset=end_offset,
    )


def _place(diagnostic: Diagnostic, text: str, starts: Sequence[int], diagnostics: list[Diagnostic],
           used: list[tuple[int, str]]) -> int:
    """Add a finding to the file's, or, where a suppression comment covers it, note the comment's
    use instead: 1 if suppressed, else 0."""
    by = _suppressed_by(diagnostic, text, starts)
    if not by:
        diagnostics.append(diagnostic)
        return 0
    used.extend((line, diagnostic.code) for line in by)
    return 1


def _predicate_diagnostic(rule: Rule, weak: WeakPredicate, model: KernelModel, path: str, text: str,
                          starts: Sequence[int]) -> Diagnostic:
    """A weak evenness predicate, at the predicate where it is in this file (a launch argument, a
    heuristics lambda), else at the kernel's flag parameter with a note naming where it is set."""
    walks = f"the kernel walks {weak.walked} in tiles of {weak.tile} and drops its masks when {weak.flag} is True"
    notes = [walks, f"full tiles need `{weak.needs}`"]
    span: Span | None = None
    if weak.node is not None:
        span = model.span_of(weak.node)
    elif weak.launch is not None and weak.launch.local and weak.span is not None:
        line, column, end_line, end_column = weak.span
        span = Span(line, char_column(text, starts, line, column), end_line,
                    char_column(text, starts, end_line, end_column))
    in_place = span is not None  # at the predicate itself, which the fix can rewrite
    if span is None:
        param = next(p for p in model.function.params.params if p.name.value == weak.flag)
        span = model.span_of(param.name)
        notes.insert(0, f"set at {weak.where} by `{weak.text}`")
    elif weak.launch is not None:
        notes.insert(0, f"sets {weak.flag} for the launch at {weak.launch.where}")
    start, end = starts[span.line - 1] + span.column, starts[span.end_line - 1] + span.end_column
    if weak.replacement and in_place:
        fix = Fix(f"Test `{weak.replacement}`", Applicability.UNSAFE, (Edit(start, end, weak.replacement),))
    else:
        fix = Fix(f"Test `{weak.needs}` where {weak.flag} is set", Applicability.DISPLAY_ONLY, ())
        notes.append(f"no fix: {'the tile is not named where the flag is set' if not weak.replacement else 'the predicate is in another file'}")
    message = f"`{weak.text}` sets {weak.flag} without implying full tiles of {weak.tile}"
    return Diagnostic(code=rule.code, name=rule.name, message=message, path=path, line=span.line,
                      column=span.column + 1, end_line=span.end_line, end_column=span.end_column + 1,
                      notes=tuple(notes), fix=fix, start_offset=start, end_offset=end)


MAX_FIX_ROUNDS = 10
# A fix whose line would be longer than this (or the project's line-length) names its mask in a
# variable on the line above. Not ruff's 88: Triton kernels are commonly written to 120 columns,
# and a project that wants less says so in its pyproject.
DEFAULT_LINE_LENGTH = 120


def _longest_line(text: str, edit: Edit) -> int:
    """The longest line the edit leaves in the lines it touches."""
    start = text.rfind("\n", 0, edit.start) + 1
    end = text.find("\n", edit.end)
    after = text[start:edit.start] + edit.content + text[edit.end:end if end >= 0 else len(text)]
    return max(len(line) for line in after.split("\n"))


def _hoisted_mask(model: KernelModel, kernel: KernelSource, hazard: TailHazard, new: cst.Call, text: str,
                  span: Span, starts: Sequence[int]) -> Edit | None:
    """The fix with its mask named on the line above the statement (`offs_k_mask = ...`), read like
    the code around it. One edit, from the statement's line to the end of the call. None where the
    statement is not alone on its lines (a compound statement's header, `a; b`) or holds another
    load or store (its fix would insert above the same line)."""
    statement = _statement_of(model.function, hazard.access.call)
    mask = next((arg for arg in new.args if arg.keyword is not None and arg.keyword.value == "mask"), None)
    if statement is None or mask is None or isinstance(mask.value, cst.Name):
        return None
    if hazard.access.mask is not None and mask.value.deep_equals(hazard.access.mask):
        return None  # the fix leaves the mask as written (TL105 sets `other=`): nothing to name
    calls = {id(node) for node in nodes_of_type(statement, cst.Call)}
    if sum(id(access.call) in calls for access in model.accesses) > 1:
        return None  # two fixes would each insert above the same line: overlapping edits
    line, column = model.statement_start(statement, hazard.access.call)
    line_start = starts[line - 1]
    indent = text[line_start:line_start + column]
    if indent.strip() or line > span.line:
        return None
    label = model.label(hazard.walk.dim) if hazard.walk.dim else ""
    base = f"{label}_mask" if label.isidentifier() else f"{hazard.access.kind}_mask"
    taken = set(model.defs) | {n.value for n in nodes_of_type(model.function, cst.Name) if isinstance(n, cst.Name)}
    name, suffix = base, 1
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    mask_text = cst.Module(body=[]).code_for_node(mask.value)
    named = new.with_deep_changes(mask, value=cst.Name(name))
    call = _segment_edit(model, kernel, hazard.access.call, named, text, span, starts)
    content = f"{indent}{name} = {mask_text}{model.module.default_newline}" + text[line_start:call.start] + call.content
    return Edit(line_start, call.end, content)


def _statement_of(function: cst.FunctionDef, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
    """The simple statement line that holds `node`, alone on it (no `a; b`)."""
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.SimpleStatementLine):
            if any(n is node for n in nodes_of_type(current, type(node))):
                return current if len(current.body) == 1 else None
            continue
        if isinstance(current, (cst.IndentedBlock, cst.BaseCompoundStatement, cst.Else)):
            pending.extend(c for c in child_nodes(current) if isinstance(c, (cst.BaseSuite, cst.BaseStatement,
                                                                              cst.Else, cst.BaseCompoundStatement)))
    return None


def nodes_of_type(root: cst.CSTNode, kind: type) -> Iterator[cst.CSTNode]:
    """The nodes of `kind` under `root` (statements and expressions: not layout tokens), in no set order."""
    pending = [root]
    while pending:
        current = pending.pop()
        if isinstance(current, kind):
            yield current
        # Not libcst's `children`, which visits (and rebuilds) every node: a whole kernel's names
        # took a tenth of a second that way.
        pending.extend(child_nodes(current))


def fix_source(path: str, text: str, config: Config, *, unsafe: bool = False, strict: bool = False,
               neighbours: Neighbours | None = None) -> FileReport:
    """Apply fixes until none applies; the result is re-checked and must parse.

    Overlapping edits (a load nested in a store) are applied one per round; the loop stops when a
    round changes nothing, and gives up (changing nothing) if it does not settle in MAX_FIX_ROUNDS.
    A fix given up reports the file as it is (the first check's findings and text), not a later
    round's text, which is never written.
    """
    allowed = {Applicability.SAFE, Applicability.UNSAFE} if unsafe else {Applicability.SAFE}
    current = text
    report = first = check_source(path, current, config, strict=strict, neighbours=neighbours)
    written: set[str] = set()  # text our fixes produced: a finding on it again means the fix failed
    for _ in range(MAX_FIX_ROUNDS):
        edits = [d.fix.edits[0] for d in report.diagnostics
                 if d.fix is not None and d.fix.applicability in allowed and d.fix.edits]
        refixes = [edit for edit in edits if current[edit.start:edit.end] in written]
        if refixes:
            return replace(first, fixed_text=None, errors=(
                (f"{path}: fix not applied: a fixed access was still reported; please report this "
                 f"tritonlint bug with the file"),))
        written.update(edit.content for edit in edits)
        if not edits or report.errors or report.crashes:
            break
        candidate = apply_edits(current, edits)
        if candidate == current:
            break
        try:
            ast.parse(candidate)
        except SyntaxError as error:
            return FileReport(path, first.diagnostics, text=text, errors=(
                f"{path}: fix not applied: the fixed source would not parse ({error.msg}, line {error.lineno})",))
        current = candidate
        report = check_source(path, current, config, strict=strict, neighbours=neighbours)
    else:
        return FileReport(path, first.diagnostics, text=text, errors=(
            f"{path}: fix not applied: fixes did not settle after {MAX_FIX_ROUNDS} rounds",))
    removed = Counter(d.code for d in first.diagnostics) - Counter(d.code for d in report.diagnostics)
    return replace(report, text=text, fixed_text=current if current != text else None,
                   fixed=tuple(sorted(removed.elements())) if current != text else ())


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (the first of any overlapping pair wins; the next round gets the rest)."""
    chosen: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if chosen and edit.start < chosen[-1].end:
            continue
        chosen.append(edit)
    for edit in reversed(chosen):
        text = text[:edit.start] + edit.content + text[edit.end:]
    return text


def _suppressed_by(diagnostic: Diagnostic, text: str, starts: Sequence[int]) -> list[int]:
    """The lines (its first and/or last) whose suppression comments hide `diagnostic`; empty if none."""
    lines = []
    for number in sorted({diagnostic.line, diagnostic.end_line}):
        end = starts[number] if number < len(starts) else len(text)
        line = text[starts[number - 1]:end]
        if not suppressions_in_line(number, line):
            continue  # the cheap test first: most flagged lines carry no suppression at all
        comments = comments_by_line(text)  # only real comments: `tl.device_print("# noqa")` is none
        if comments is not None:
            line = comments.get(number, "")
        if any(s.covers(diagnostic.code) for s in suppressions_in_line(number, line)):
            lines.append(number)
    return lines
