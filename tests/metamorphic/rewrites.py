"""Semantics-preserving rewrites of Triton kernel sources, each with a map from old lines to new.

A case is a folder of modules (a fixture, its harness, helper modules). A rewrite is a small named
function that takes the parsed modules and returns the rewritten ones, or None when it does not
apply. `apply` runs one and returns the new texts and where every old line went.

Line mapping: before a rewrite runs, every statement (and every compound statement's header and
every decorator) is tagged with a trailing comment `#@F.L` naming its file and line. Tags travel
with the nodes through libcst, so after the rewrite the new position of each old statement can be
read back from the new text. A rewrite that moves an expression out of its statement (an access
into a helper, a flag into an assignment) marks the statement that now holds it with `#@mF.L`,
which wins over the plain tag. Tags add text only at line ends, so positions in the tagged module
are the original positions; they are stripped before the text is returned.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import io
import re
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_TAG = re.compile(r"[ \t]*#@(m?)(\d+)\.(\d+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# --------------------------------------------------------------------------------------------
# Tagging and line maps (Python's ast and tokenize: fast enough to redo for every rewrite)

_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef, ast.Try)


def _header_colons(text: str) -> list[tuple[int, int]]:
    """Positions of every ':' outside brackets (where a compound statement's header ends)."""
    depth = 0
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP:
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif tok.string == ":" and depth == 0:
                out.append(tok.start)
    return out


def _tag_lines(text: str) -> dict[int, tuple[int, int]]:
    """Line holding a node's tag -> (the node's start line, the last line of its span).

    Simple statements are tagged on their last line, compound statements on the line that ends
    their header (their span is that header's first line), decorators on their last line.
    """
    tree = ast.parse(text)
    colons = _header_colons(text)
    out: dict[int, tuple[int, int]] = {}

    def put(line: int, start: int, end: int) -> None:
        if line not in out or start < out[line][0]:
            out[line] = (start, end)

    for node in ast.walk(tree):
        if isinstance(node, _COMPOUND):
            i = bisect.bisect_left(colons, (node.lineno, node.col_offset))
            if i < len(colons):
                put(colons[i][0], node.lineno, node.lineno)
            for decorator in getattr(node, "decorator_list", []):
                end = decorator.end_lineno or decorator.lineno
                put(end, decorator.lineno, end)
        elif isinstance(node, ast.stmt):
            end = node.end_lineno or node.lineno
            put(end, node.lineno, end)
    return out


def tag(text: str, index: int) -> str:
    """`text` with every statement, header and decorator tagged `#@index.line` (line numbers unchanged)."""
    lines = text.splitlines(keepends=True)
    comments = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.COMMENT}
    for line, (start, _) in sorted(_tag_lines(text).items()):
        body = lines[line - 1]
        stripped = body.rstrip("\r\n")
        eol = body[len(stripped):]
        sep = " " if line in comments else "  "
        lines[line - 1] = f"{stripped}{sep}#@{index}.{start}{eol}"
    return "".join(lines)


def _spans(text: str) -> Iterator[tuple[bool, int, int, int, int]]:
    """(moved, old file, old line, new start line, new end line) of every tag in `text`."""
    where = _tag_lines(text)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        line = tok.start[0]
        start, end = where.get(line, (line, line))
        for match in _TAG.finditer(tok.string):
            yield bool(match.group(1)), int(match.group(2)), int(match.group(3)), start, end


@dataclass
class Rewritten:
    """The rewritten case: new file texts and where each old (file, line) went."""

    files: dict[str, str]
    # Old (file, line) -> the new places it can be (more than one when a line's accesses were
    # moved apart, into two helpers say).
    line_map: dict[tuple[str, int], list[tuple[str, int]]] = field(default_factory=dict)

    def map(self, file: str, line: int) -> list[tuple[str, int]]:
        return self.line_map.get((file, line), [])


def _build_map(old: dict[str, str], old_extent: dict[str, dict[int, int]], new: dict[str, str],
               names: Sequence[str]) -> dict[tuple[str, int], list[tuple[str, int]]]:
    result: dict[tuple[str, int], list[tuple[str, int]]] = {}
    moved: dict[tuple[str, int], list[tuple[str, int]]] = {}
    for file, text in new.items():
        for is_moved, index, line, start, end in _spans(text):
            src = names[index]
            old_end = old_extent.get(src, {}).get(line, line)
            if is_moved:  # anywhere in the statement that now holds it
                moved.setdefault((src, line), []).extend((file, n) for n in range(start, end + 1))
                continue
            same_shape = (old_end - line) == (end - start)
            for offset in range(old_end - line + 1):
                result.setdefault((src, line + offset), [(file, start + (offset if same_shape else 0))])
    result.update(moved)
    # Lines no tag covers (inside a decorator's arguments that moved, say): an identical line
    # that is unique in the old file and in the new files.
    new_lines: dict[str, list[tuple[str, int]]] = {}
    for file, text in new.items():
        for number, line in enumerate(_strip(text).splitlines(), 1):
            new_lines.setdefault(line.strip(), []).append((file, number))
    for file, text in old.items():
        counts: dict[str, int] = {}
        for line in text.splitlines():
            counts[line.strip()] = counts.get(line.strip(), 0) + 1
        for number, line in enumerate(text.splitlines(), 1):
            key = line.strip()
            if (file, number) in result or not key or counts[key] != 1:
                continue
            if len(new_lines.get(key, [])) == 1:
                result[(file, number)] = [new_lines[key][0]]
    return result


def _strip(text: str) -> str:
    return _TAG.sub("", text)


# --------------------------------------------------------------------------------------------
# What a rewrite sees


class Context:
    """A case parsed once and handed to every rewrite: tagged modules by file name."""

    def __init__(self, files: dict[str, str], main: str) -> None:
        self.files = files
        self.main = main
        self.names = sorted(files)
        self.tagged = {name: tag(files[name], i) for i, name in enumerate(self.names)}
        self.modules = {name: cst.parse_module(text) for name, text in self.tagged.items()}
        self.extent = {name: {start: end for start, end in _tag_lines(text).values()}
                       for name, text in files.items()}
        self.identifiers = set(_IDENT.findall("\n".join(files.values()))) | {
            n.rsplit(".", 1)[0] for n in self.names}
        self._wrappers: dict[str, MetadataWrapper] = {}

    def wrapper(self, file: str) -> MetadataWrapper:
        """The module with positions, for rewrites that need an expression's line."""
        if file not in self._wrappers:
            self._wrappers[file] = MetadataWrapper(self.modules[file], unsafe_skip_copy=True)
        return self._wrappers[file]

    def index(self, file: str) -> int:
        return self.names.index(file)


