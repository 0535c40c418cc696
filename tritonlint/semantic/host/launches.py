"""Launch sites: `kernel[grid](...)` in host code, arguments bound to parameters, and what the grid says per axis.

Read with the stdlib `ast` parser, like the outline: host code is never imported or run. A grid
axis is a rounded-up division (`triton.cdiv(n, BLOCK)`, `(n + BLOCK - 1) // BLOCK`: the last
program's tile can be partial), an exact division (`n // BLOCK`), or unknown. A rounded-up axis
can be guarded by the host: `assert n % BLOCK == 0` before the launch, an `if n % BLOCK != 0:
raise` before it, or an `if n % BLOCK == 0:` around it. A division is exact when its divisor is a
divisor of the divided count by construction: `math.gcd(n, 1024)`, or a host function of the
launching module that returns `d` only where `n % d == 0` (`unroll = highest_divisor(n, 256)`).
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from tritonlint.semantic.host.admitted_values import Table, admitted_values, literal_tables
from tritonlint.semantic.host.host_guards import (
    Body,
    CallIndex,
    Choice,
    Fact,
    caller_facts,
    choices,
    facts_at,
    kept_whole,
    live_caller_facts,
    parameter_names,
)
from tritonlint.semantic.host.module_constants import module_constants
from tritonlint.semantic.host.offered_predicates import offered_multiples
from tritonlint.semantic.host.on_demand import OnDemand
from tritonlint.semantic.host.padded_allocations import Assignments, assignments, padded_length
from tritonlint.semantic.host.predicates import Imported, Predicates
from tritonlint.semantic.host.unknown_divisors import unknown_multiples
from tritonlint.source.imports import statements_breadth_first
from tritonlint.source.outline import line_starts
from tritonlint.source.parsed import ast_dotted


@dataclass(frozen=True)
class Axis:
    """The number of programs along one axis of a launch's grid."""

    kind: str  # "partial" (rounded up: the last tile can be partial), "exact" or "unknown"
    text: str  # the host expression, for notes
    extent: str = ""  # what is divided (`n`), when divided
    size: str = ""  # the divisor as the host spells it (`BLOCK`, `1024`, `meta["BLOCK"]`)
    meta_key: str = ""  # the divisor read from the launch's meta-parameters (`meta["BLOCK"]`): a kernel parameter
    count: str = ""  # the name the grid gives the axis's size (`blocks` of `blocks = cdiv(n, B)`), if any
    guard: str = ""  # the host line that keeps `extent` a multiple of `size`: "`assert n % 1024 == 0` at ops.py:40"


@dataclass(frozen=True)
class Launch:
    """One `kernel[grid](...)` call."""

    kernel: str  # the kernel's name in its own module
    where: str  # "ops.py:41"
    grid: tuple[Axis, ...]
    args: Mapping[str, str] = field(default_factory=dict, hash=False)  # kernel parameter -> host text
    # kernel parameter -> the values its argument's name is assigned before the launch, with their lines
    allocations: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict, hash=False)
    # kernel parameter -> the test its argument is (`EVEN_K=K % 2 == 0`, or `even = K % 2 == 0` before
    # the launch): its text and place (1-based lines, 0-based UTF-8 byte columns)
    predicates: Mapping[str, tuple[str, tuple[int, int, int, int]]] = field(default_factory=dict, hash=False)
    local: bool = False  # in the kernel's own file (its predicates can be reported and fixed there)
    # (a, b) kernel parameters whose arguments the host keeps multiples (`assert BTL % BTS == 0`
    # before the launch, an `if ... : raise` or an `if` around it): `a % b == 0` in the kernel;
    # each with the host test that keeps it, for notes
    multiples: Mapping[tuple[str, str], str] = field(default_factory=dict, hash=False)
    # block parameter -> (size parameter, host test) pairs where a test around the launch keeps the
    # size within the block (`if n_cols <= BLOCK_SIZE:`): the tile covers the size, padded past it
    covers: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict, hash=False)
    # pointer parameter -> host text X where the host pads the tensor it passes to at least X elements
    # (`torch.zeros(X)` filled from the shorter one; padded_allocations): reads up to X stay inside it
    padded: Mapping[str, str] = field(default_factory=dict, hash=False)
    # (a, b) kernel parameters that a public predicate the module offers beside the launching function
    # requires multiples (`gemv_supported(x, w)`: `k % block_k == 0`), each with its test, for notes.
    # Callers are meant to test it, but nothing at the launch shows they do: the witness reads these
    # to mark a confirmation latent; `check` does not trust them (offered_predicates).
    offered: Mapping[tuple[str, str], str] = field(default_factory=dict, hash=False)
    # block parameter -> (size parameter, where) pairs where the block never exceeds the size
    # (an autotune pruner setting `BLOCK_N = min(tile, N)`): witness-only, like `offered`.
    at_most: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict, hash=False)
    # (a, b) kernel parameters kept multiples by the tests of every live caller of the private launching
    # function, where a private function nothing in the module calls makes the one untested call
    # (host_guards.live_caller_facts). That code is dead only as far as the module shows (another module
    # may import a private name): witness-only, like `offered`.
    live_callers: Mapping[tuple[str, str], str] = field(default_factory=dict, hash=False)
    # (parameter, divisor) where a host test keeps the argument (a pointer: its tensor's leading
    # dimension) a multiple of a value Python does not hold (`b.size(0) % get_alignment() == 0`):
    # witness-only, it marks a confirmation latent on that condition (unknown_divisors).
    unknown_multiples: Mapping[tuple[str, str], str] = field(default_factory=dict, hash=False)
    # parameter -> (values, test) where a literal table the host tests admits only those values
    # (`if (k, n) not in SUPPORTED: raise`): witness-only (admitted_values).
    admitted: Mapping[str, tuple[tuple[int, ...], str]] = field(default_factory=dict, hash=False)

    def sizes(self, axis: Axis) -> frozenset[str]:
        """The kernel-side names and literals the axis's divisor stands for."""
        if axis.meta_key:
            return frozenset({axis.meta_key})
        return frozenset({axis.size} | {param for param, text in self.args.items() if text == axis.size})


