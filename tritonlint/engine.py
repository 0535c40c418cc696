"""The engine: source text in, diagnostics (and fixed text) out. Pure; never raises on user code."""

from __future__ import annotations

import ast
import gc
import os
import re
import traceback
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial

import libcst as cst

from tritonlint.caller_parses import CallerParses
from tritonlint.config import Config
from tritonlint.deep import NestedTooDeep, retried_deeper
from tritonlint.deferred_fixes import DeferredFixes
from tritonlint.diagnostics import Applicability, Diagnostic
from tritonlint.finding import FileView, Finding
from tritonlint.fixing.edits import DEFAULT_LINE_LENGTH, apply_edits
from tritonlint.forked import Forked, forking_possible
from tritonlint.kernel_memo import KernelMemo, closure_of, host_code, memo_key, mentions
from tritonlint.report import FileReport
from tritonlint.rule import Rule, all_rules
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.host.file_launches import Neighbours, find_file_launches
from tritonlint.semantic.host.launches import Launch
from tritonlint.source.groups import kernel_groups
from tritonlint.source.imports import statements_breadth_first
from tritonlint.source.locations import Locator
from tritonlint.source.names import ImportMap
from tritonlint.source.outline import (
    NESTED_PREFIX,
    KernelSource,
    Outline,
    line_starts,
    might_hold_kernels,
    outline,
)
from tritonlint.source.parsed import kernel_syntax, parse_text
from tritonlint.source.tree_caches import forget_trees
from tritonlint.suppressions import comments_by_line, file_suppressions, suppressions_in_line

__all__ = ["DEFAULT_LINE_LENGTH", "MAX_FIX_ROUNDS", "Neighbours", "RuleCrash", "apply_edits", "build_contexts",
           "build_model", "check_source", "enabled_rules", "evenness_flags", "find_file_launches", "fix_source",
           "parse_file", "parse_kernels"]


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
            source = NESTED_PREFIX + kernel.text if kernel.indented else kernel.text
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
                text: str | None = None, starts: Sequence[int] | None = None, *,
                helpers: dict[str, KernelContext] | None = None, launches: Sequence[Launch] = (),
                origin: tuple[str, str] | None = None, depends: set[str] | None = None) -> KernelContext:
    """The kernel's context; given the file's text (and line starts), positions come from its ast.
    What the engine knows of the file (its other jit functions, the launches in view) is given here:
    a context is complete once built."""
    line_base = kernel.first_line - 1 - (1 if kernel.indented else 0)
    locator = None
    if kernel.function is not None and text is not None:
        # (a stub of a huge file's lean tree: its whole tree parsed now, freed with the context)
        function = kernel_syntax(kernel.function, kernel.text, kernel.first_line)
        locator = Locator(function, text, starts if starts is not None else line_starts(text))
    return KernelContext(module, _function_in(module), imports, line_base, config.even_flags, kernel.text, locator,
                         outline=kernel, helpers=helpers, launches=launches, origin=origin, depends=depends,
                         masked_lanes=config.masked_lanes)


def build_contexts(path: str, text: str, found: Outline, kernels: Sequence[tuple[KernelSource, cst.Module]],
                   config: Config, neighbours: Neighbours | None, *, starts: Sequence[int] | None = None,
                   strict: bool = False, crashes: list[str] | None = None,
                   helpers: dict[str, KernelContext] | None = None, depends: set[str] | None = None,
                   launches: dict[str, list[Launch]] | None = None,
                   ) -> tuple[list[tuple[KernelSource, KernelContext]], dict[str, KernelContext], set[str]]:
    """A complete context per jit function of a file, the mapping by name they share (clear it when
    done: the contexts refer to each other through it), and the set of other files they read.
    (The mapping, the set and the file's launches may be given: built a group at a time.)

    A context that cannot be built is a crash line in `crashes` (re-raised when `strict`)."""
    starts = starts if starts is not None else line_starts(text)
    if launches is None:
        launches = find_file_launches(path, text, found, neighbours) if kernels else {}
    helpers = helpers if helpers is not None else {}
    depends = depends if depends is not None else set()
    contexts: list[tuple[KernelSource, KernelContext]] = []
    for kernel, module in kernels:
        try:
            context = build_model(kernel, module, found.imports, config, text, starts, helpers=helpers,
                                  launches=launches.get(kernel.name, []), origin=(path, text), depends=depends)
        except RecursionError:  # not a crash: code nested deeper than the stack allows (tried again deeper)
            raise NestedTooDeep(kernel.first_line, "analyse") from None
        except Exception as error:
            if strict:
                raise RuleCrash(f"building the model crashed on {path}:{kernel.first_line}") from error
            if crashes is not None:
                crashes.append(_crash_line(path, kernel, "the kernel model", error))
            continue
        contexts.append((kernel, context))
        helpers[kernel.name] = context
    return contexts, helpers, depends