Rewrite = Callable[[Context], "dict[str, cst.Module] | None"]


def apply(rewrite: Rewrite, files: dict[str, str] | Context, main: str | None = None) -> Rewritten | None:
    """Run `rewrite` over a case (`files`: name -> text, `main`: the fixture; or a prepared Context)."""
    ctx = files if isinstance(files, Context) else Context(files, main or "")
    result = rewrite(ctx)
    if result is None:
        return None
    new_tagged = {name: module.code for name, module in result.items()}
    for name, text in ctx.tagged.items():
        new_tagged.setdefault(name, text)
    line_map = _build_map(ctx.files, ctx.extent, new_tagged, ctx.names)
    out = {name: _strip(text) for name, text in new_tagged.items()}
    if all(out.get(name) == ctx.files.get(name) for name in set(out) | set(ctx.files)):
        return None  # nothing changed: the rewrite did not apply
    return Rewritten(out, line_map)


# --------------------------------------------------------------------------------------------
# Reading modules


@dataclass
class Aliases:
    """How a module spells triton, triton.language and triton.jit."""

    triton: set[str] = field(default_factory=set)
    language: set[str] = field(default_factory=set)
    jit: set[str] = field(default_factory=set)

    @property
    def tl(self) -> str | None:
        return min(self.language) if self.language else None

    @property
    def triton_name(self) -> str | None:
        return min(self.triton) if self.triton else None


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _statements(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every statement under `node` and the small statements in them, without entering expressions."""
    body = getattr(node, "body", None)
    if isinstance(body, (list, tuple)):
        for child in body:
            yield child
            yield from _statements(child)
    elif isinstance(body, cst.BaseSuite):
        yield from _statements(body)
    for extra in ("orelse", "finalbody"):
        more = getattr(node, extra, None)
        if isinstance(more, cst.CSTNode):
            yield from _statements(more)
    for handler in getattr(node, "handlers", ()):
        yield from _statements(handler)


_ALIASES: dict[int, tuple[cst.Module, Aliases]] = {}


def aliases(module: cst.Module) -> Aliases:
    """How `module` spells triton, triton.language and triton.jit (imports at any statement level)."""
    hit = _ALIASES.get(id(module))
    if hit is not None and hit[0] is module:
        return hit[1]
    found = _aliases(module)
    _ALIASES[id(module)] = (module, found)
    return found


def _aliases(module: cst.Module) -> Aliases:
    found = Aliases()
    for node in _statements(module):
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _dotted(alias.name)
                bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None
                if full == "triton":
                    found.triton.add(bound or "triton")
                elif full == "triton.language":
                    if bound:
                        found.language.add(bound)
                    else:
                        found.triton.add("triton")
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            source = _dotted(node.module) if node.module else None
            for alias in node.names:
                name = alias.name.value if isinstance(alias.name, cst.Name) else None
                bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
                if bound is None:
                    continue
                if source == "triton" and name == "language":
                    found.language.add(bound)
                elif source == "triton" and name == "jit":
                    found.jit.add(bound)
                elif source != "triton" and name == "tl":  # a re-export of triton.language
                    found.language.add(bound)
                elif source != "triton" and name == "triton":
                    found.triton.add(bound)
    return found


_FIELDS: dict[type, tuple[str, ...]] = {}


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under `node` (itself included), read off the dataclass fields (a libcst visitor
    pass is ten times slower, and the suite walks every fixture under every rewrite)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        kind = type(current)
        names = _FIELDS.get(kind)
        if names is None:
            names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(current))
        for name in names:
            value = getattr(current, name)
            if _is_node(type(value)):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(v for v in reversed(value) if _is_node(type(v)))


_NODE_TYPES: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    # isinstance against libcst's abstract base classes is slow; the answer per type is cached.
    known = _NODE_TYPES.get(kind)
    if known is None:
        known = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return known


def is_jit(decorator: cst.Decorator, names: Aliases) -> bool:
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    dotted = _dotted(expr)
    if dotted is None:
        return False
    if dotted in names.jit:
        return True
    base, _, attr = dotted.rpartition(".")
    return attr == "jit" and base in names.triton


def jit_functions(module: cst.Module) -> list[cst.FunctionDef]:
    names = aliases(module)
    return [n for n in _statements(module) if isinstance(n, cst.FunctionDef)
            and any(is_jit(d, names) for d in n.decorators)]


def all_names(ctx: Context) -> set[str]:
    """Every identifier-like word of the case's texts (a superset of its names)."""
    return set(ctx.identifiers)


class Fresh:
    """New identifiers that no module of the case uses."""

    def __init__(self, taken: set[str], stem: str = "v") -> None:
        self.taken = set(taken)
        self.stem = stem
        self.count = 0

    def __call__(self, stem: str | None = None) -> str:
        while True:
            name = f"{stem or self.stem}{self.count}"
            self.count += 1
            if name not in self.taken:
                self.taken.add(name)
                return name


def paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` parenthesised unless it is atomic."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Integer, cst.Float, cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


def code_of(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def assigned_names(node: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    for n in _walk(node):
        targets: list[cst.BaseExpression] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [n.target]
        for t in targets:
            out.update(x.value for x in _walk(t) if isinstance(x, cst.Name))
    return out


def used_names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in _walk(node) if isinstance(n, cst.Name)}


def moved_tag(ctx: Context, file: str, line: int) -> str:
    return f"#@m{ctx.index(file)}.{line}"


def with_comment(statement: cst.SimpleStatementLine, comment: str) -> cst.SimpleStatementLine:
    ws = statement.trailing_whitespace
    text = f"{ws.comment.value} {comment}" if ws.comment else comment
    return statement.with_changes(trailing_whitespace=ws.with_changes(
        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text)))


class _InJit(cst.CSTTransformer):
    """A transformer that knows when it is inside a `@triton.jit` function."""

    def __init__(self, module: cst.Module, fresh: Fresh) -> None:
        super().__init__()
        self.names = aliases(module)
        self.fresh = fresh
        self.depth = 0
        self.changed = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if any(is_jit(d, self.names) for d in node.decorators):
            self.depth += 1
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.BaseStatement:
        if any(is_jit(d, self.names) for d in original.decorators):
            self.depth -= 1
        return updated



def _each_module(ctx: Context, make: Callable[[cst.Module, Fresh], _InJit],
                 only_main: bool = True, needle: str = "") -> dict[str, cst.Module] | None:
    """Runs the transformer `make` builds over the case's modules (the fixture's only, by default).

    A module whose text lacks `needle` is skipped unread: a transform pass is the costly part of
    the suite, and most rewrites apply to few fixtures.
    """
    fresh = Fresh(all_names(ctx))
    out: dict[str, cst.Module] = {}
    for name, module in ctx.modules.items():
        if (only_main and name != ctx.main) or needle not in ctx.files[name]:
            continue
        transformer = make(module, fresh)
        new = module.visit(transformer)
        if transformer.changed:
            out[name] = new
    return out or None


# --------------------------------------------------------------------------------------------
# Loops


@dataclass
class _Range:
    start: cst.BaseExpression
    stop: cst.BaseExpression
    step: cst.BaseExpression | None  # None: 1

    @property
    def start_is_zero(self) -> bool:
        return isinstance(self.start, cst.Integer) and self.start.evaluated_value == 0


def _range_of(loop: cst.For, builtins_only: bool = True) -> _Range | None:
    """The bounds of `for name in range(...)` with a step that is not negative, else None."""
    if loop.orelse is not None or not isinstance(loop.target, cst.Name) or loop.asynchronous:
        return None
    call = loop.iter
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range"):
        return None
    if any(a.keyword or a.star for a in call.args) or not 1 <= len(call.args) <= 3:
        return None
    args = [a.value for a in call.args]
    if len(args) == 1:
        return _Range(cst.Integer("0"), args[0], None)
    step = args[2] if len(args) == 3 else None
    if step is not None and (isinstance(step, cst.UnaryOperation) or
                             (isinstance(step, cst.Integer) and step.evaluated_value <= 0)):
        return None
    if isinstance(step, cst.Integer) and step.evaluated_value == 1:
        step = None
    return _Range(args[0], args[1], step)


def _bounds_fixed(loop: cst.For, bounds: _Range) -> bool:
    """The body assigns none of the names the bounds read (they may then be re-read in the body)."""
    read = used_names(bounds.start) | used_names(bounds.stop) | (used_names(bounds.step) if bounds.step else set())
    return not (read & assigned_names(loop.body))


def _prepend(body: cst.BaseSuite, statements: Sequence[cst.BaseStatement]) -> cst.BaseSuite:
    if isinstance(body, cst.IndentedBlock):
        return body.with_changes(body=[*statements, *body.body])
    assert isinstance(body, cst.SimpleStatementSuite)
    return cst.IndentedBlock(body=[*statements, cst.SimpleStatementLine(body=body.body)],
                             header=body.trailing_whitespace)


class _LoopRewriter(_InJit):
    def leave_For(self, original: cst.For, updated: cst.For) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if not self.depth:
            return updated
        bounds = _range_of(updated)
        if bounds is None:
            return updated
        new = self.rewrite(updated, bounds)
        if new is None:
            return updated
        self.changed += 1
        return new

    def rewrite(self, loop: cst.For, bounds: _Range) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | None:
        raise NotImplementedError


class _Reversed(_LoopRewriter):
    # `for k in range(a, b, s)` visits a, a+s, ... < b; `for r in range(b - a, 0, -s)` with
    # `k = b - r` visits the same k in the same order (r = b - a, b - a - s, ... > 0).
    def rewrite(self, loop: cst.For, bounds: _Range) -> cst.For | None:
        if not _bounds_fixed(loop, bounds):
            return None
        assert isinstance(loop.target, cst.Name)
        r = self.fresh("r")
        top = bounds.stop if bounds.start_is_zero else cst.BinaryOperation(
            paren(bounds.stop), cst.Subtract(), paren(bounds.start))
        step = expr("-1") if bounds.step is None else (
            cst.UnaryOperation(cst.Minus(), paren(bounds.step)))
        new_iter = cst.Call(cst.Name("range"), [cst.Arg(top), cst.Arg(expr("0")), cst.Arg(step)])
        first = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(loop.target)],
                                                    cst.BinaryOperation(paren(bounds.stop), cst.Subtract(),
                                                                        cst.Name(r)))])
        return loop.with_changes(target=cst.Name(r), iter=new_iter, body=_prepend(loop.body, [first]))


class _TileCounted(_LoopRewriter):
    # `for k in range(a, b, s)` -> `for i in range(0, tl.cdiv(b - a, s))` with `k = a + i * s`:
    # cdiv(b - a, s) iterations, the same k in the same order.
    def rewrite(self, loop: cst.For, bounds: _Range) -> cst.For | None:
        tl = self.names.tl
        if bounds.step is None or tl is None or not _bounds_fixed(loop, bounds):
            return None
        assert isinstance(loop.target, cst.Name)
        i = self.fresh("i")
        extent = bounds.stop if bounds.start_is_zero else cst.BinaryOperation(
            paren(bounds.stop), cst.Subtract(), paren(bounds.start))
        count = cst.Call(expr(f"{tl}.cdiv"), [cst.Arg(extent), cst.Arg(bounds.step)])
        new_iter = cst.Call(cst.Name("range"), [cst.Arg(expr("0")), cst.Arg(count)])
        value: cst.BaseExpression = cst.BinaryOperation(cst.Name(i), cst.Multiply(), paren(bounds.step))
        if not bounds.start_is_zero:
            value = cst.BinaryOperation(paren(bounds.start), cst.Add(), value)
        first = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(loop.target)], value)])
        return loop.with_changes(target=cst.Name(i), iter=new_iter, body=_prepend(loop.body, [first]))


class _TlRange(_LoopRewriter):
    # `tl.range` iterates exactly like `range` (its extra arguments only tune pipelining).
    def rewrite(self, loop: cst.For, bounds: _Range) -> cst.For | None:
        tl = self.names.tl
        if tl is None:
            return None
        assert isinstance(loop.iter, cst.Call)
        return loop.with_changes(iter=loop.iter.with_changes(func=expr(f"{tl}.range")))


def _has_continue(body: cst.CSTNode) -> bool:
    """A `continue` or `break` of this loop (not of a loop nested in it)."""
    def walk(node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Continue, cst.Break)):
            return True
        if isinstance(node, (cst.For, cst.While, cst.FunctionDef)):
            return False
        return any(walk(c) for c in node.children)
    return any(walk(c) for c in body.children)


class _While(_LoopRewriter):
    # `for k in range(a, b, s): body` -> `k = a; while k < b: body; k += s` (body without
    # continue/break and not assigning k or the bounds).
    def rewrite(self, loop: cst.For, bounds: _Range) -> cst.FlattenSentinel[cst.BaseStatement] | None:
        assert isinstance(loop.target, cst.Name)
        if (not _bounds_fixed(loop, bounds) or loop.target.value in assigned_names(loop.body)
                or _has_continue(loop.body) or not isinstance(loop.body, cst.IndentedBlock)):
            return None
        k = loop.target.value
        start = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(k))], bounds.start)])
        step = bounds.step or cst.Integer("1")
        bump = cst.SimpleStatementLine([cst.AugAssign(cst.Name(k), cst.AddAssign(), step)])
        body = loop.body.with_changes(body=[*loop.body.body, bump])
        test = cst.Comparison(cst.Name(k), [cst.ComparisonTarget(cst.LessThan(), paren(bounds.stop))])
        new = cst.While(test=test, body=body, leading_lines=[])
        return cst.FlattenSentinel([start.with_changes(leading_lines=loop.leading_lines), new])


def loop_reversed(ctx: Context) -> dict[str, cst.Module] | None:
    """`for k in range(a, b, s)` counted down: `for r in range(b - a, 0, -s): k = b - r`."""
    return _each_module(ctx, _Reversed, needle="range(")


def loop_tile_counted(ctx: Context) -> dict[str, cst.Module] | None:
    """`for k in range(a, b, s)` counted in tiles: `for i in range(0, tl.cdiv(b - a, s)): k = a + i * s`."""
    return _each_module(ctx, _TileCounted, needle="range(")


def loop_tl_range(ctx: Context) -> dict[str, cst.Module] | None:
    """`for k in range(...)` as `for k in tl.range(...)`."""
    return _each_module(ctx, _TlRange, needle="range(")


def loop_while(ctx: Context) -> dict[str, cst.Module] | None:
    """`for k in range(a, b, s)` as `k = a` / `while k < b:` ... `k += s`."""
    return _each_module(ctx, _While, needle="range(")


class _StridedFromTiles(_LoopRewriter):
    # `for k in range(0, cdiv(X, S))` -> `for o in range(0, X, S)` with `k = o // S`: o runs over
    # 0, S, ... < X, cdiv(X, S) values, and o // S is 0, 1, ... in order.
    def rewrite(self, loop: cst.For, bounds: _Range) -> cst.For | None:
        stop = bounds.stop
        if bounds.step is not None or not bounds.start_is_zero or not _bounds_fixed(loop, bounds):
            return None
        if not (isinstance(stop, cst.Call) and (_dotted(stop.func) or "").rpartition(".")[2] == "cdiv"
                and len(stop.args) == 2 and not any(a.keyword or a.star for a in stop.args)):
            return None
        assert isinstance(loop.target, cst.Name)
        extent, step = stop.args[0].value, stop.args[1].value
        o = self.fresh("o")
        new_iter = cst.Call(cst.Name("range"), [cst.Arg(expr("0")), cst.Arg(extent), cst.Arg(step)])
        first = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(loop.target)],
                                                    cst.BinaryOperation(cst.Name(o), cst.FloorDivide(), paren(step)))])
        return loop.with_changes(target=cst.Name(o), iter=new_iter, body=_prepend(loop.body, [first]))