def _text(node: ast.AST) -> str:
    return ast.unparse(node)


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def launch_pattern(names: Sequence[str]) -> re.Pattern[str]:
    """Text that can hold a launch of one of `names` (the cheap test before any parsing)."""
    return re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\s*\[")


_WORD = re.compile(r"\w")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_IDENTIFIER = re.compile(r"\w+")


def may_launch(text: str, names: Sequence[str]) -> bool:
    """Whether `launch_pattern(names)`, or a name followed by `.warmup` (a compile for a later
    launch), matches somewhere in `text`, three times faster: a pattern that starts with `\\b` is
    tried at every offset, one that starts with the names skips to where one starts, and the word
    boundary is then tested at the few places found."""
    if len(names) <= _FEW_WORDS:
        return _may_launch_few(text, names)
    pattern = _unbounded(tuple(sorted(names)))
    found = pattern.search(text)
    while found is not None:
        start = found.start()
        if (start > 0 and _WORD.match(text, start - 1) is not None) != (_WORD.match(text, start) is not None):
            return True
        found = pattern.search(text, start + 1)
    return False


def _may_launch_few(text: str, names: Sequence[str]) -> bool:
    """`may_launch` for a few names, three times faster again: each name's occurrences found by
    `str.find` (where the alternation is tried at every offset that starts one of them), then the
    same word boundary before it and the same `[` or `.warmup` after it tested there."""
    for name in names:
        start = text.find(name)
        while start >= 0:
            if (start > 0 and _WORD.match(text, start - 1) is not None) != (_WORD.match(text, start) is not None) \
                    and _LAUNCHED.match(text, start + len(name)) is not None:
                return True
            start = text.find(name, start + 1)
    return False


# What follows a kernel's name where it is launched, as `_unbounded` reads it.
_LAUNCHED = re.compile(r"\s*(?:\[|\.\s*warmup\b)")


@functools.lru_cache(maxsize=64)
def _unbounded(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?:" + "|".join(map(re.escape, names)) + r")\s*(?:\[|\.\s*warmup\b)")


def _naming_lines(text: str, words: Sequence[str]) -> list[int]:
    """The lines (1-based, in order) where one of `words` may be read as a name: each line that holds
    one, and each line holding a non-ASCII character (an identifier there is read in its NFKC form,
    which may be one of them)."""
    # Every word of the text tested against a set: one pass, where an alternation of the names
    # would be tried at every offset (a file of thousands of kernels took minutes). A name inside
    # a longer word is another name, never one of `words`.
    wanted = set(words)
    if len(wanted) <= _FEW_WORDS:
        found = _whole_words_at(text, tuple(sorted(wanted)))
    else:
        found = [match.start() for match in _IDENTIFIER.finditer(text) if match.group() in wanted]
    if not text.isascii():
        found = sorted(found + [match.start() for match in _NON_ASCII.finditer(text)])
    lines: list[int] = []
    if "\r" not in text:  # (only `\n` ends a line: the newlines between offsets counted, no line table)
        line, previous = 1, 0
        for offset in found:
            line += text.count("\n", previous, offset)
            previous = offset
            if not lines or lines[-1] != line:
                lines.append(line)
        return lines
    starts = line_starts(text)
    for offset in found:
        line = bisect.bisect_right(starts, offset)
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


# Up to this many names, a search that skips to where one of them starts beats testing every word.
_FEW_WORDS = 32


def _whole_words_at(text: str, words: tuple[str, ...]) -> list[int]:
    """The offsets where one of `words` is a whole word of `text` (a `\\w+` run), in order: the
    offsets of `_IDENTIFIER` matches in `words`, found without splitting the whole text into words."""
    if not words or not all(_IDENTIFIER.fullmatch(word) for word in words):  # (never a whole word)
        return [match.start() for match in _IDENTIFIER.finditer(text) if match.group() in words]
    # Each word's occurrences by `str.find` (an alternation of them was tried at every offset that
    # starts one): a whole word has no word character on either side. Two never overlap (each is a
    # whole `\w+` run), so the offsets, sorted, are the definition's.
    found: list[int] = []
    for word in words:
        start = text.find(word)
        while start >= 0:
            if (start == 0 or _WORD.match(text, start - 1) is None) and _WORD.match(text, start + len(word)) is None:
                found.append(start)
            start = text.find(word, start + 1)
    found.sort()
    return found


def find_launches(tree: ast.Module, names: Mapping[str, str], params: Mapping[str, list[str]],
                  display: str, modules: frozenset[str] = frozenset(),
                  members: Mapping[str, str] | None = None, local: bool = False,
                  text: str | None = None, imported: Imported | None = None) -> list[Launch]:
    """The launches in `tree` of the kernels `names` maps to (local name -> kernel name).

    `modules` are local names of the kernels' module (`from . import kernels`), and `members` maps
    that module's names to kernels: `kernels.k[grid]`. `display` names the file in notes. `text`,
    the source of `tree`, lets the search skip the statements on lines that name no kernel.
    `imported` finds a predicate the module imports from its package (`predicates.py`).
    """
    finder = _Finder(names, params, display, modules, members or {}, local)
    finder.imported = imported
    finder.text = text
    if text is not None:
        finder.lines = _naming_lines(text, [*names, *modules])
    finder.functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    finder.tree = tree
    with warnings.catch_warnings():
        # Host texts are read squashed (`64ifneelse512`): parsing one may warn, which is not ours to print.
        warnings.simplefilter("ignore", SyntaxWarning)
        finder.body(tree.body, (), _Scope(tree.body))
    # The launches' witness-only facts (`OnDemand`) hold the finder: it lets go of them (no cycle left
    # for the collector, which is off while a file is checked).
    found, finder.found = finder.found, []
    return found


class _Finder:
    def __init__(self, names: Mapping[str, str], params: Mapping[str, list[str]], display: str,
                 modules: frozenset[str], members: Mapping[str, str], local: bool) -> None:
        self.names, self.params, self.display, self.modules = names, params, display, modules
        self.members, self.local = members, local
        self.found: list[Launch] = []
        self.functions: dict[str, ast.FunctionDef] = {}  # the module's own host functions, by name
        self.lines: list[int] | None = None  # the lines that may name a kernel, sorted; None: any line
        self.tree: ast.Module | None = None
        self.text: str | None = None  # the source of `tree`, when known
        self._caller_facts: dict[str, list[Fact]] = {}  # host function -> what its callers test
        self._live_caller_facts: dict[str, list[Fact]] = {}  # the same, its dead callers left out
        self._constants: dict[str, int] | None = None
        self.imported: Imported | None = None  # predicates imported from modules of the same package

    @functools.cached_property
    def predicates(self) -> Predicates:
        """The plain boolean predicates a host test may call: the module's own, and imported ones."""
        return Predicates(self.functions, self.constants, self.imported)

    @functools.cached_property
    def call_index(self) -> CallIndex:
        """The calls of the module's private functions, for `caller_facts`: one walk of the module for all."""
        assert self.tree is not None
        private = {name for name in self.functions if name.startswith("_") and not name.startswith("__")}
        lines = _naming_lines(self.text, sorted(private)) if self.text is not None and private else None
        return CallIndex(self.tree, private, lines)

    @property
    def constants(self) -> dict[str, int]:
        """The module's integer constants (`_BLOCK_K = 64`), read on first use."""
        if self._constants is None:
            self._constants = module_constants(self.tree) if self.tree is not None else {}
        return self._constants

    def names_kernel(self, statement: ast.stmt) -> bool:
        """Whether a line of the statement may name a kernel (or its module): else it launches none."""
        if self.lines is None:
            return True
        at = bisect.bisect_left(self.lines, statement.lineno)
        return at < len(self.lines) and self.lines[at] <= (statement.end_lineno or statement.lineno)

    def body(self, statements: list[ast.stmt], ifs: tuple[tuple[ast.expr, bool], ...],
             scope: _Scope) -> None:
        """Statements, with the `if` tests around them (test, on its true side) and the function body they are in."""
        for statement in statements:
            if not self.names_kernel(statement):
                continue  # most of a module: walking every expression of it was most of the search
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if statement.name in self.params and statement.decorator_list:
                    continue  # a kernel itself launches nothing
                function = statement if isinstance(statement, ast.FunctionDef) else None
                self.body(statement.body, (), _Scope(statement.body, function))
                continue
            if isinstance(statement, ast.ClassDef):
                self.body(statement.body, (), _Scope(statement.body))
                continue
            for name, value in ast.iter_fields(statement):
                if name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    continue
                for node in value if isinstance(value, list) else [value]:
                    if isinstance(node, ast.expr):
                        self.expressions(node, ifs, scope)
            if isinstance(statement, ast.If):
                self.body(statement.body, (*ifs, (statement.test, True)), scope)
                self.body(statement.orelse, (*ifs, (statement.test, False)), scope)
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(statement, name, None)
                if isinstance(inner, list):
                    self.body(inner, ifs, scope)
            for handler in getattr(statement, "handlers", ()):
                self.body(handler.body, ifs, scope)
            for case in getattr(statement, "cases", ()):
                self.body(case.body, ifs, scope)

    def expressions(self, node: ast.expr, ifs: tuple[tuple[ast.expr, bool], ...], scope: _Scope) -> None:
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Call):
                continue
            if isinstance(inner.func, ast.Subscript):
                target, grid = inner.func.value, inner.func.slice
            elif isinstance(inner.func, ast.Attribute) and inner.func.attr == "warmup":
                # `kernel.warmup(*args, grid=..., **constexprs)` compiles the kernel for those
                # arguments; the handle it returns runs with them (`handle[grid](...)`): a launch.
                found = next((k.value for k in inner.keywords if k.arg == "grid"), None)
                if found is None:
                    continue
                target, grid = inner.func.value, found
            else:
                continue
            kernel = None
            if isinstance(target, ast.Name):
                kernel = self.names.get(target.id)
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id in self.modules:
                kernel = self.members.get(target.attr)
            if kernel is not None:
                self.found.append(self.launch(kernel, inner, grid, ifs, scope))

    def launch(self, kernel: str, call: ast.Call, grid: ast.expr, ifs: tuple[tuple[ast.expr, bool], ...],
               scope: _Scope) -> Launch:
        params = self.params.get(kernel, [])
        bound: dict[str, ast.expr] = {}  # kernel parameter -> its argument (none after a `*args` of unknown length)
        position = 0
        for value in call.args:
            if isinstance(value, ast.Starred):
                # A tuple of known length (`*strides` with `strides = (a, b, c) if x else (0, 0, 0)`) fills
                # that many parameters, its elements unnamed: the arguments after it bind on.
                length = _starred_length(value.value, scope, call.lineno)
                if length is None:
                    break
                position += length
                continue
            if position >= len(params):
                break
            bound[params[position]] = value
            position += 1
        bound |= {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg is not None
                  and (keyword.arg != "grid" or isinstance(call.func, ast.Subscript))}
        args = {param: squash(_text(value)) for param, value in bound.items()}
        line = call.lineno
        axes = []
        for element, meta in _grid_elements(grid, scope, line):
            axis = classify(_resolved(element, scope, line), meta)
            if isinstance(element, ast.Name):
                axis = Axis(axis.kind, axis.text, axis.extent, axis.size, axis.meta_key, element.id)
            if axis.kind == "partial" and (_divides(axis, scope, line)
                                           or _divisor_of_extent(axis, scope, line, self.functions)):
                axis = Axis("exact", axis.text, axis.extent, axis.size, axis.meta_key, axis.count)
            if axis.kind == "partial":
                sizes = {axis.size} | ({args[axis.meta_key]} if axis.meta_key in args else set())
                guard = _guard(axis.extent, sizes, ifs, scope, line)
                if guard:
                    axis = Axis(axis.kind, axis.text, axis.extent, axis.size, axis.meta_key, axis.count,
                                f"`{guard[0]}` at {self.display}:{guard[1]}")
            axes.append(axis)
        allocations = {param: _values(scope, value.id, line) for param, value in bound.items()
                       if isinstance(value, ast.Name)}
        predicates = {}
        for param, value in bound.items():
            if isinstance(value, ast.Name):
                value = _assignments(scope, value.id, line) or value
            if _is_test(value):
                place = (value.lineno, value.col_offset, value.end_lineno or value.lineno,
                         value.end_col_offset or value.col_offset)
                predicates[param] = (_text(value), place)
        # Read only where a hazard's tile might be kept whole by the host (a loop's last tile, a
        # sibling's guard): most launches' never are, and working them out was half the search.
        multiples: OnDemand[tuple[str, str], str] = OnDemand(functools.partial(self.kept_multiples, args, ifs, scope, line))
        padded = {param: length for param, value in bound.items() if isinstance(value, ast.Name)
                  for length in [padded_length(scope.statements, value.id, line, scope.assignments)]
                  if length is not None}
        offered = offered_multiples(scope.function, self.functions, self.predicates.expand, args, lambda: scope.body, line,
                                    self.display, self.constants)
        # The witness-only facts, worked out when the witness reads them (`check` never does).
        live = OnDemand(lambda: {pair: test for pair, test in self.live_multiples(args, ifs, scope, line).items()
                                 if pair not in multiples})
        unknown = OnDemand(lambda: unknown_multiples(
            args, facts_at(ifs, scope.body, line, self.display), scope.body, line, self.constants)
            if "%" in self.function_text(scope) else {})
        admitted = OnDemand(lambda: admitted_values(
            scope.statements, ifs, scope.body, line, args, self.functions, self.tables, self.display)
            if scope.function is not None else {})
        return Launch(kernel, f"{self.display}:{line}", tuple(axes), args, allocations, predicates, self.local,
                      multiples, _covers(args, ifs, self.display), padded,
                      OnDemand(lambda: {pair: test for pair, test in offered.items() if pair not in multiples}),
                      live_callers=live,
                      unknown_multiples=unknown, admitted=admitted)

    @functools.cached_property
    def tables(self) -> dict[str, Table]:
        """The module's literal tables of integers (`SUPPORTED = frozenset({(3072, 256), ...})`)."""
        return literal_tables(self.tree) if self.tree is not None else {}

    def function_text(self, scope: _Scope) -> str:
        """The source of the launching function (the module's where none): a cheap test before a reading."""
        if self.text is None:
            return "%"
        node = scope.function
        if node is None:
            return self.text
        return "\n".join(self.text_lines[node.lineno - 1:node.end_lineno or node.lineno])

    @functools.cached_property
    def text_lines(self) -> list[str]:
        return (self.text or "").splitlines()

    def kept_multiples(self, args: Mapping[str, str], ifs: tuple[tuple[ast.expr, bool], ...], scope: _Scope,
                       line: int) -> dict[tuple[str, str], str]:
        """`Launch.multiples`: the pairs a host test before the launch keeps multiples, then those its
        callers' tests or a config chooser keep (read after the search: its warnings silenced alike)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # (see `find_launches`)
            multiples = _multiples(args, ifs, scope, line, self.display, self.constants)
            multiples |= {pair: guard for pair, guard in self.inherited_multiples(args, ifs, scope, line).items()
                          if pair not in multiples}
        return multiples

    def inherited_multiples(self, args: Mapping[str, str], ifs: tuple[tuple[ast.expr, bool], ...], scope: _Scope,
                            line: int) -> dict[tuple[str, str], str]:
        """(a, b) kernel parameters whose host texts are kept multiples by the launching function's
        callers' tests, or by the tests a config chooser returns each block under (host_guards)."""
        body = scope.body
        # The blocks first: most launches pass none a chooser or a test can name, and then no test
        # (the callers' included, a pass over the module) needs reading.
        blocks = {b: options for b, size in args.items() if re.fullmatch(r"[^\W\d]\w*|\d+", size)
                  and (options := choices(size, body, line, self.functions, self.display))}
        if not blocks:
            return {}
        facts = facts_at(ifs, body, line, self.display, self.predicates.expand)
        function = scope.function
        # The module's own function of that name, not a method or nested def named like it.
        if function is not None and self.tree is not None and self.functions.get(function.name) is function:
            if function.name not in self._caller_facts:
                self._caller_facts[function.name] = caller_facts(self.tree, function, self.display,
                                                                 self.predicates.expand, self.call_index)
            facts += self._caller_facts[function.name]
        return _kept_pairs(blocks, args, body, line, facts)

    def live_multiples(self, args: Mapping[str, str], ifs: tuple[tuple[ast.expr, bool], ...], scope: _Scope,
                       line: int) -> dict[tuple[str, str], str]:
        """`inherited_multiples` as the live callers of the launching function keep them: a call from a
        private function nothing in the module calls is left out (witness-only: see `Launch.live_callers`)."""
        function = scope.function
        if function is None or self.tree is None or self.functions.get(function.name) is not function:
            return {}
        if function.name not in self._live_caller_facts:
            self._live_caller_facts[function.name] = live_caller_facts(
                self.tree, function, self.display, self.predicates.expand, self.call_index)
        live = self._live_caller_facts[function.name]
        if not live:
            return {}
        body = scope.body
        blocks = {b: options for b, size in args.items() if re.fullmatch(r"[^\W\d]\w*|\d+", size)
                  and (options := choices(size, body, line, self.functions, self.display))}
        return _kept_pairs(blocks, args, body, line, facts_at(ifs, body, line, self.display, self.predicates.expand)
                           + live)


def _kept_pairs(blocks: Mapping[str, Sequence[Choice]], args: Mapping[str, str], body: Body, line: int,
                facts: Sequence[Fact]) -> dict[tuple[str, str], str]:
    """(extent, block) kernel parameters whose host texts `facts` (or the block's own choices) keep whole."""
    found: dict[tuple[str, str], str] = {}
    for b, options in blocks.items():
        if not facts and not any(path for _, path in options):
            continue  # nothing tested: no extent is kept a multiple of this block
        for a, extent in args.items():
            if a != b and re.fullmatch(r"[^\W\d]\w*(\.\w+)*(\[-?\d+\]|\(-?\d+\))?", extent):
                guard = kept_whole(extent, options, body, line, facts)
                if guard:
                    found[(a, b)] = guard
    return found


class _Scope:
    """A body launches are found in (a host function's, a class's, the module's), walked once, on first
    use, for what every launch and argument in it asks: the assignments, `def`s and tests before a line."""

    def __init__(self, statements: list[ast.stmt], function: ast.FunctionDef | None = None) -> None:
        self.statements = statements
        self.function = function  # the host function whose body this is, if any

    @functools.cached_property
    def assignments(self) -> Assignments:
        """The body's assignments to each name with the tests around them, for `padded_length`."""
        return assignments(self.statements)

    @functools.cached_property
    def body(self) -> Body:
        """The body's assignments, tuple unpackings included, for host_guards' readings."""
        return Body(self.statements)

    @functools.cached_property
    def _walked(self) -> tuple[dict[str, list[ast.Assign | ast.FunctionDef]], list[ast.Assert | ast.If]]:
        bindings: dict[str, list[ast.Assign | ast.FunctionDef]] = {}
        checks: list[ast.Assert | ast.If] = []
        for statement in self.statements:
            # (all four kinds are statements: a walk of statements meets them in `ast.walk`'s order)
            for node in statements_breadth_first(statement):
                if isinstance(node, ast.Assign):
                    for name in dict.fromkeys(t.id for t in node.targets if isinstance(t, ast.Name)):
                        bindings.setdefault(name, []).append(node)
                elif isinstance(node, ast.FunctionDef):
                    bindings.setdefault(node.name, []).append(node)
                elif isinstance(node, (ast.Assert, ast.If)):
                    checks.append(node)
        for nodes in bindings.values():  # in line order: the last one before a line is its value there
            nodes.sort(key=lambda node: node.lineno)
        return bindings, checks

    def bindings(self, name: str) -> list[ast.Assign | ast.FunctionDef]:
        """The `name = ...` assignments and `def name` functions of the body, nested ones included, in line order."""
        return self._walked[0].get(name, [])

    @property
    def checks(self) -> list[ast.Assert | ast.If]:
        """The body's `assert`s and `if`s, nested ones included."""
        return self._walked[1]


def _multiples(args: Mapping[str, str], ifs: tuple[tuple[ast.expr, bool], ...], scope: _Scope,
               line: int, display: str, constants: Mapping[str, int]) -> dict[tuple[str, str], str]:
    """The (a, b) parameter pairs whose arguments a host test before the launch keeps multiples:
    `assert BTL % BTS == 0`, `if n % b != 0: raise ...`, or `if n % b == 0:` around the launch;
    each with that test and its place, for notes ("`assert K % 128 == 0` at ops.py:40"). An
    argument given by a host name stands for the literal that name is assigned before the launch
    (`BLOCK_K = 128` ... `BLOCK_K=BLOCK_K`, beside `assert K % 128 == 0`)."""
    tested: list[tuple[ast.expr, str]] = [(mod, f"`if {_text(test)}:` at {display}:{test.lineno}")
                                          for test, side in ifs for mod, zero in multiple_tests(test) if zero == side]
    for node in scope.checks:
        if node.lineno >= line:
            continue
        if isinstance(node, ast.Assert):
            tested += [(mod, f"`assert {_text(node.test)}` at {display}:{node.lineno}")
                       for mod, zero in multiple_tests(node.test) if zero]
        elif node.body and isinstance(node.body[-1], (ast.Raise, ast.Return)):
            conjuncts = list(multiple_tests(node.test))
            exit_ = "raise" if isinstance(node.body[-1], ast.Raise) else "return"
            tested += [(mod, f"`if {_text(node.test)}: {exit_}` at {display}:{node.lineno}")
                       for mod, zero in conjuncts if not zero and len(conjuncts) == 1]
    params: dict[str, list[str]] = {}
    literals: dict[str, int] = {}  # kernel parameter -> the integer its argument is at the launch
    for param, text in args.items():
        params.setdefault(text, []).append(param)
        value = literal_value(text, scope, line, constants)
        if value is not None:
            literals[param] = value
            if str(value) != text:
                params.setdefault(str(value), []).append(param)
    found: dict[tuple[str, str], str] = {}
    for mod, where in tested:
        if not isinstance(mod, ast.BinOp):
            continue
        for a in params.get(squash(_text(mod.left)), ()):
            for b in params.get(squash(_text(mod.right)), ()):
                found.setdefault((a, b), where)
    # Both arguments integers the launch fixes (`K=192, BLOCK_K=64`, or module constants holding
    # them): the launch itself keeps one a multiple of the other.
    def told(param: str) -> str:
        return f"`{param}={args[param]}`" + ("" if args[param] == str(literals[param]) else f" ({literals[param]})")

    for a, value_a in literals.items():
        for b, value_b in literals.items():
            if a != b and value_b > 0 and value_a >= 0 and value_a % value_b == 0:
                found.setdefault((a, b), f"{told(a)} and {told(b)} passed at {display}:{line}")
    # Two parameters given the same host expression (`group_size, ..., BLOCK_GROUP_SIZE=group_size`)
    # are equal at every launch: each is a multiple of the other, and no tile of one is partial in the other.
    for text, names in params.items():
        for a in names:
            for b in names:
                if a != b and a in args and b in args and args[a] == args[b] == text:
                    found.setdefault((a, b), f"`{a}` and `{b}` both given `{text}` at {display}:{line}")
    return found


def _covers(args: Mapping[str, str], ifs: tuple[tuple[ast.expr, bool], ...],
            display: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Block parameter -> (size parameter, host test) for each size that a dispatch around the
    launch keeps within the block: `if n_cols <= BLOCK:` or `if BLOCK >= n_cols:` around it, or
    the `else` of `if n_cols > BLOCK:`. The host chose this kernel because its tile is at least as
    wide as the size it passes beside it: the lanes past the size are padding unless the two are
    equal. Asserts are not read: `assert rope_dim <= D` checks that a part fits in a whole, and
    says nothing of a tile padded past its data."""
    params: dict[str, list[str]] = {}
    for param, text in args.items():
        params.setdefault(text, []).append(param)
    found: dict[str, dict[str, str]] = {}
    for test, side in ifs:
        for small, big in _within(test, side):
            for block in params.get(squash(_text(big)), ()):
                for size in params.get(squash(_text(small)), ()):
                    if size != block:
                        found.setdefault(block, {}).setdefault(size, ("" if side else "the `else` of ")
                                                               + f"`if {_text(test)}:` at {display}:{test.lineno}")
    return {block: tuple(sizes.items()) for block, sizes in found.items()}


def _within(test: ast.expr, holds: bool) -> Iterator[tuple[ast.expr, ast.expr]]:
    """(small, big) for each comparison that `test` being `holds` makes true as `small <= big`:
    `n <= B`, `B >= n`, `n < B`, and when the test fails `n > B` or `B < n`; through the
    conjuncts of a test that holds and the disjuncts of one that fails."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if holds else ast.Or):
        for value in test.values:
            yield from _within(value, holds)
        return
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _within(test.operand, not holds)
        return
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.LtE, ast.Lt)):
        yield (left, right) if holds else (right, left)
    elif isinstance(op, (ast.GtE, ast.Gt)):
        yield (right, left) if holds else (left, right)