def importing_callers(path: str, found: Outline, helpers: dict[str, KernelContext], config: Config,
                      neighbours: Neighbours | None, depends: set[str],
                      ) -> tuple[list[tuple[KernelSource, KernelContext]], list[dict[str, KernelContext]]]:
    """The kernels of neighbouring modules that import a jit function of this file by name
    (`from .helpers import load_tile`) and call it, each built with that name bound to this file's
    context, so that the helper's accesses are judged at their calls; and the mappings they share
    (clear them when done). Only modules that name this file and import one of its functions are parsed."""
    if neighbours is None or not helpers:
        return [], []
    judged = _judged_at_calls(helpers)
    if not judged:
        return [], []  # no caller can have a finding here: nothing of a neighbour is parsed
    stem = os.path.splitext(os.path.basename(path))[0]
    callers: list[tuple[KernelSource, KernelContext]] = []
    shared: list[dict[str, KernelContext]] = []
    handed: set[int] = set()  # the trees this search has had (`_parsed`): each context its own tree
    for display, other in neighbours():
        if not _may_import(other, stem, helpers):
            continue
        try:
            # (the outline below reads the same tree: `parse_text` remembers it)
            tree = parse_text(other)
        except (SyntaxError, ValueError, RecursionError):
            continue
        # (statements only, in `ast.walk`'s order: imports are statements, expressions most of a module)
        imported = {alias.asname or alias.name: alias.name for node in statements_breadth_first(tree)
                    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == stem
                    for alias in node.names if alias.name in helpers}
        if judged.isdisjoint(imported.values()):
            continue  # (none imported, or none whose accesses a caller's call judges)
        try:
            other_found = outline(other) if might_hold_kernels(other) else Outline(ImportMap())
            # Only the groups of kernels that name an imported helper are parsed and built: a kernel
            # reads no context outside its group (`kernel_groups`), and the others call no helper here.
            chosen = {id(kernel) for group in kernel_groups(other_found.kernels)
                      if any(_names_one(kernel.text, imported) for kernel in group) for kernel in group}
            other_kernels = _parsed([kernel for kernel in other_found.kernels if id(kernel) in chosen], handed=handed)
            contexts, other_helpers, _ = build_contexts(display, other, other_found, other_kernels, config, None)
        except Exception:  # noqa: BLE001, S112  (that file reports its own errors when it is checked)
            continue
        for local, name in imported.items():
            other_helpers.setdefault(local, helpers[name])
        callers += [(kernel, context) for kernel, context in contexts
                    if any(site.name in imported for site in context.ir.calls)]
        shared.append(other_helpers)
        depends.add(display)
    return callers, shared


def _judged_at_calls(helpers: dict[str, KernelContext]) -> set[str]:
    """The jit functions of a file whose accesses a caller's call may judge: those holding a
    `tl.load`, `tl.store` or atomic, or calling (through the file's other jit functions) one that
    does. A caller's findings placed in this file are only ever on such accesses (the views of
    `HazardFinder.helper_accesses`); a caller importing none of them is not worth building."""
    reaching = {name for name, context in helpers.items() if context.ir.accesses}
    grown = True
    while grown:  # (to a fixed point: a helper calling one that calls one that loads)
        grown = False
        for name, context in helpers.items():
            if name not in reaching and any(site.name in reaching for site in context.ir.calls):
                reaching.add(name)
                grown = True
    return reaching


_NAME = re.compile(r"[^\W\d]\w*")