def loop_strided(ctx: Context) -> dict[str, cst.Module] | None:
    """`for k in range(0, cdiv(X, S))` walked in elements: `for o in range(0, X, S): k = o // S`."""
    return _each_module(ctx, _StridedFromTiles, needle="cdiv(")


# --------------------------------------------------------------------------------------------
# Names


_BUILTINS = set(dir(__builtins__)) if isinstance(__builtins__, dict) is False else set(__builtins__)


def _module_bound(module: cst.Module) -> set[str]:
    """Names bound at module level (imports, functions, classes, globals): never renamed."""
    out: set[str] = set()
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            out.add(statement.name.value)
        for node in _walk(statement):
            if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    if alias.asname and isinstance(alias.asname.name, cst.Name):
                        out.add(alias.asname.name.value)
                    else:
                        out.add((_dotted(alias.name) or "").split(".")[0])
        if isinstance(statement, cst.SimpleStatementLine):
            out |= assigned_names(statement)
        if isinstance(statement, (cst.If, cst.Try, cst.With, cst.For)):  # module-level blocks
            out |= assigned_names(statement)
    return out


def _function_names(fn: cst.FunctionDef) -> set[str]:
    params = fn.params
    found = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.add(star.name.value)
    return found | assigned_names(fn.body)


class _Renamer(cst.CSTTransformer):
    def __init__(self, mapping: dict[str, str], names: dict[str, str], callees: set[str]) -> None:
        super().__init__()
        self.mapping = mapping  # keywords and strings
        self.names = names  # identifiers of this module
        self.callees = callees  # functions of the case whose keyword arguments are renamed too

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        return updated.with_changes(value=self.names.get(updated.value, updated.value))

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)  # `x.attr`: only the object is a name

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated if original.keyword is None else updated.with_changes(keyword=original.keyword)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = original.func
        # kernel[grid](...) or kernel.warmup(..., grid=...): a launch, whatever the callee
        launch = isinstance(func, cst.Subscript) or isinstance(func, cst.Attribute) and func.attr.value == "warmup"
        while isinstance(func, cst.Subscript):
            func = func.value
        name = (_dotted(func) or "").rpartition(".")[2]
        if name not in self.callees and not launch:
            return updated
        args = [a.with_changes(keyword=cst.Name(self.mapping.get(a.keyword.value, a.keyword.value)))
                if a.keyword is not None else a for a in updated.args]
        return updated.with_changes(args=args)

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.SimpleString:
        # Parameter names spelled as strings: autotune keys, Config dicts, heuristics `args["K"]`.
        value = original.evaluated_value
        if isinstance(value, str) and value in self.mapping and original.prefix == "":
            quote = original.quote
            return updated.with_changes(value=f"{quote}{self.mapping[value]}{quote}")
        return updated