def literal_value(text: str, scope: _Scope, line: int, constants: Mapping[str, int]) -> int | None:
    """The integer a launch argument's host text is: a literal, a name the launching body assigns a
    literal before the launch, or a module constant that nothing in the body shadows."""
    if re.fullmatch(r"\d+", text):
        return int(text)
    if not re.fullmatch(r"[^\W\d]\w*", text):
        return None
    value = _assignments(scope, text, line)
    if isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return value.value
    if scope.function is not None and (scope.bindings(text) or text in parameter_names(scope.function)):
        return None  # the function's own name, not the module's
    return constants.get(text)


def _is_test(node: ast.expr) -> bool:
    """A comparison, a boolean combination or a negation: what an evenness flag can be set to."""
    return isinstance(node, (ast.Compare, ast.BoolOp)) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


# A block size rounded up from a size, as the host spells it (squashed): `next_power_of_2(n)`.
NEXT_POW2 = re.compile(r"next_power_of_2\((.+)\)$")


def rounded_blocks(launch: Launch) -> dict[str, set[str]]:
    """Block parameter -> the parameters given the size it is rounded up from, at this launch
    (`BLOCK=triton.next_power_of_2(n)` beside `N=n`, directly or through a host name assigned
    before the launch): the kernel is told the size, and its tile is wider unless the size is a
    power of two."""
    found: dict[str, set[str]] = {}
    for param, text in launch.args.items():
        for value in [text] + [value for value, _ in launch.allocations.get(param, ())]:
            match = NEXT_POW2.search(squash(value))
            if match is None:
                continue
            sizes = {other for other, given in launch.args.items()
                     if other != param and squash(given) == match.group(1)}
            if sizes:
                found.setdefault(param, set()).update(sizes)
    return found