def _names_one(text: str, names: Iterable[str]) -> bool:
    """Whether a word of `text` (comments and strings too: never fewer than the names it uses) is one of `names`."""
    return any(name in text for name in names) and not set(_NAME.findall(text)).isdisjoint(names)


def _function_in(module: cst.Module) -> cst.FunctionDef:
    statement: cst.BaseStatement = module.body[0]
    if isinstance(statement, cst.If):  # the nested-function wrapper
        inner = statement.body
        assert isinstance(inner, cst.IndentedBlock)
        statement = inner.body[0]
    assert isinstance(statement, cst.FunctionDef)
    return statement


@contextmanager
def collector_paused() -> Iterator[None]:
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


@retried_deeper
@collector_paused()
def check_source(path: str, text: str, config: Config, *, strict: bool = False,
                 neighbours: Neighbours | None = None, deferred: DeferredFixes | None = None,
                 parses: dict[str, cst.Module] | None = None, memo: KernelMemo | None = None,
                 found: Outline | None = None) -> FileReport:
    """Every enabled rule over every kernel of one file.

    Syntax errors become a one-line error for the file; a crashing rule becomes an
    internal error naming the rule, or is re-raised when `strict` (the tests' mode).
    Kernels launched in the file, or in one of `neighbours` that imports them, are judged with
    what their launches' grids say. Given `deferred`, the findings' fixes are left out (and the
    notes only a fix writes): `deferred` completes each diagnostic on demand (the editor's mode).
    Given `parses` (kernel source -> its libcst module, filled here), a kernel whose text is
    already there is not parsed again: the editor's memory of the kernels an edit left alone.
    Given `memo` (with `deferred`), a kernel whose inputs are unchanged since a run that stored it
    has its findings replayed from there, not the rules run again (`kernel_memo`). `found`: the
    text's outline, when the caller has it already.
    """
    # The text goes with the error so that a notebook's parse error is placed in its cell.
    try:
        if found is None:
            found = outline(text) if might_hold_kernels(text) else Outline(ImportMap())
    except SyntaxError as error:
        return FileReport(path, errors=(f"{path}:{error.lineno or 0}: syntax error: {error.msg}",), unchecked=True,
                          text=text)
    except RecursionError:
        raise NestedTooDeep(1, "parse") from None
    run = _Run(path, text, config, strict, deferred)
    run.parses = parses
    run.memo = memo if deferred is not None else None
    groups = kernel_groups(found.kernels) if deferred is None and not _may_have_callers(path, found, neighbours) \
        else [found.kernels]
    try:
        if len(groups) > 1:
            run.piecewise(found, groups, neighbours)
        else:
            run.whole(found, neighbours)
    except cst.ParserSyntaxError as error:
        return FileReport(path, errors=(f"{path}:{error.raw_line}: syntax error: {error.message}",),
                          unchecked=True, text=text)
    diagnostics, suppressed = run.diagnostics, run.suppressed
    hidden = file_suppressions(text)
    if hidden is not None:
        kept = [d for d in diagnostics if not hidden.covers(d.code)]
        suppressed += len(diagnostics) - len(kept)
        diagnostics = kept
    diagnostics.sort(key=Diagnostic.sort_key)
    return FileReport(path, tuple(diagnostics), crashes=tuple(run.crashes), suppressed=suppressed, text=text,
                      suppressions_used=tuple(sorted(set(run.used))), depends=tuple(sorted(run.depends)))