def rename(ctx: Context) -> dict[str, cst.Module] | None:
    """Every parameter and local of every jit function renamed, consistently, to a meaningless name.

    The same old name gets the same new name everywhere in the case (launch keywords, autotune
    keys and configs, heuristics `args[...]`, the harness), so launches stay correct. Names bound
    at module level (imports, functions, globals) and attributes keep their spelling.
    """
    modules = ctx.modules
    kernels = {name: jit_functions(module) for name, module in modules.items()}
    local: set[str] = set()
    for fns in kernels.values():
        for fn in fns:
            local |= _function_names(fn)
    # Names bound at the top of a module holding kernels are never renamed; those bound at the
    # top of another module (a harness's `BLOCK = 16`) keep their spelling there only.
    bound = {name: _module_bound(module) for name, module in modules.items()}
    keep = set(_BUILTINS).union(*(bound[name] for name, fns in kernels.items() if fns))
    targets = sorted(local - keep)
    if not targets:
        return None
    fresh = Fresh(all_names(ctx), "n")
    mapping = {old: fresh() for old in targets}
    callees = {fn.name.value for fns in kernels.values() for fn in fns}
    # Host functions of the case whose parameters were renamed are called with renamed keywords too.
    for module in modules.values():
        for node in _walk(module):
            if isinstance(node, cst.FunctionDef) and set(_function_names(node)) & set(mapping):
                callees.add(node.name.value)
    out = {}
    for name, module in modules.items():
        names_here = {old: new for old, new in mapping.items() if old not in bound[name]}
        new = module.visit(_Renamer(mapping, names_here, callees))
        if not new.deep_equals(module):
            out[name] = new
    return out or None