def padded(launch: Launch, axis: Axis, param: str, sizes: frozenset[str]) -> str:
    """"`out_ret` is allocated in whole tiles: `torch.empty(...)` at ops.py:12" when the argument for
    `param` is assigned a value sized by the axis's program count times its block (`blocks * BLOCK`)."""
    counts = {axis.count, squash(axis.text)} - {""}
    blocks = set(sizes) | {axis.size} | {launch.args[s] for s in sizes if s in launch.args}
    products = {f"{c}*{b}" for c in counts for b in blocks} | {f"{b}*{c}" for c in counts for b in blocks}
    file = launch.where.rsplit(":", 1)[0]
    for text, line in launch.allocations.get(param, ()):
        if any(product in text for product in products):
            return f"`{launch.args.get(param, param)}` is allocated in whole tiles at {file}:{line}"
    return ""


# A size rounded up to whole blocks, as the host spells it (squashed): `cdiv(E, B) * B`,
# `B * triton.cdiv(E, B)`, `round_up(E, B)`, `((E + B - 1) // B) * B`; E and B filled in per launch.
_ROUNDED_UP = (r"cdiv\({e},{b}\)\*{b}", r"{b}\*(?:\w+\.)*cdiv\({e},{b}\)",
               r"(?:round_up|roundup|align_up|round_up_to_multiple|next_multiple_of)\({e},{b}\)",
               r"\(?\({e}\+{b}-1\)//{b}\)?\*{b}")