class _Run:
    """One check of one file: the rules over its kernels' contexts, the findings placed once each."""

    def __init__(self, path: str, text: str, config: Config, strict: bool, deferred: DeferredFixes | None) -> None:
        self.path, self.text, self.config, self.strict, self.deferred = path, text, config, strict, deferred
        self.rules = enabled_rules(config)
        self.starts = line_starts(text)
        self.diagnostics: list[Diagnostic] = []
        self.crashes: list[str] = []
        self.suppressed = 0
        self.used: list[tuple[int, str]] = []
        self.depends: set[str] = set()
        self.file = FileView(path, text, self.starts, config.line_length or DEFAULT_LINE_LENGTH,
                             fixes=deferred is None)
        self.complete = replace(self.file, fixes=True)
        # A helper's access is reported once, from its first caller; a predicate shared by two
        # kernels' launch is reported once, where it is written.
        self.reported: set[tuple[str, object]] = set()
        # Of those, the ones keyed by an object of the group being checked (its access's id): let
        # go with the group, whose freed objects' ids new ones may take.
        self.keyed: list[tuple[str, object]] = []
        self.parses: dict[str, cst.Module] | None = None  # see check_source
        self.memo: KernelMemo | None = None  # see check_source
        # With a memo: each kernel's key there, and the kernels of that key (`_memo_keys`).
        self.memo_keys: dict[int, tuple[Hashable | None, list[KernelSource]]] = {}

    def whole(self, found: Outline, neighbours: Neighbours | None) -> None:
        """Every kernel parsed and built, then the rules over each in file order."""
        if self.memo is not None and neighbours is None:
            self.remembered(found, self.memo)
            return
        kernels = _parsed(found.kernels, self.parses)
        models, helpers, depends = build_contexts(self.path, self.text, found, kernels, self.config, neighbours,
                                                  starts=self.starts, strict=self.strict, crashes=self.crashes)
        self.depends = depends
        own = {id(model) for _, model in models}
        callers, caller_helpers = importing_callers(self.path, found, helpers, self.config, neighbours, depends)
        for kernel, model in models:
            self.check(kernel, model)
        # A jit function of this file imported and called by a kernel of a neighbouring module: its
        # accesses judged at that call (the caller's offsets, flags and launches), reported here.
        for kernel, model in callers:
            self.check(kernel, model, own)
        # Each model refers to the others through `helpers`: a cycle that would leave every syntax tree
        # of the file to the cyclic garbage collector. Broken here, they are freed on return (or when
        # the deferred fixes, which still need them, are released).
        if self.deferred is not None:
            self.deferred.hold(helpers, *caller_helpers)
        else:
            helpers.clear()
            for mapping in caller_helpers:
                mapping.clear()
            self.forget_trees()

    def forget_trees(self) -> None:
        """The walks' caches of this file's trees emptied (`tree_caches`), so that the trees are freed
        now, not scanned by the collector until the caches let them go; not the editor's (`parses`),
        whose trees come back in its next check."""
        if self.parses is None:
            forget_trees()

    def piecewise(self, found: Outline, groups: list[list[KernelSource]], neighbours: Neighbours | None) -> None:
        """The same as `whole`, one group of kernels that call each other at a time: a group is
        parsed and built when its first kernel comes (in file order), and freed after its last, so
        that a huge file never holds every kernel's tree. No kernel reads another group's context.
        A huge file's groups are shared with a forked child (`_in_two`)."""
        launches = find_file_launches(self.path, self.text, found, neighbours) if found.kernels else {}
        if len(self.text) >= FORK_ABOVE and self.deferred is None and self.parses is None and forking_possible() \
                and self._in_two(found, groups, launches):
            return
        helpers: dict[str, KernelContext] = {}
        group_of = {id(kernel): group for group in groups for kernel in group}
        index = {id(kernel): number for number, kernel in enumerate(found.kernels)}
        models: dict[int, KernelContext] = {}
        keyed: dict[int, list[tuple[str, object]]] = {}  # group -> the access keys its kernels reported
        model_crashes: list[tuple[int, str]] = []  # reported before the rules' crashes, as `whole` does
        rule_crashes = self.crashes
        self.crashes = []
        try:
            for kernel in found.kernels:
                group = group_of[id(kernel)]
                if kernel is group[0]:
                    built, _, _ = build_contexts(self.path, self.text, found, _parsed(group, self.parses), self.config, None,
                                                 starts=self.starts, strict=self.strict, crashes=self.crashes,
                                                 helpers=helpers, depends=self.depends, launches=launches)
                    models.update((id(each), model) for each, model in built)
                    failed = [each for each in group if id(each) not in models]
                    model_crashes += [(index[id(each)], line) for each, line in zip(failed, self.crashes)]
                    self.crashes = []
                model = models.get(id(kernel))
                if model is not None:
                    self.crashes = rule_crashes
                    self.check(kernel, model)
                    self.crashes = []
                    keyed.setdefault(id(group), []).extend(self.keyed)
                    self.keyed.clear()
                if kernel is group[-1]:  # the group's trees freed (no other group names its kernels)
                    for each in group:
                        models.pop(id(each), None)
                        helpers.pop(each.name, None)
                    # Only this group's keys go: a group whose kernels come on either side of this one
                    # (a helper's two callers around it) still reports its helper's access once.
                    self.reported.difference_update(keyed.pop(id(group), ()))
        except (NestedTooDeep, RuleCrash):
            _first_parse_failure(found.kernels)  # as `whole` would: every kernel is parsed before any analysis
            raise
        except cst.ParserSyntaxError:
            _first_parse_failure(found.kernels)
            raise
        finally:
            helpers.clear()
            self.forget_trees()
        self.crashes = [line for _, line in sorted(model_crashes, key=lambda pair: pair[0])] + rule_crashes

    def _in_two(self, found: Outline, groups: list[list[KernelSource]], launches: dict[str, list[Launch]]) -> bool:
        """`piecewise` with the later groups (about half the text) checked in a forked child while this
        process checks the earlier ones; then the findings of both placed in file order, as `piecewise`
        places them. False (nothing done) when the child or this share fails in any way: the caller
        then checks every group itself, and raises what it raises."""
        index = {id(kernel): number for number, kernel in enumerate(found.kernels)}
        ordered = sorted(range(len(groups)), key=lambda number: index[id(groups[number][0])])
        half, size, first = sum(len(k.text) for k in found.kernels) / 2, 0, set()
        for number in ordered:
            if size >= half:
                break
            first.add(number)
            size += sum(len(kernel.text) for kernel in groups[number])
        later = set(range(len(groups))) - first
        if not first or not later:
            return False
        child = Forked(partial(self._share, found, groups, launches, later))
        try:
            mine: _Share | None = self._share(found, groups, launches, first)
        except Exception:  # noqa: BLE001  (the serial check that follows raises it, as the caller expects)
            mine = None
        theirs = child.result()
        if mine is None or theirs is None:
            self.reported.clear()
            self.keyed.clear()
            return False
        records = sorted(mine.records + theirs.records, key=lambda record: record[0])
        for _, code, place, diagnostic in records:
            self._report(code, place, diagnostic, None)
        model_crashes = sorted(mine.model_crashes + theirs.model_crashes, key=lambda pair: pair[0])
        rule_crashes = sorted(mine.rule_crashes + theirs.rule_crashes, key=lambda pair: pair[0])
        self.crashes += [line for _, line in model_crashes] + [line for _, line in rule_crashes]
        self.depends |= mine.depends | theirs.depends
        return True

    def _share(self, found: Outline, groups: list[list[KernelSource]], launches: dict[str, list[Launch]],
               chosen: set[int]) -> _Share:
        """`piecewise` over the `chosen` groups only, its findings recorded unplaced: (kernel's index,
        rule code, the place a finding reported once per place is keyed by or None, diagnostic).
        A finding keyed by its access is deduplicated here as `piecewise` does: a group's keys are let
        go at the end of that group."""
        share = _Share()
        helpers: dict[str, KernelContext] = {}
        keyed: dict[int, list[tuple[str, object]]] = {}  # group -> the access keys its kernels reported
        group_of = {id(kernel): number for number, group in enumerate(groups) for kernel in group}
        index = {id(kernel): number for number, kernel in enumerate(found.kernels)}
        models: dict[int, KernelContext] = {}
        try:
            for number, kernel in enumerate(found.kernels):
                which = group_of[id(kernel)]
                group = groups[which]
                if which in chosen:
                    if kernel is group[0]:
                        crashes: list[str] = []
                        built, _, _ = build_contexts(self.path, self.text, found, _parsed(group), self.config, None,
                                                     starts=self.starts, strict=self.strict, crashes=crashes,
                                                     helpers=helpers, depends=share.depends, launches=launches)
                        models.update((id(each), model) for each, model in built)
                        failed = [each for each in group if id(each) not in models]
                        share.model_crashes += [(index[id(each)], line) for each, line in zip(failed, crashes)]
                    model = models.get(id(kernel))
                    if model is not None:
                        self.crashes = []
                        self.check(kernel, model, record=(number, share.records))
                        share.rule_crashes += [(number, line) for line in self.crashes]
                        self.crashes = []
                        keyed.setdefault(which, []).extend(self.keyed)
                        self.keyed.clear()
                if kernel is group[-1]:
                    for each in group:
                        models.pop(id(each), None)
                        helpers.pop(each.name, None)
                    self.reported.difference_update(keyed.pop(which, ()))  # as `piecewise`: this group's keys only
        finally:
            helpers.clear()
            self.forget_trees()
        return share

    def remembered(self, found: Outline, memo: KernelMemo) -> None:
        """`whole` in the editor's mode (no neighbours): only the kernels whose findings `memo` does
        not hold, and the jit functions they name, are parsed and built; the others' findings are
        replayed, every kernel's placed in file order as `whole` places them."""
        launches = find_file_launches(self.path, self.text, found, None) if found.kernels else {}
        self._memo_keys(found, {name for name, sites in launches.items() if sites})
        needed: set[int] = set()
        for kernel in found.kernels:
            key, closure = self.memo_keys[id(kernel)]
            if not memo.holds(key):
                needed.update(id(each) for each in closure)
        kernels = _parsed([kernel for kernel in found.kernels if id(kernel) in needed], self.parses)
        models, helpers, depends = build_contexts(self.path, self.text, found, kernels, self.config, None,
                                                  starts=self.starts, strict=self.strict, crashes=self.crashes,
                                                  launches=launches)
        self.depends = depends
        built = {id(kernel): model for kernel, model in models}
        memo.start()
        for kernel in found.kernels:
            if id(kernel) in built or id(kernel) not in needed:
                self.check_remembered(kernel, built.get(id(kernel)), memo)
        if self.deferred is not None:
            self.deferred.hold(helpers)
        else:
            helpers.clear()

    def _memo_keys(self, found: Outline, launched: set[str]) -> None:
        """Each kernel's key in the memo: its closure's texts, the imports, the host code if launched."""
        by_name = {kernel.name: kernel for kernel in found.kernels}
        if len(by_name) < len(found.kernels):  # two jit functions of one name: which one a call means is not kept
            self.memo_keys = {id(kernel): (None, [kernel]) for kernel in found.kernels}
            return
        host = host_code(self.text, found.kernels) if launched else ""
        imports = tuple(sorted(found.imports.bindings.items()))
        self.memo_keys = {}
        named = mentions(found.kernels)
        for kernel in found.kernels:
            closure = closure_of(kernel, by_name, named)
            fed = any(each.name in launched for each in closure)
            self.memo_keys[id(kernel)] = (memo_key(closure, imports, host if fed else None), closure)

    def check_remembered(self, kernel: KernelSource, model: KernelContext | None, memo: KernelMemo) -> None:
        """`check` in the editor's mode: the kernel's findings from `memo` when its key is there, else
        from the rules (and stored); then deduplicated and placed as `check` does, an access's key
        being its place in the file (the same access whether found now or replayed)."""
        key, closure = self.memo_keys.get(id(kernel), (None, [kernel]))
        raws: list[tuple[str, bool, Diagnostic, Callable[[], Diagnostic] | None]]
        remembered = memo.recall(key, closure)
        if remembered is not None:
            raws = [(code, keyed, diagnostic, None) for code, keyed, diagnostic in remembered]
        elif model is None:
            return  # (not built: `remembered` builds every kernel whose key the memo does not hold)
        else:
            crashes = len(self.crashes)
            raws = []
            self._rules_over(kernel, model, partial(self._unplaced, raws))
            if len(self.crashes) == crashes and not self.depends:
                memo.store(key, closure, [(code, keyed, diagnostic) for code, keyed, diagnostic, _ in raws])
        for code, keyed, diagnostic, complete in raws:
            place = ("access", diagnostic.start_offset, diagnostic.end_offset) if keyed \
                else (diagnostic.line, diagnostic.column)
            self._report(code, place, diagnostic, complete)

    def _unplaced(self, raws: list[tuple[str, bool, Diagnostic, Callable[[], Diagnostic] | None]],
                  rule: Rule, finding: Finding) -> None:
        """The editor's handling of a finding (`check_remembered`): kept unplaced in `raws`, as (code,
        reported once per key, diagnostic, what completes it), for the memo to store."""
        diagnostic = finding.diagnostic(rule.code, rule.name, self.file)
        raws.append((rule.code, finding.key() is not None, diagnostic,
                     partial(finding.diagnostic, rule.code, rule.name, self.complete)))

    def check(self, kernel: KernelSource, model: KernelContext, own: set[int] | None = None,
              record: tuple[int, list[tuple[int, str, tuple[int, int] | None, Diagnostic]]] | None = None) -> None:
        """Every rule over one context (`own`: a neighbour's caller, only findings in this file's contexts).
        With `record` (the kernel's index, a list), each finding goes to the list, not yet placed."""
        self._rules_over(kernel, model, partial(self._deduplicated, own, record), own)

    def _deduplicated(self, own: set[int] | None,
                      record: tuple[int, list[tuple[int, str, tuple[int, int] | None, Diagnostic]]] | None,
                      rule: Rule, finding: Finding) -> None:
        """`check`'s handling of a finding: an access reported once per key (before its diagnostic is
        built), anything else once per place in the file; placed, or recorded when `record` is given."""
        key = finding.key()
        if key is not None:
            if (rule.code, key) in self.reported:
                return
            self.reported.add((rule.code, key))
            self.keyed.append((rule.code, key))
        diagnostic = finding.diagnostic(rule.code, rule.name, self.file)
        place = (diagnostic.line, diagnostic.column) if key is None and own is None else None
        if record is not None:
            record[1].append((record[0], rule.code, place, diagnostic))
            return
        self._report(rule.code, place, diagnostic, partial(finding.diagnostic, rule.code, rule.name, self.complete))

    def _rules_over(self, kernel: KernelSource, model: KernelContext, take: Callable[[Rule, Finding], None],
                    own: set[int] | None = None) -> None:
        """Every rule over one context, each finding handed to `take` (with `own`, a neighbour's caller:
        only the findings in this file's contexts). A crashing rule is a crash line (re-raised when
        strict; a caller's crashes are its own file's to report)."""
        for rule in self.rules:
            try:
                for finding in list(rule.check(model)):
                    if own is not None and id(getattr(finding, "context", None)) not in own:
                        continue  # the caller's own findings belong to its file
                    take(rule, finding)
            except RecursionError:
                raise NestedTooDeep(kernel.first_line, "analyse") from None
            except Exception as error:
                if own is not None:
                    continue  # the caller's file reports its own crashes
                if self.strict:
                    raise RuleCrash(f"{rule.code} crashed on {self.path}:{kernel.first_line}") from error
                self.crashes.append(_crash_line(self.path, kernel, f"{rule.code} ({rule.name})", error))

    def _report(self, code: str, place: object, diagnostic: Diagnostic,
                complete: Callable[[], Diagnostic] | None) -> None:
        """Place a finding unless one of its code was placed at `place` already (None: placed in any
        case); in the editor's mode, with what completes it."""
        if place is not None:
            if (code, place) in self.reported:
                return
            self.reported.add((code, place))
        self.suppressed += _place(diagnostic, self.text, self.starts, self.diagnostics, self.used)
        if self.deferred is not None and complete is not None:
            self.deferred.defer(diagnostic, complete)