# --------------------------------------------------------------------------------------------
# How the kernel is jitted


def _apply_decorators(name: str, decorators: Sequence[cst.Decorator]) -> cst.BaseExpression:
    value: cst.BaseExpression = cst.Name(name)
    for decorator in reversed(decorators):
        value = cst.Call(decorator.decorator, [cst.Arg(value)])
    return value


def _decorator_lines(ctx: Context, decorators: Sequence[cst.Decorator]) -> list[int]:
    positions = ctx.wrapper(ctx.main).resolve(PositionProvider)
    lines: list[int] = []
    for decorator in decorators:
        pos = positions[decorator]
        lines.extend(range(pos.start.line, pos.end.line + 1))
    return lines


def jit_by_assignment(ctx: Context) -> dict[str, cst.Module] | None:
    """`@triton.jit def f` (and the decorators above it) as a plain def followed by `f = triton.jit(f)`."""
    module = ctx.modules[ctx.main]
    names = aliases(module)
    body: list[cst.BaseStatement] = []
    changed = False
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and any(is_jit(d, names) for d in statement.decorators):
            decorators = statement.decorators
            assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(statement.name.value))],
                                                         _apply_decorators(statement.name.value, decorators))])
            # What sat in a decorator (a heuristics lambda) now sits somewhere in the assignment.
            tags = " ".join(moved_tag(ctx, ctx.main, line) for line in _decorator_lines(ctx, decorators))
            if tags:
                assign = with_comment(assign, tags)
            leading = list(decorators[0].leading_lines) if decorators else []
            body.append(statement.with_changes(decorators=[], leading_lines=leading or statement.leading_lines))
            body.append(assign)
            changed = True
        else:
            body.append(statement)
    return {ctx.main: module.with_changes(body=body)} if changed else None


# --------------------------------------------------------------------------------------------
# Accesses moved into jit helpers


def _literal(node: cst.BaseExpression, tl: str) -> bool:
    """A value that can be written inside the helper as it stands (a constant, a tl dtype)."""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("None", "True", "False")
    if isinstance(node, cst.UnaryOperation):
        return _literal(node.expression, tl)
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(_literal(e.value, tl) for e in node.elements if isinstance(e, cst.Element))
    if isinstance(node, cst.Attribute):
        return (_dotted(node) or "").startswith(f"{tl}.")
    return False


class _Mover(_InJit):
    """Replaces every tl.load/tl.store in jit functions by a call to a new one-access jit helper."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module, fresh: Fresh, ctx: Context, file: str) -> None:
        super().__init__(module, fresh)
        self.ctx = ctx
        self.file = file
        self.helpers: list[cst.FunctionDef] = []
        self.jit = None
        if self.names.triton_name:
            self.jit = f"{self.names.triton_name}.jit"
        elif self.names.jit:
            self.jit = min(self.names.jit)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        tl = self.names.tl
        if not self.depth or tl is None or self.jit is None:
            return updated
        kind = _dotted(updated.func)
        if kind not in (f"{tl}.load", f"{tl}.store") or any(a.star for a in updated.args):
            return updated
        params: list[str] = []
        passed: list[cst.Arg] = []
        inner: list[cst.Arg] = []
        for arg in updated.args:
            value = arg.value
            if _literal(value, tl):
                inner.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                continue
            p = self.fresh("p")
            params.append(p)
            passed.append(cst.Arg(value))  # positional: the helper's parameters are in order
            inner.append(arg.with_changes(value=cst.Name(p), comma=cst.MaybeSentinel.DEFAULT))
        name = self.fresh("access")
        call = cst.Call(expr(kind), inner)
        small: cst.BaseSmallStatement = cst.Return(call) if kind.endswith("load") else cst.Expr(call)
        line = self.get_metadata(PositionProvider, original).start.line
        body = with_comment(cst.SimpleStatementLine([small]), moved_tag(self.ctx, self.file, line))
        self.helpers.append(cst.FunctionDef(
            name=cst.Name(name),
            params=cst.Parameters([cst.Param(cst.Name(p)) for p in params]),
            body=cst.IndentedBlock([body]),
            decorators=[cst.Decorator(expr(self.jit))],
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))
        self.changed += 1
        return cst.Call(cst.Name(name), passed)


def _after_imports(module: cst.Module) -> int:
    """Index in module.body after the last top-level import."""
    last = 0
    for i, statement in enumerate(module.body):
        if isinstance(statement, cst.SimpleStatementLine) and any(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
            last = i + 1
    return last


def _move_accesses(ctx: Context, other_module: bool) -> dict[str, cst.Module] | None:
    wrapper = ctx.wrapper(ctx.main)
    fresh = Fresh(all_names(ctx))
    mover = _Mover(ctx.modules[ctx.main], fresh, ctx, ctx.main)
    module = wrapper.visit(mover)
    if not mover.helpers:
        return None
    at = _after_imports(module)
    if not other_module:
        body = [*module.body[:at], *mover.helpers, *module.body[at:]]
        return {ctx.main: module.with_changes(body=body)}
    stem = fresh(ctx.main.rsplit(".", 1)[0] + "_access")
    names = mover.names
    header = [stmt(f"import {names.triton_name or 'triton'}" if names.triton_name in (None, "triton")
                   else f"import triton as {names.triton_name}")]
    if mover.jit and not names.triton_name:
        header = [stmt(f"from triton import jit as {mover.jit}")]
    header.append(stmt(f"import triton.language as {names.tl}"))
    helper_module = cst.Module(body=[*header, *mover.helpers])
    imported = stmt(f"from {stem} import {', '.join(h.name.value for h in mover.helpers)}")
    body = [*module.body[:at], imported, *module.body[at:]]
    return {ctx.main: module.with_changes(body=body), f"{stem}.py": helper_module}


def helper_same_module(ctx: Context) -> dict[str, cst.Module] | None:
    """Every tl.load/tl.store of a kernel moved into its own `@triton.jit` helper in the same module."""
    return _move_accesses(ctx, other_module=False)


def helper_other_module(ctx: Context) -> dict[str, cst.Module] | None:
    """Every tl.load/tl.store moved into its own `@triton.jit` helper in a new module, imported by name."""
    return _move_accesses(ctx, other_module=True)


# --------------------------------------------------------------------------------------------
# Launches: where the evenness flag and the tiles are set


def _kernels_by_name(ctx: Context) -> dict[str, tuple[str, cst.FunctionDef]]:
    found: dict[str, tuple[str, cst.FunctionDef]] = {}
    for file, module in ctx.modules.items():
        for fn in jit_functions(module):
            found.setdefault(fn.name.value, (file, fn))
    return found


def _launch(node: cst.CSTNode, kernels: dict[str, tuple[str, cst.FunctionDef]]) -> str | None:
    """The kernel name when `node` is `kernel[grid](...)` (or `module.kernel[grid](...)`)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript)):
        return None
    name = (_dotted(node.func.value) or "").rpartition(".")[2]
    return name if name in kernels else None