def padded_extent(launch: Launch, extent: str, block: str, param: str) -> str:
    """"`a_pad` is padded to whole tiles of BLOCK_K at ops.py:12" when the argument for the pointer
    `param` is assigned a value (`torch.empty`, `torch.zeros`, `F.pad`, ...) sized by the launch's
    `extent` rounded up to its `block` (`torch.zeros(M, round_up(K, 64))`,
    `F.pad(a, (0, triton.cdiv(K, 64) * 64 - K))`): a tile past the extent stays inside that tensor."""
    extent_text, block_text = launch.args.get(extent, ""), launch.args.get(block, "")
    if not extent_text or not block_text or param not in launch.allocations:
        return ""
    blocks = {block_text} | {value for value, _ in launch.allocations.get(block, ()) if value.isdigit()}
    patterns = [re.compile(pattern.format(e=re.escape(extent_text), b=re.escape(b)))
                for pattern in _ROUNDED_UP for b in blocks]
    file = launch.where.rsplit(":", 1)[0]
    if not launch.allocations[param]:
        return ""
    text, line = launch.allocations[param][-1]  # the value the name holds at the launch
    if any(pattern.search(text) for pattern in patterns):
        return f"`{launch.args.get(param, param)}` is padded to whole tiles of {block_text} at {file}:{line}"
    return ""