# A text this long (characters) whose kernels form several groups is checked on two cores.
FORK_ABOVE = 1_000_000


class _Share:
    """What one share of `_Run._in_two` found (see `_Run._share`)."""

    def __init__(self) -> None:
        self.records: list[tuple[int, str, tuple[int, int] | None, Diagnostic]] = []
        self.model_crashes: list[tuple[int, str]] = []
        self.rule_crashes: list[tuple[int, str]] = []
        self.depends: set[str] = set()


# The trees of the kernels last parsed as a neighbour's callers (`importing_callers`), for this
# process's later checks of those kernels' own files (`caller_parses`).
CALLER_PARSES = CallerParses()


def _parsed(kernels: Sequence[KernelSource], parses: dict[str, cst.Module] | None = None, *,
            handed: set[int] | None = None) -> list[tuple[KernelSource, cst.Module]]:
    """Each kernel parsed with libcst on its own (or taken from `parses`, by its source: libcst
    trees are immutable, and what the analysis derives from a tree depends only on the tree).
    Without `parses`, a tree kept from a search for callers is taken (`CALLER_PARSES`); with
    `handed` (the search for callers, the ids of the trees it had), trees are kept there.
    Raises libcst.ParserSyntaxError, and NestedTooDeep for code nested deeper than the parser's stack."""
    parsed = []
    try:
        with _unvalidated_nodes():
            for kernel in kernels:
                source = NESTED_PREFIX + kernel.text if kernel.indented else kernel.text
                if parses is not None:
                    module = parses.get(source)
                elif handed is not None:
                    module = CALLER_PARSES.get(source, handed)
                else:
                    module = CALLER_PARSES.take(source)
                if module is None:
                    module = cst.parse_module(source)
                    if parses is not None:
                        parses[source] = module
                    elif handed is not None:
                        CALLER_PARSES.keep(source, module)
                if handed is not None:
                    handed.add(id(module))
                parsed.append((kernel, module))
    except RecursionError:
        raise NestedTooDeep(1, "parse") from None
    return parsed