def _statement_launch(statement: cst.SimpleStatementLine, kernels: dict[str, tuple[str, cst.FunctionDef]]
                      ) -> cst.Call | None:
    """The launch a statement makes directly (`k[grid](...)` or `x = k[grid](...)`), else None."""
    if len(statement.body) != 1:
        return None
    small = statement.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    return value if value is not None and _launch(value, kernels) else None


def _predicate(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.Comparison, cst.BooleanOperation)) or (
        isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not))


def _params(fn: cst.FunctionDef) -> list[cst.Param]:
    return [*fn.params.posonly_params, *fn.params.params]


class _Hoist(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, ctx: Context, file: str, fresh: Fresh, kernels: dict[str, tuple[str, cst.FunctionDef]]) -> None:
        super().__init__()
        self.ctx, self.file, self.fresh, self.kernels = ctx, file, fresh, kernels
        self.changed = 0

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
                                  ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        call = _statement_launch(original, self.kernels)
        if call is None:
            return updated
        before: list[cst.BaseStatement] = []
        args = []
        for arg in call.args:
            if arg.keyword is not None and _predicate(arg.value):
                name = self.fresh("flag")
                line = self.get_metadata(PositionProvider, arg.value).start.line
                assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], arg.value)])
                before.append(with_comment(assign, moved_tag(self.ctx, self.file, line)))
                args.append(arg.with_changes(value=cst.Name(name)))
            else:
                args.append(arg)
        if not before:
            return updated
        self.changed += 1
        small = updated.body[0]
        new_call = call.with_changes(args=args)
        small = small.with_changes(value=new_call)
        first = before[0].with_changes(leading_lines=updated.leading_lines)
        return cst.FlattenSentinel([first, *before[1:], updated.with_changes(body=[small], leading_lines=[])])


def flag_name_before_launch(ctx: Context) -> dict[str, cst.Module] | None:
    """A predicate passed at a launch (`EVEN_K=K % BK == 0`) assigned to a name on the line before."""
    kernels = _kernels_by_name(ctx)
    fresh = Fresh(all_names(ctx))
    out = {}
    for file in ctx.names:
        hoist = _Hoist(ctx, file, fresh, kernels)
        new = ctx.wrapper(file).visit(hoist)
        if hoist.changed:
            out[file] = new
    return out or None


def _launches(ctx: Context, kernels: dict[str, tuple[str, cst.FunctionDef]]) -> list[tuple[str, str, cst.Call]]:
    """(file, kernel, call) of every launch of a case kernel."""
    found = []
    for file, module in ctx.modules.items():
        for node in _walk(module):
            name = _launch(node, kernels)
            if name is not None:
                assert isinstance(node, cst.Call)
                found.append((file, name, node))
    return found


def _arguments(fn: cst.FunctionDef, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """Parameter name -> the argument a launch passes for it (None when a `*args` hides them)."""
    params = [p.name.value for p in _params(fn)]
    out: dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if i >= len(params):
                return None
            out[params[i]] = arg.value
        else:
            out[arg.keyword.value] = arg.value
    return out


class _Replace(cst.CSTTransformer):
    def __init__(self, mapping: dict[cst.CSTNode, cst.BaseExpression]) -> None:
        super().__init__()
        self.mapping = mapping

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        return self.mapping.get(original, updated)  # type: ignore[return-value]


def _drop_keywords(call: cst.Call, names: set[str]) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value in names)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def _decorate(ctx: Context, kernel: str, decorator: cst.Decorator, outermost: bool) -> cst.Module:
    module = ctx.modules[ctx.main]
    names = aliases(module)

    class Add(cst.CSTTransformer):
        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            if original.name.value != kernel or not any(is_jit(d, names) for d in original.decorators):
                return updated
            decorators = list(updated.decorators)
            at = 0 if outermost else next(i for i, d in enumerate(decorators) if is_jit(d, names))
            if at == 0 and decorators:
                decorator_ = decorator.with_changes(leading_lines=decorators[0].leading_lines)
                decorators[0] = decorators[0].with_changes(leading_lines=[])
            else:
                decorator_ = decorator
            decorators.insert(at, decorator_)
            return updated.with_changes(decorators=decorators)

    return module.visit(Add())