def _values(scope: _Scope, name: str, before: int) -> tuple[tuple[str, int], ...]:
    """Every value assigned to `name` in the scope before line `before`, squashed, with its line."""
    return tuple((squash(_text(node.value)), node.lineno) for node in scope.bindings(name)
                 if isinstance(node, ast.Assign) and node.lineno < before)


def _divides(axis: Axis, scope: _Scope, line: int) -> bool:
    """`triton.cdiv(512, bd)` with `bd = 64 if ne else 512`: literal sizes that all divide a literal extent;
    `triton.cdiv(n, s)` with `s = 1`: a size of one divides any extent."""
    if axis.meta_key:
        return False
    try:
        size: ast.expr = ast.parse(axis.size, mode="eval").body
    except SyntaxError:  # squashed text of a conditional expression (`aifbelsec`)
        return False
    if isinstance(size, ast.Name):
        size = _assignments(scope, size.id, line) or size
    options = [size.body, size.orelse] if isinstance(size, ast.IfExp) else [size]
    values = [o.value for o in options if isinstance(o, ast.Constant) and isinstance(o.value, int) and o.value > 0]
    if len(values) != len(options):
        return False
    return all(value == 1 for value in values) or (axis.extent.isdigit()
                                                   and all(int(axis.extent) % value == 0 for value in values))