def _first_parse_failure(kernels: Sequence[KernelSource]) -> None:
    """Raise what parsing every kernel in file order raises first, if anything (the error a check
    reports when one kernel does not parse, whatever else went wrong)."""
    for kernel in kernels:
        _parsed([kernel])


def _may_have_callers(path: str, found: Outline, neighbours: Neighbours | None) -> bool:
    """Whether a neighbouring module may import and call one of the file's jit functions
    (`importing_callers` asks the same first): then every context stays until the end."""
    if neighbours is None or not found.kernels:
        return False
    stem = os.path.splitext(os.path.basename(path))[0]
    names = [kernel.name for kernel in found.kernels]
    return any(_may_import(other, stem, names) for _, other in neighbours())


def _may_import(text: str, stem: str, names: Iterable[str]) -> bool:
    """Whether a module's text may import one of `names` from the module `stem`: the textual test
    asked before any parsing (it names both)."""
    return stem in text and any(name in text for name in names)


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


def evenness_flag_tiles(text: str, config: Config) -> dict[str, dict[str, frozenset[str]]]:
    """Per kernel, the tiles each evenness flag vouches for (`{"matmul": {"EVEN_M": {"BLOCK_M"}}}`):
    the block sizes of the dimensions the recogniser relates the flag to. The witness needs them to
    know which sizes a flag promises full (it keeps those whole when it sets the flag's full side)."""
    try:
        imports, kernels = parse_kernels(text)
    except (SyntaxError, cst.ParserSyntaxError, RecursionError):
        return {}
    found: dict[str, dict[str, frozenset[str]]] = {}
    starts = line_starts(text)
    for kernel, module in kernels:
        model = build_model(kernel, module, imports, config, text, starts)
        sizes = model.flags.ev.dim_size
        found[kernel.name] = {flag.atom: frozenset(sizes[d] for d in flag.dims if d in sizes)
                              for flag in model.flags.flags if flag.atom.isidentifier()}
    return found


def _crash_line(path: str, kernel: KernelSource, what: str, error: Exception) -> str:
    where = traceback.extract_tb(error.__traceback__)[-1]
    detail = str(error).splitlines()[0][:160] if str(error) else ""
    return (f"{path}:{kernel.first_line}: internal error in {what} on kernel {kernel.name}: "
            f"{type(error).__name__}: {detail} [{where.filename.rsplit('/', 1)[-1]}:{where.lineno}]")


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


MAX_FIX_ROUNDS = 10


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


def _suppressed_by(diagnostic: Diagnostic, text: str, starts: Sequence[int]) -> list[int]:
    """The lines (its first and/or last) whose suppression comments hide `diagnostic`; empty if none."""
    lines = []
    for number in sorted({diagnostic.line, diagnostic.end_line}):
        end = starts[number] if number < len(starts) else len(text)
        line = text[starts[number - 1]:end]
        if not suppressions_in_line(number, line):
            continue  # the cheap test first: most flagged lines carry no suppression at all
        comments = comments_by_line(text)  # only real comments: a suppression spelled inside a string is none
        if comments is not None:
            line = comments.get(number, "")
        if any(s.covers(diagnostic.code) for s in suppressions_in_line(number, line)):
            lines.append(number)
    return lines