def _one_launch(ctx: Context) -> tuple[str, str, cst.Call, cst.FunctionDef] | None:
    """The launch of a main-module kernel that is launched exactly once in the case."""
    kernels = {k: v for k, v in _kernels_by_name(ctx).items() if v[0] == ctx.main}
    launches = _launches(ctx, kernels)
    counts: dict[str, int] = {}
    for _, name, _ in launches:
        counts[name] = counts.get(name, 0) + 1
    for file, name, call in launches:
        if counts[name] == 1:
            return file, name, call, kernels[name][1]
    return None


def flag_by_heuristics(ctx: Context) -> dict[str, cst.Module] | None:
    """A predicate passed at the launch moved into `@triton.heuristics({"FLAG": lambda args: ...})`."""
    found = _one_launch(ctx)
    triton_name = aliases(ctx.modules[ctx.main]).triton_name
    if found is None or triton_name is None:
        return None
    file, kernel, call, fn = found
    passed = _arguments(fn, call)
    if passed is None:
        return None
    by_value = {code_of(v): p for p, v in passed.items() if isinstance(v, cst.Name)}
    for arg in call.args:
        if arg.keyword is None or not _predicate(arg.value):
            continue
        names = [n for n in _walk(arg.value) if isinstance(n, cst.Name)]
        if any(code_of(n) not in by_value for n in names):
            continue
        lam = arg.value.visit(_Replace({n: expr(f'args["{by_value[code_of(n)]}"]') for n in names}))
        line = ctx.wrapper(file).resolve(PositionProvider)[arg.value].start.line
        decorator = cst.Decorator(expr(f'{triton_name}.heuristics({{"{arg.keyword.value}": lambda args: {code_of(lam)}}})'),
                                  trailing_whitespace=cst.TrailingWhitespace(
                                      whitespace=cst.SimpleWhitespace("  "),
                                      comment=cst.Comment(moved_tag(ctx, file, line))))
        out = {ctx.main: _decorate(ctx, kernel, decorator, outermost=False)}
        launcher = out[ctx.main] if file == ctx.main else ctx.modules[file]
        out[file] = launcher.visit(_Replace({call: _drop_keywords(call, {arg.keyword.value})})) \
            if file != ctx.main else _replace_launch(out[ctx.main], call, arg.keyword.value)
        return out
    return None


def _replace_launch(module: cst.Module, call: cst.Call, keyword: str) -> cst.Module:
    # The module was rebuilt by the decorator pass, so the launch is found again by its text.
    text = code_of(call)

    class Drop(cst.CSTTransformer):
        def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
            return _drop_keywords(updated, {keyword}) if code_of(original) == text else updated

    return module.visit(Drop())


def tiles_by_autotune(ctx: Context) -> dict[str, cst.Module] | None:
    """Literal tiles passed at the launch (`BLOCK_K=32`) moved into a one-config `@triton.autotune`."""
    found = _one_launch(ctx)
    triton_name = aliases(ctx.modules[ctx.main]).triton_name
    if found is None or triton_name is None:
        return None
    file, kernel, call, fn = found
    names = aliases(ctx.modules[ctx.main])
    if any(d for d in fn.decorators if (_dotted(d.decorator.func if isinstance(d.decorator, cst.Call)
                                                 else d.decorator) or "").endswith("autotune")):
        return None
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if keywords & {"num_warps", "num_stages", "num_ctas"}:
        return None
    constexpr = {p.name.value for p in _params(fn) if p.annotation is not None and
                 (_dotted(p.annotation.annotation) or "").endswith("constexpr")}
    literal = {a.keyword.value: a.value for a in call.args if a.keyword is not None
               and a.keyword.value in constexpr and isinstance(a.value, cst.Integer)}
    if not literal or names.tl is None:
        return None
    config = ", ".join(f'"{k}": {code_of(v)}' for k, v in literal.items())
    decorator = cst.Decorator(expr(f"{triton_name}.autotune(configs=[{triton_name}.Config({{{config}}})], key=[])"))
    out = {ctx.main: _decorate(ctx, kernel, decorator, outermost=True)}
    if file == ctx.main:
        text = code_of(call)

        class Drop(cst.CSTTransformer):
            def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
                return _drop_keywords(updated, set(literal)) if code_of(original) == text else updated

        out[ctx.main] = out[ctx.main].visit(Drop())
    else:
        out[file] = ctx.modules[file].visit(_Replace({call: _drop_keywords(call, set(literal))}))
    return out


# --------------------------------------------------------------------------------------------
# Raw pointers as block pointers


def _assign_counts(fn: cst.FunctionDef) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in _walk(fn.body):
        targets: list[cst.BaseExpression] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [n.target]
        for t in targets:
            for x in _walk(t):
                if isinstance(x, cst.Name):
                    counts[x.value] = counts.get(x.value, 0) + 1
    return counts