def _divisor_of_extent(axis: Axis, scope: _Scope, line: int, functions: Mapping[str, ast.FunctionDef]) -> bool:
    """`triton.cdiv(rows * n, d)` where `d` divides `n` by construction: `d = math.gcd(n, 1024)`, or
    `d = f(n, ...)` with `f` a host function of the module that returns only divisors of that argument."""
    if axis.meta_key:
        return False
    try:
        extent, size = ast.parse(axis.extent, mode="eval").body, ast.parse(axis.size, mode="eval").body
    except SyntaxError:
        return False
    if isinstance(size, ast.Name):
        size = _assignments(scope, size.id, line) or size
    divided = _divided_by(size, functions)
    return bool(divided) and any(squash(_text(factor)) in divided for factor in product_factors(extent))


def product_factors(node: ast.expr) -> Iterator[ast.expr]:
    """`a`, `b` and `c` of `a * b * c`; the expression itself otherwise."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        yield from product_factors(node.left)
        yield from product_factors(node.right)
    else:
        yield node


def _divided_by(value: ast.expr, functions: Mapping[str, ast.FunctionDef]) -> set[str]:
    """The host expressions (squashed) that `value` is a divisor of, by construction."""
    if isinstance(value, ast.IfExp):
        return _divided_by(value.body, functions) & _divided_by(value.orelse, functions)
    if not isinstance(value, ast.Call):
        return set()
    dotted = ast_dotted(value.func) or ""
    if dotted in ("math.gcd", "gcd") and len(value.args) >= 2 and not value.keywords:
        return {squash(_text(arg)) for arg in value.args if not isinstance(arg, ast.Starred)}
    function = functions.get(dotted)
    if function is None:
        return set()
    params = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
    bound = {param: arg for param, arg in zip(params, value.args) if not isinstance(arg, ast.Starred)}
    bound |= {k.arg: k.value for k in value.keywords if k.arg is not None}
    return {squash(_text(bound[param])) for param in _divisor_params(function) if param in bound}


def _divisor_params(function: ast.FunctionDef) -> set[str]:
    """The parameters every value `function` returns is a divisor of: each `return` gives `1`,
    `math.gcd(p, ...)`, `p` itself, or a `d` it reaches only where `p % d == 0` holds (an `if` around
    it, or a `while p % d != 0:` loop just before it). A bare `return`, or falling off the end,
    gives None: the grid's division fails, no program runs on a partial tile."""
    params = {arg.arg for arg in (*function.args.posonlyargs, *function.args.args)}
    found: set[str] | None = None
    for returned, tests in _returns(function.body, ()):
        if returned is None:
            continue
        divides = set(params) if isinstance(returned, ast.Constant) and returned.value == 1 else set()
        if isinstance(returned, ast.Name) and returned.id in params:
            divides.add(returned.id)
        if isinstance(returned, ast.Call):
            divides |= _divided_by(returned, {}) & params
        if isinstance(returned, ast.Name):
            for test in tests:
                for mod, zero in multiple_tests(test):
                    assert isinstance(mod, ast.BinOp)
                    if zero and isinstance(mod.right, ast.Name) and mod.right.id == returned.id \
                            and isinstance(mod.left, ast.Name) and mod.left.id in params:
                        divides.add(mod.left.id)
        found = divides if found is None else found & divides
        if not found:
            return set()
    return found or set()


def _returns(statements: list[ast.stmt],
             tests: tuple[ast.expr, ...]) -> Iterator[tuple[ast.expr | None, tuple[ast.expr, ...]]]:
    """Each `return` of a host function's body (not of functions nested in it), with the tests known
    to hold there: the `if` tests around it, and `p % d == 0` after a `while p % d != 0:` loop
    without `break` in the same block."""
    after: tuple[ast.expr, ...] = ()
    for statement in statements:
        if isinstance(statement, ast.Return):
            yield statement.value, tests + after
        elif isinstance(statement, ast.If):
            yield from _returns(statement.body, tests + after + (statement.test,))
            yield from _returns(statement.orelse, tests + after)
        elif isinstance(statement, ast.While):
            yield from _returns(statement.body, tests + after)
            negated = [ast.Compare(mod, [ast.Eq()], [ast.Constant(0)])
                       for mod, zero in multiple_tests(statement.test) if not zero]
            broken = any(isinstance(node, ast.Break) for node in ast.walk(statement))
            if len(negated) == 1 and not broken and not statement.orelse:
                after = (negated[0],)
        elif isinstance(statement, (ast.For, ast.With, ast.Try)):
            for name in ("body", "orelse", "finalbody"):
                yield from _returns(getattr(statement, name, []), tests + after)
            for handler in getattr(statement, "handlers", ()):
                yield from _returns(handler.body, tests + after)
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            after = ()  # `d` may be assigned anew


def _assignments(scope: _Scope, name: str, before: int) -> ast.expr | None:
    """The value of the last `name = ...` (or `def name`'s returned value) in the scope before line `before`."""
    found: ast.expr | None = None
    for node in scope.bindings(name):
        if node.lineno >= before:
            continue
        if isinstance(node, ast.Assign):
            found = node.value
        else:
            returned = next((s.value for s in node.body if isinstance(s, ast.Return) and s.value is not None), None)
            if returned is not None:
                found = ast.Lambda(node.args, returned)
    return found


def _starred_length(node: ast.expr, scope: _Scope, line: int) -> int | None:
    """How many arguments `*node` spreads into: a tuple or list literal, directly or through the name's
    last assignment before the launch, or a conditional between two literals of one length; None if unknown."""
    value = _resolved(node, scope, line)
    options = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
    lengths = {len(o.elts) for o in options if isinstance(o, (ast.Tuple, ast.List))
               and not any(isinstance(e, ast.Starred) for e in o.elts)}
    if len(lengths) != 1 or not all(isinstance(o, (ast.Tuple, ast.List)) for o in options):
        return None
    return lengths.pop()


def _resolved(node: ast.expr, scope: _Scope, line: int) -> ast.expr:
    """A name assigned once before the launch stands for its value (`num_blocks = triton.cdiv(n, B)`)."""
    if isinstance(node, ast.Name):
        value = _assignments(scope, node.id, line)
        if value is not None:
            return value
    return node


def _grid_elements(grid: ast.expr, scope: _Scope, line: int) -> Iterator[tuple[ast.expr, str]]:
    """Each axis's expression, with the name of the grid lambda's meta parameter ("" if none)."""
    meta = ""
    grid = _resolved(grid, scope, line)
    if isinstance(grid, ast.Lambda):
        meta = grid.args.args[0].arg if grid.args.args else ""
        grid = grid.body
    elements = grid.elts if isinstance(grid, (ast.Tuple, ast.List)) else [grid]
    for element in elements:
        yield element, meta


def classify(node: ast.expr, meta: str) -> Axis:
    text = _text(node)
    if isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords:
        dotted = ast_dotted(node.func) or ""
        if dotted == "cdiv" or dotted.endswith(".cdiv"):
            return _divided("partial", text, node.args[0], node.args[1], meta)
    if isinstance(node, ast.Call) and len(node.args) == 1 and ast_dotted(node.func) == "math.ceil" \
            and isinstance(node.args[0], ast.BinOp) and isinstance(node.args[0].op, ast.Div):
        return _divided("partial", text, node.args[0].left, node.args[0].right, meta)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
        extent = _rounded_up(node.left, node.right)
        if extent is not None:
            return _divided("partial", text, extent, node.right, meta)
        return _divided("exact", text, node.left, node.right, meta)
    return Axis("unknown", text)


def _rounded_up(numerator: ast.expr, divisor: ast.expr) -> ast.expr | None:
    """`n` of `(n + B - 1) // B` or `(n + 1023) // 1024`; None for another numerator."""
    size = squash(_text(divisor))
    if not (isinstance(numerator, ast.BinOp) and isinstance(numerator.op, (ast.Add, ast.Sub))):
        return None
    for extent, rest in ((numerator.left, numerator.right), (numerator.right, numerator.left)):
        if isinstance(numerator.op, ast.Sub) and extent is numerator.right:
            continue
        if isinstance(numerator.op, ast.Sub):  # (n + B) - 1
            if squash(_text(rest)) == "1" and isinstance(extent, ast.BinOp) and isinstance(extent.op, ast.Add):
                for inner, other in ((extent.left, extent.right), (extent.right, extent.left)):
                    if squash(_text(other)) == size:
                        return inner
            continue
        rest_text = squash(_text(rest))
        if rest_text in (f"{size}-1", f"({size}-1)", f"(({size})-1)"):
            return extent
        if isinstance(rest, ast.Constant) and isinstance(divisor, ast.Constant) and isinstance(rest.value, int) \
                and isinstance(divisor.value, int) and rest.value == divisor.value - 1:
            return extent
    return None


def _divided(kind: str, text: str, extent: ast.expr, size: ast.expr, meta: str) -> Axis:
    meta_key = ""
    if meta and isinstance(size, ast.Subscript) and isinstance(size.value, ast.Name) and size.value.id == meta \
            and isinstance(size.slice, ast.Constant) and isinstance(size.slice.value, str):
        meta_key = size.slice.value
    return Axis(kind, text, squash(_text(extent)), squash(_text(size)), meta_key)


def multiple_tests(test: ast.expr) -> Iterator[tuple[ast.expr, bool]]:
    """(`x % y` expression, whether the test holds when it is 0) for each conjunct of `test`."""
    conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for conjunct in conjuncts:
        if isinstance(conjunct, ast.Compare) and len(conjunct.ops) == 1 and isinstance(conjunct.left, ast.BinOp) \
                and isinstance(conjunct.left.op, ast.Mod) and squash(_text(conjunct.comparators[0])) == "0":
            if isinstance(conjunct.ops[0], ast.Eq):
                yield conjunct.left, True
            elif isinstance(conjunct.ops[0], ast.NotEq):
                yield conjunct.left, False
        elif isinstance(conjunct, ast.UnaryOp) and isinstance(conjunct.op, ast.Not) \
                and isinstance(conjunct.operand, ast.BinOp) and isinstance(conjunct.operand.op, ast.Mod):
            yield conjunct.operand, True
        elif isinstance(conjunct, ast.BinOp) and isinstance(conjunct.op, ast.Mod):
            yield conjunct, False


def _keeps(test: ast.expr, holds: bool, extent: str, sizes: set[str]) -> bool:
    """Whether `test` being `holds` means `extent % size == 0` for one of `sizes`."""
    conjuncts = list(multiple_tests(test))
    if not holds and len(conjuncts) != 1:
        return False  # `not (a and b)` says nothing of either alone
    for mod, zero in conjuncts:
        assert isinstance(mod, ast.BinOp)
        if zero == holds and _divides_extent(squash(_text(mod.left)), extent) \
                and squash(_text(mod.right)) in sizes:
            return True
    return False


_NUMEL = re.compile(r"(\w+)\.numel\(\)")


def _divides_extent(tested: str, extent: str) -> bool:
    """Whether a multiple of `tested` is a multiple of `extent`: the same text, or one dimension of a
    tensor (`x.shape[-1]`, `x.size(1)`) against its element count (`x.numel()`, their product)."""
    if tested == extent:
        return True
    numel = _NUMEL.fullmatch(extent)
    return numel is not None and re.fullmatch(rf"{numel.group(1)}\.(shape\[[^\]]+\]|size\([^)]+\))", tested) is not None


def _guard(extent: str, sizes: set[str], ifs: tuple[tuple[ast.expr, bool], ...], scope: _Scope,
           line: int) -> tuple[str, int] | None:
    """The host test that keeps `extent` a multiple of the grid's divisor at this launch: (its text, its line)."""
    for test, side in ifs:
        if _keeps(test, side, extent, sizes):
            return f"if {_text(test)}:", test.lineno
    for node in scope.checks:
        if node.lineno >= line:
            continue
        if isinstance(node, ast.Assert) and _keeps(node.test, True, extent, sizes):
            return f"assert {_text(node.test)}", node.lineno
        if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], (ast.Raise, ast.Return)) \
                and _keeps(node.test, False, extent, sizes):
            return f"if {_text(node.test)}: {'raise' if isinstance(node.body[-1], ast.Raise) else 'return'}", \
                node.lineno
    return None