def _single_defs(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Names the function assigns exactly once, by a plain `name = value`, with their values."""
    counts = _assign_counts(fn)
    params = {p.name.value for p in _params(fn)}
    defs: dict[str, cst.BaseExpression] = {}
    for n in _walk(fn.body):
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
            name = n.targets[0].target.value
            if counts.get(name) == 1 and name not in params:
                defs[name] = n.value
    return defs


def _unparen(e: cst.BaseExpression) -> cst.BaseExpression:
    return e.with_changes(lpar=[], rpar=[]) if e.lpar else e


def _terms(e: cst.BaseExpression, op: type) -> list[cst.BaseExpression]:
    e = _unparen(e)
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, op):
        return [*_terms(e.left, op), *_terms(e.right, op)]
    return [e]


@dataclass
class _Tile:
    start: cst.BaseExpression | None  # None: 0
    block: cst.BaseExpression


class _BlockPointers(_InJit):
    """Rewrites `tl.load(P + offs_m[:, None] * s_m + offs_n[None, :] * s_n, mask=..., other=0)`
    (and stores, and the 1-D `P + offs`) into `tl.make_block_ptr` accesses."""

    def __init__(self, module: cst.Module, fresh: Fresh, boundary: bool) -> None:
        super().__init__(module, fresh)
        self.boundary = boundary
        self.defs: list[dict[str, cst.BaseExpression]] = []
        self.params: list[set[str]] = []
        self.fns: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        super().visit_FunctionDef(node)
        self.defs.append(_single_defs(node))
        self.params.append({p.name.value for p in _params(node)})
        self.fns.append(node)
        return True

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.BaseStatement:
        self.defs.pop()
        self.params.pop()
        self.fns.pop()
        return super().leave_FunctionDef(original, updated)

    def _resolve(self, e: cst.BaseExpression) -> cst.BaseExpression:
        e = _unparen(e)
        while isinstance(e, cst.Name) and e.value in self.defs[-1]:
            e = _unparen(self.defs[-1][e.value])
        return e

    def _tile(self, name: str) -> _Tile | None:
        """`start + tl.arange(0, B)` (either order) or `tl.arange(0, B)` assigned once to `name`."""
        tl = self.names.tl
        value = self.defs[-1].get(name)
        if value is None:
            return None
        parts = _terms(value, cst.Add)
        aranges = [p for p in parts if isinstance(p, cst.Call) and _dotted(p.func) == f"{tl}.arange"]
        if len(aranges) != 1 or len(parts) > 2:
            return None
        arange = aranges[0]
        if len(arange.args) != 2 or not (isinstance(arange.args[0].value, cst.Integer)
                                         and arange.args[0].value.evaluated_value == 0):
            return None
        rest = [p for p in parts if p is not arange]
        return _Tile(rest[0] if rest else None, arange.args[1].value)

    @staticmethod
    def _axis(e: cst.BaseExpression) -> tuple[str, int | None] | None:
        """`o` -> (o, None); `o[:, None]` -> (o, 0); `o[None, :]` -> (o, 1)."""
        e = _unparen(e)
        if isinstance(e, cst.Name):
            return e.value, None
        if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Name) and len(e.slice) == 2:
            kinds = ["none" if isinstance(s.slice, cst.Index) and isinstance(s.slice.value, cst.Name)
                     and s.slice.value.value == "None" else "all" if isinstance(s.slice, cst.Slice)
                     and s.slice.lower is None and s.slice.upper is None else "?" for s in e.slice]
            if kinds == ["all", "none"]:
                return e.value.value, 0
            if kinds == ["none", "all"]:
                return e.value.value, 1
        return None

    def _bounds(self, mask: cst.BaseExpression | None) -> dict[tuple[str, int | None], cst.BaseExpression] | None:
        if mask is None:
            return {}
        out = {}
        for term in _terms(self._resolve(mask), cst.BitAnd):
            term = self._resolve(term)
            if not (isinstance(term, cst.Comparison) and len(term.comparisons) == 1
                    and isinstance(term.comparisons[0].operator, cst.LessThan)):
                return None
            axis = self._axis(term.left)
            if axis is None:
                return None
            out[axis] = term.comparisons[0].comparator
        return out

    def _any_bound(self, name: str) -> cst.BaseExpression | None:
        """Some `name... < X` comparison of the function: the extent of the dimension."""
        for n in _walk(self.fns[-1]):
            if (isinstance(n, cst.Comparison) and len(n.comparisons) == 1
                    and isinstance(n.comparisons[0].operator, cst.LessThan)):
                axis = self._axis(n.left)
                if axis is not None and axis[0] == name:
                    return n.comparisons[0].comparator
        return None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        tl = self.names.tl
        if not self.depth or tl is None:
            return updated
        kind = _dotted(updated.func)
        if kind not in (f"{tl}.load", f"{tl}.store") or any(a.star for a in updated.args):
            return updated
        positional = [a.value for a in updated.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in updated.args if a.keyword is not None}
        store = kind.endswith("store")
        if len(positional) != (2 if store else 1) or set(keywords) - {"mask", "other"}:
            return updated
        other = keywords.get("other")
        if other is not None and not (isinstance(other, (cst.Integer, cst.Float)) and other.evaluated_value == 0):
            return updated
        terms = _terms(self._resolve(positional[0]), cst.Add)
        bases = [t for t in terms if isinstance(t, cst.Name) and t.value in self.params[-1]]
        if len(bases) != 1:
            return updated
        dims: dict[int | None, tuple[str, cst.BaseExpression]] = {}
        for term in terms:
            if term is bases[0]:
                continue
            factors = _terms(term, cst.Multiply)
            found = [(f, self._axis(f)) for f in factors]
            axes = [(f, a) for f, a in found if a is not None and self._tile(a[0]) is not None]
            if len(axes) != 1 or len(factors) > 2:
                return updated
            strides = [f for f in factors if f is not axes[0][0]]
            name, axis = axes[0][1]  # type: ignore[misc]
            if axis in dims:
                return updated
            dims[axis] = (name, strides[0] if strides else cst.Integer("1"))
        if set(dims) not in ({None}, {0, 1}):
            return updated
        bounds = self._bounds(keywords.get("mask"))
        if bounds is None:
            return updated
        order = [None] if None in dims else [0, 1]
        if set(bounds) - {(dims[a][0], a) for a in order}:
            return updated
        shape, strides_, offsets, blocks, checks = [], [], [], [], []
        for i, axis in enumerate(order):
            name, stride = dims[axis]
            tile = self._tile(name)
            assert tile is not None
            bound = bounds.get((name, axis)) or self._any_bound(name)
            if bound is None:
                return updated
            shape.append(code_of(bound))
            strides_.append(code_of(stride))
            offsets.append(code_of(tile.start) if tile.start is not None else "0")
            blocks.append(code_of(tile.block))
            if (name, axis) in bounds and self.boundary:
                checks.append(str(i))
        if not self.boundary and bounds:
            return updated  # a mask the block pointer would not mirror
        tup = lambda items: f"({', '.join(items)},)" if len(items) == 1 else f"({', '.join(items)})"
        pointer = (f"{tl}.make_block_ptr({code_of(bases[0])}, shape={tup(shape)}, strides={tup(strides_)}, "
                   f"offsets={tup(offsets)}, block_shape={tup(blocks)}, order={'(0,)' if len(order) == 1 else '(1, 0)'})")
        extra = f", boundary_check={tup(checks)}" if checks else ""
        if checks and not store:
            extra += ', padding_option="zero"'
        value = f", {code_of(positional[1])}" if store else ""
        self.changed += 1
        return expr(f"{kind}({pointer}{value}{extra})")


def block_pointer(ctx: Context) -> dict[str, cst.Module] | None:
    """Raw-pointer tiles as `tl.make_block_ptr` accesses, each mask mirrored by a `boundary_check`."""
    return _each_module(ctx, lambda module, fresh: _BlockPointers(module, fresh, boundary=True), needle="arange(")


def block_pointer_unmasked(ctx: Context) -> dict[str, cst.Module] | None:
    """Unmasked raw-pointer tiles as `tl.make_block_ptr` accesses without `boundary_check`."""
    return _each_module(ctx, lambda module, fresh: _BlockPointers(module, fresh, boundary=False), needle="arange(")
