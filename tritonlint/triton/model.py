"""The shared model of one jit function: definitions, accesses, loops, evenness flags, tail hazards.

Everything the rules ask lives here once. The model answers four questions:

* what a pointer walks: the `tl.arange` offsets in it (one tiled dimension each), and the loop
  that advances it a tile per iteration;
* which dimensions an access's mask bounds, on a given path;
* which conditions guarantee even tiles (evenness flags), learnt from how the kernel uses them:
  a condition that switches a mask on or off, or picks a masked twin of an unmasked access;
* which accesses can run on a partial tail tile without a bound on that dimension.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from tritonlint.triton.locations import Locator, Span
from tritonlint.triton.names import ImportMap, code_of, dotted, language_member
from tritonlint.triton.paths import EMPTY, ConditionReader, Literal, Path, compatible
from tritonlint.triton.tree import (
    IS_EXPRESSION,
    TypeTest,
    child_nodes,
    expressions_in,
    names_in,
    terms,
)

LOOP_PREFIX = "loop:"
# The program id is a tile index like a loop's: offsets built from it are tiled. Spelled as a
# loop key so everything that separates offsets from loops treats it as a loop.
PROGRAM = LOOP_PREFIX + "program_id"
# tl calls whose result carries the tile offsets of their first argument unchanged.
_PASS_FIRST = {"multiple_of", "max_contiguous", "max_constancy", "broadcast_to", "reshape", "view",
               "expand_dims", "permute", "trans", "ravel", "advance", "cast"}
# tl calls whose result holds data or scalars, never tile offsets.
_NO_OFFSETS = {"load", "num_programs", "full", "zeros", "ones", "zeros_like", "full_like",
               "sum", "max", "min", "argmax", "argmin", "reduce", "atomic_add", "atomic_max",
               "atomic_min", "atomic_cas", "atomic_xchg", "atomic_and", "atomic_or", "rand", "randn",
               "dot", "dot_scaled", "make_tensor_descriptor", "load_tensor_descriptor"}
# Clamping calls: an offset passed through them stays inside the bound.
_CLAMPS = {"minimum", "maximum", "clamp"}
_RANGE_CALLS = {"range", "static_range"}
_EVEN_NAME = re.compile(r"^(IS_)?(EVEN|DIVISIBLE|ALIGNED|NO_MASK|NO_TAIL)(_[A-Z0-9_]+)?$|_(DIVISIBLE|EVEN)$")
# Nodes that hold statements (the walk for constexpr aliases looks inside them, not into expressions).
_IS_STATEMENT_PART = TypeTest(cst.BaseSuite, cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.Else,
                              cst.ExceptHandler, cst.Finally)


@dataclass(eq=False)
class Loop:
    node: cst.For | cst.While = field(repr=False)
    key: str
    targets: frozenset[str]
    tiles: str  # "partial" (the last tile can be partial), "full" (`K // BLOCK_K` bound) or "unknown"
    text: str  # the range expression, for messages


@dataclass(eq=False)
class Def:
    """One assignment to a local name (a parameter counts as the first)."""

    name: str
    value: cst.BaseExpression | None = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]
    kind: str  # "param", "assign", "advance" (x += ... or x = f(x, ...) in a loop), "for"
    constexpr: bool = False


@dataclass(eq=False)
class Access:
    """A `tl.load` or `tl.store` call."""

    kind: str  # "load" or "store"
    call: cst.Call = field(repr=False)
    pointer: cst.BaseExpression = field(repr=False)
    mask: cst.BaseExpression | None = field(repr=False)
    boundary_check: cst.BaseExpression | None = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]


@dataclass(eq=False)
class HelperCall:
    """A call `helper(...)` in the kernel; the engine matches it to the helper's model."""

    name: str
    call: cst.Call = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]


@dataclass(frozen=True)
class Walk:
    """A tiled dimension an access's pointer walks: an offset variable, the loop advancing it, or both."""

    dim: str | None
    loop: Loop | None

    @property
    def keys(self) -> frozenset[str]:
        keys = {self.dim} if self.dim else set()
        if self.loop is not None:
            keys.add(self.loop.key)
        return frozenset(keys)


@dataclass(frozen=True)
class Flag:
    """`atom` being `even` guarantees full tiles along `dims`."""

    atom: str
    even: bool
    dims: frozenset[str]
    source: str  # "usage", "heuristics" or "name"


@dataclass(frozen=True)
class TailHazard:
    """An access that can run on a partial tile of `walk` without a mask bounding it."""

    access: Access
    walk: Walk
    condition: str  # "reachable when EVEN_K is False", or what makes the tail possible
    evidence: str  # why the kernel expects partial tiles there
    tail: Literal | None = None  # the flag literal of the tail side (EVEN_K is False), when a flag says so
    even: Literal | None = None  # its opposite: the side the fix must leave unmasked
    helper: KernelModel | None = field(default=None, compare=False)  # the jit helper holding the access
    via: str = ""  # how a caller reaches it: "called from kernel K at line N"
    walked: str = ""  # the walk described by the caller (its loops are not the helper's)


@dataclass
class _Block:
    path: Path
    loops: tuple[Loop, ...]


class KernelModel:
    """Built once per jit function; every rule queries it."""

    def __init__(self, module: cst.Module, function: cst.FunctionDef, imports: ImportMap,
                 line_base: int = 0, extra_flags: frozenset[str] = frozenset(), source: str | None = None,
                 locator: Locator | None = None) -> None:
        self.module = module
        self.locator = locator  # positions from the file's ast; None: PositionProvider only
        self.line_base = line_base  # add to a line of `module` to get the file's line
        self.extra_flags = extra_flags  # names the configuration declares to be evenness flags
        self.function = function
        self.imports = imports
        self.defs: dict[str, list[Def]] = {}
        self.accesses: list[Access] = []
        self.calls: list[HelperCall] = []  # calls to plain names: jit helpers among them
        self.helpers: dict[str, KernelModel] = {}  # jit functions of the same file, by name
        self.loops: list[Loop] = []
        self.dim_size: dict[str, str] = {}  # arange key -> its block size
        self.dim_owners: dict[str, list[str]] = {}  # arange key -> variables assigned from it
        self.tile_parts: dict[str, frozenset[str]] = {}  # tile key -> its arange and tile-index keys
        self._tile_spellings: dict[tuple[str, frozenset[str]], str] = {}  # (text, parts) -> tile key
        self.block_rank: dict[str, int] = {}
        # (K, BLOCK_K) from a `tl.static_assert(K % BLOCK_K == 0)` that holds everywhere (top level)
        self.divisible: set[tuple[str, str]] = set()
        self._order = 0
        self._memo: dict[tuple[int, Path, bool], frozenset[str]] = {}
        self._busy: set[tuple[int, Path, bool]] = set()
        self._cycle_cut = False  # set when a definition's dimensions were cut short by a cycle
        self._reading_mask = False  # dims() of a mask looks through masked loads
        self._mask_memo: dict[tuple[Access, Path, bool], frozenset[str] | None] = {}
        self._tautologies_bound = False
        self._any_side = False  # reading a mask as evidence: what it bounds on some path
        self._evidence_memo: dict[Access, frozenset[str] | None] = {}
        self._walk_memo: dict[Access, list[Walk]] = {}
        self._flag_sides: dict[tuple[str, bool], Path] = {}
        self._ones_memo: dict[Path, frozenset[str]] = {}  # path -> block-size names it holds to be 1
        # What reaches a use, remembered once the definitions are complete (None while collecting).
        self._reaching_memo: dict[tuple[str, int, Path, tuple[Loop, ...]], list[Def]] | None = None
        self._chain_memo: dict[tuple[int, int, Path, tuple[Loop, ...]],
                               tuple[cst.BaseExpression, dict[str, list[Def]]]] = {}
        # Facts read from the kernel's source text (printing the tree again would cost as much as
        # parsing it): the integers each name is compared with, the block sizes it spans with
        # `tl.arange(0, BLOCK)`.
        text = source if source is not None else module.code
        constants: dict[str, set[str]] = {}
        for name, value in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\s*==\s*(\d+)(?![\w.])", text):
            constants.setdefault(name, set()).add(value)
        self.reader = ConditionReader(self._constexpr_aliases(), constants)
        self._pointer_names: dict[str, bool] = {}  # local -> built from a pointer parameter
        self._arange_sizes = set(re.findall(r"arange\(\s*0\s*,\s*([A-Za-z_]\w*)", text))
        for param in [*function.params.params, *function.params.kwonly_params]:
            self._define(param.name.value, None, _Block(EMPTY, ()), "param",
                         constexpr=param.annotation is not None and "constexpr" in code_of(param.annotation.annotation))
        self._walk_block(function.body, _Block(EMPTY, ()))
        self._reaching_memo = {}  # the definitions are complete

    # ------------------------------------------------------------------ positions

    @cached_property
    def _positions(self) -> dict[cst.CSTNode, CodeRange]:
        # The fallback when the ast outline cannot place a node: a position pass costs as much as
        # parsing the kernel again.
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        return dict(wrapper.resolve(PositionProvider))

    def span_of(self, node: cst.CSTNode) -> Span:
        """Where a node of this kernel sits in the file. KeyError for a node of another tree."""
        span = self.locator.span(self.function, node) if self.locator is not None else None
        if span is not None:
            return span
        position = self._positions[node]
        return Span(position.start.line + self.line_base, position.start.column,
                    position.end.line + self.line_base, position.end.column)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.span_of(node).line

    # ------------------------------------------------------------------ the walk

    def qualify_tl(self, node: cst.BaseExpression) -> str | None:
        """`load` for `tl.load`, `triton.language.load`, a `from triton.language import load` name..."""
        return language_member(self.imports.qualify(node))

    def _next(self) -> int:
        self._order += 1
        return self._order

    def _define(self, name: str, value: cst.BaseExpression | None, block: _Block, kind: str,
                constexpr: bool = False) -> None:
        self.defs.setdefault(name, []).append(
            Def(name, value, self._next(), block.path, block.loops, kind, constexpr))

    def _constexpr_aliases(self) -> dict[str, cst.BaseExpression]:
        """Locals that restate a flag (`HAS_TAIL: tl.constexpr = not EVEN_K`), assigned exactly once."""
        found: dict[str, list[cst.BaseExpression]] = {}
        pending: list[cst.CSTNode] = [self.function.body]
        while pending:
            node = pending.pop()
            if type(node) is cst.Assign:  # exact types (no ABC check): see tree.TypeTest
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        found.setdefault(target.target.value, []).append(node.value)
            elif type(node) is cst.AnnAssign:
                if isinstance(node.target, cst.Name) and node.value is not None:
                    found.setdefault(node.target.value, []).append(node.value)
            elif _IS_STATEMENT_PART[type(node)] and type(node) is not cst.FunctionDef:
                pending.extend(child for child in child_nodes(node) if not IS_EXPRESSION[type(child)])
        return {name: values[0] for name, values in found.items() if len(values) == 1 and _is_boolean_shape(values[0])}

    def _walk_block(self, body: cst.BaseSuite | Iterable[cst.BaseStatement], block: _Block) -> bool:
        """Walk statements; returns True when the block always ends in `return`."""
        statements: Iterable[cst.CSTNode]
        if isinstance(body, cst.IndentedBlock):
            statements = body.body
        elif isinstance(body, cst.BaseSuite):
            statements = [body]  # `if x: a; b` on one line
        else:
            statements = body
        path = block.path
        for statement in statements:
            current = _Block(path, block.loops)
            if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in statement.body:
                    if isinstance(small, cst.Return):
                        if small.value is not None:
                            self._scan(small.value, current)
                        return True
                    path |= self._small_statement(small, current)
                    current = _Block(path, block.loops)
            elif isinstance(statement, cst.If):
                established, returns = self._if(statement, current)
                if returns:
                    return True
                path |= established
            elif isinstance(statement, cst.For):
                self._for(statement, current)
            elif isinstance(statement, cst.While):
                self._while(statement, current)
            elif isinstance(statement, (cst.With, cst.Try)):
                self._walk_block(statement.body, current)
        return False

    def _small_statement(self, small: cst.BaseSmallStatement, block: _Block) -> Path:
        """Record one simple statement; returns literals it establishes for what follows."""
        if isinstance(small, cst.Assign):
            self._scan(small.value, block)
            for target in small.targets:
                self._assign(target.target, small.value, block)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self._scan(small.value, block)
                constexpr = "constexpr" in code_of(small.annotation.annotation)
                self._assign(small.target, small.value, block, constexpr)
        elif isinstance(small, cst.AugAssign):
            self._scan(small.value, block)
            if isinstance(small.target, cst.Name):
                if isinstance(small.operator, (cst.BitAndAssign, cst.BitOrAssign)):
                    # `mask &= offs < M` is `mask = mask & (offs < M)`: a mask, not an advance.
                    operator: cst.BaseBinaryOp = cst.BitAnd() if isinstance(small.operator, cst.BitAndAssign) else cst.BitOr()
                    combined = cst.BinaryOperation(small.target, operator, small.value.with_changes(
                        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
                    self._define(small.target.value, combined, block, "assign")
                else:
                    # `p += step` is `p = p + step`: the old value flows on (a pointer stays a pointer).
                    kinds: dict[type, type[cst.BaseBinaryOp]] = {
                        cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply}
                    operator = kinds.get(type(small.operator), cst.Add)()
                    combined = cst.BinaryOperation(small.target, operator, small.value.with_changes(
                        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
                    self._define(small.target.value, combined, block, "advance" if block.loops else "assign")
        elif isinstance(small, cst.Expr):
            self._scan(small.value, block)
            value = small.value
            if (isinstance(value, cst.Call) and self.qualify_tl(value.func) == "static_assert"
                    and value.args):
                match = _DIVISIBLE.fullmatch(code_of(value.args[0].value))
                if match and not block.path and not block.loops:
                    self.divisible.add((match.group(1), match.group(2)))
                return self.reader.when_true(value.args[0].value)
        return EMPTY

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression, block: _Block,
                constexpr: bool = False) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, cst.IfExp):
                # `mask = None if EVEN_K else offs < K`: two definitions, one per side.
                for side, literals in self.reader.sides(value):
                    self._define(target.value, side, _Block(block.path | literals, block.loops), "assign", constexpr)
                return
            kind = "assign"
            if block.loops and self._advances_itself(target.value, value):
                kind = "advance"  # `ptrs = ptrs + BLOCK * stride` or `bp = tl.advance(bp, ...)`
            self._define(target.value, value, block, kind, constexpr)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [element.value for element in target.elements]
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(elements):
                for element, item in zip(elements, value.elements):
                    self._assign(element, item.value, block, constexpr)
            else:
                for element in elements:
                    if isinstance(element, cst.Name):
                        self._define(element.value, value, block, "assign", constexpr)

    def _advances_itself(self, name: str, value: cst.BaseExpression) -> bool:
        """`x = x + step` or `x = tl.advance(x, ...)` moves x on; `x = tl.where(x < M, x, 0)` or
        `x = x.to(tl.int64)` only transforms the value it has, and replaces it."""
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)):
            return any(isinstance(side, cst.Name) and side.value == name for side in (value.left, value.right)) \
                or self._advances_itself(name, value.left)
        return isinstance(value, cst.Call) and self.qualify_tl(value.func) == "advance"

    def _if(self, node: cst.If, block: _Block) -> tuple[Path, bool]:
        """Walk both sides; returns what holds after the `if` (early returns) and whether both sides return."""
        self._scan(node.test, block)
        true_side = block.path | self.reader.when_true(node.test)
        false_side = block.path | self.reader.when_false(node.test)
        body_returns = self._walk_block(node.body, _Block(true_side, block.loops))
        else_returns = False
        if isinstance(node.orelse, cst.If):
            _, else_returns = self._if(node.orelse, _Block(false_side, block.loops))
        elif isinstance(node.orelse, cst.Else):
            else_returns = self._walk_block(node.orelse.body, _Block(false_side, block.loops))
        if body_returns and else_returns:
            return EMPTY, True
        if body_returns:
            return self.reader.when_false(node.test), False
        if else_returns:
            return self.reader.when_true(node.test), False
        return EMPTY, False

    def _for(self, node: cst.For, block: _Block) -> None:
        self._scan(node.iter, block)
        targets = frozenset(names_in(node.target))
        loop = Loop(node, f"{LOOP_PREFIX}{len(self.loops)}", targets, self._range_tiles(node.iter), code_of(node.iter))
        self.loops.append(loop)
        inner = _Block(block.path, block.loops + (loop,))
        for name in targets:
            self._define(name, None, inner, "for")
        self._walk_block(node.body, inner)

    def _while(self, node: cst.While, block: _Block) -> None:
        self._scan(node.test, block)
        targets = frozenset(names_in(node.test))
        # `while i < n` steps by whatever the body says; that is no evidence of a partial tile.
        loop = Loop(node, f"{LOOP_PREFIX}{len(self.loops)}", targets, "unknown", code_of(node.test))
        self.loops.append(loop)
        self._walk_block(node.body, _Block(block.path, block.loops + (loop,)))

    def _range_tiles(self, iterable: cst.BaseExpression) -> str:
        """Whether a tile loop's last iteration can cover less than a full tile.

        `range(0, K, BLOCK_K)` and `range(tl.cdiv(K, BLOCK_K))` can ("partial"); `range(K // BLOCK_K)`
        visits full tiles only ("full"); `range(num_tiles)` visits what the caller counted ("unknown").
        """
        if not isinstance(iterable, cst.Call):
            return "unknown"
        name = self.qualify_tl(iterable.func) or dotted(iterable.func)
        if name not in _RANGE_CALLS:
            return "unknown"
        args = _range_args(iterable)
        if not args:
            return "unknown"
        bounds = args[:2] if len(args) >= 2 else args
        texts = [self._expanded_text(bound) for bound in bounds]
        if any("//" in text or re.search(r"(\w+)-\1%", text) or _ROUND_DOWN.search(text) for text in texts):
            return "full"  # `K // BLOCK_K`, `K - K % BLOCK_K`, `prev_multiple_of(K, BLOCK_K)`
        names = {token for text in [code_of(iterable)] + texts for token in re.findall(r"\w+", text)}
        if any(total in names and block in names for total, block in self.divisible):
            return "full"  # after `tl.static_assert(K % BLOCK_K == 0)`
        if len(args) >= 3:
            step = code_of(args[2])
            if step in ("1", "-1", "+1"):
                return "unknown"
            if self._before_own_tile(args[0], args[1], step):
                return "full"
            # A tile loop steps by a block size (one the kernel spans with `tl.arange(0, BLOCK)`);
            # `range(pid, n, num_programs)` or `range(start_pid, num_tiles, NUM_SMS)` strides over
            # rows or tiles, and its index is no element offset.
            block_step = isinstance(args[2], cst.Integer) or bool(set(names_in(args[2])) & self._arange_sizes)
            return "partial" if block_step and "num_programs" not in step else "unknown"
        if any("cdiv(" in text or re.search(r"-1\)?//", text) for text in texts):
            return "partial"
        return "unknown"

    def _before_own_tile(self, start: cst.BaseExpression, stop: cst.BaseExpression, step: str) -> bool:
        """`range(0, pid * BLOCK, BLOCK)`: the tiles before this program's own, which starts inside
        the tensor (the grid covers it), so every one of them is full."""
        if not (isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.Multiply)):
            return False
        sides = [(stop.left, stop.right), (stop.right, stop.left)]
        factor = next((other for side, other in sides if code_of(side) == step), None)
        if factor is None or not _PROGRAM_ID.fullmatch(self._expanded_text(factor)):
            return False
        return code_of(start) == "0"

    def _expanded_text(self, node: cst.BaseExpression) -> str:
        """Source of an expression with local names replaced by their single definition, one level."""
        text = code_of(node)
        if isinstance(node, cst.Name):
            defs = [d for d in self.defs.get(node.value, []) if d.value is not None]
            if len(defs) == 1 and defs[0].value is not None:
                return code_of(defs[0].value)
        return text

    def _scan(self, expression: cst.BaseExpression, block: _Block) -> None:
        """Find tl.load / tl.store calls in an expression, with the path of any `a if c else b` around them."""
        if type(expression) is cst.IfExp:  # exact types (no ABC check): see tree.TypeTest
            self._scan(expression.test, block)
            for side, literals in self.reader.sides(expression):
                self._scan(side, _Block(block.path | literals, block.loops))
            return
        if type(expression) is cst.Call:
            member = self.qualify_tl(expression.func)
            if member in ("load", "store"):
                self._record_access(member, expression, block)
            elif member is None and type(expression.func) is cst.Name:
                self.calls.append(HelperCall(expression.func.value, expression, self._next(), block.path, block.loops))
        for child in expressions_in(expression):
            self._scan(child, block)

    def _record_access(self, kind: str, call: cst.Call, block: _Block) -> None:
        # Signatures: load(pointer, mask, other, boundary_check, ...), store(pointer, value, mask, boundary_check, ...)
        positional = ["pointer", "mask", "other", "boundary_check"] if kind == "load" else \
            ["pointer", "value", "mask", "boundary_check"]
        args: dict[str, cst.BaseExpression] = {}
        index = 0
        for arg in call.args:
            if arg.keyword is not None:
                args[arg.keyword.value] = arg.value
            elif arg.star == "" and index < len(positional):
                args[positional[index]] = arg.value
                index += 1
        pointer = args.get("pointer")
        if pointer is None:
            return
        mask = args.get("mask")
        if isinstance(mask, cst.Name) and mask.value == "None":
            mask = None
        self.accesses.append(Access(kind, call, pointer, mask, args.get("boundary_check"), self._next(),
                                    block.path, block.loops))

    # ------------------------------------------------------------------ dimensions

    def reaching(self, name: str, order: int, path: Path, loops: tuple[Loop, ...]) -> list[Def]:
        """Definitions of `name` that can reach a use at `order` on `path` (structured code).
        The list returned may be shared: callers must not change it."""
        memo = self._reaching_memo
        if memo is not None:
            key = (name, order, path, loops)
            found = memo.get(key)
            if found is None:
                found = memo[key] = self._reaching(name, order, path, loops)
            return found
        return self._reaching(name, order, path, loops)

    def _reaching(self, name: str, order: int, path: Path, loops: tuple[Loop, ...]) -> list[Def]:
        result: list[Def] = []
        candidates = [d for d in self.defs.get(name, ()) if compatible(d.path, path)]
        for d in reversed(candidates):
            if d.order < order:
                result.append(d)
                if d.kind in ("assign", "param") and d.path <= path and d.loops == loops[:len(d.loops)]:
                    break  # this definition dominates the use: earlier ones are dead
            elif d.kind == "advance" and d.loops and d.loops[-1] in loops:
                result.append(d)  # carried around the loop to the next iteration
        return result

    def dims(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
             owner: str | None = None) -> frozenset[str]:
        """Keys of the tiled dimensions an expression's value varies along (offset names, loop keys)."""
        if type(node) is cst.Name:  # exact types (no ABC check): see tree.TypeTest
            found: set[str] = set()
            for d in self.reaching(node.value, order, path, loops):
                found |= self._def_dims(d, path)
            return frozenset(found)
        if type(node) is cst.Call:
            return self._call_dims(node, order, path, loops, owner)
        if type(node) is cst.BinaryOperation:
            # Only the whole value is named after its variable; its parts are not that dimension.
            left = self.dims(node.left, order, path, loops)
            right = self.dims(node.right, order, path, loops)
            if type(node.operator) is cst.Modulo:
                # `offs % N` wraps into bounds (`channel = index % 3` too): only the loop it may
                # follow remains. A scalar index (`pid % GROUP`) is no offset: it keeps what it
                # depends on.
                if all(key.startswith(LOOP_PREFIX) for key in left):
                    return left
                return frozenset(key for key in left if key.startswith(LOOP_PREFIX) and key != PROGRAM)
            if owner and type(node.operator) in (cst.Add, cst.Subtract) and not self._pointer_sum(node, 0):
                tiled = self._tile_offset(owner, left, right, node) or self._tile_offset(owner, right, left, node)
                if tiled is not None:
                    return tiled
            return left | right
        if type(node) is cst.IfExp:
            return frozenset().union(*(self.dims(side, order, path | literals, loops, owner)
                                       for side, literals in self.reader.sides(node)))
        if type(node) is cst.Subscript or type(node) is cst.Attribute:
            return self.dims(node.value, order, path, loops, owner)
        found = set()
        for child in expressions_in(node):
            found |= self.dims(child, order, path, loops, owner)
        return frozenset(found)

    def _pointer_sum(self, node: cst.BaseExpression, depth: int) -> bool:
        """`x_ptr + n * D + offs`: a pointer (its leftmost term is a pointer parameter, or a local
        built from one), not an offset; pointers are never a dimension of their own."""
        while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
            node = node.left
        if not isinstance(node, cst.Name) or depth > 8:
            return False
        name = node.value
        if name not in self._pointer_names:
            self._pointer_names[name] = False  # a cycle (`p = p + s`) adds nothing
            self._pointer_names[name] = any(
                (d.kind == "param" and not d.constexpr)
                or (d.kind in ("assign", "advance") and d.value is not None and self._pointer_sum(d.value, depth + 1))
                for d in self.defs.get(name, ()))
        return self._pointer_names[name]

    def _tile_offset(self, owner: str, base: frozenset[str], offsets: frozenset[str],
                     node: cst.BaseExpression) -> frozenset[str] | None:
        """`offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)`: a tile base plus block offsets is a
        dimension of its own, named by its variable. `o_t = i_t * BT + o_i` (rows) and `o_i` used
        as columns are then two dimensions, even though they share one `tl.arange`. A second
        variable spelled the same way (`offs_cm` in the epilogue restating `offs_am`) is the same
        dimension, under the first one's name."""
        aranges = [key for key in offsets if not key.startswith(LOOP_PREFIX)]
        if len(aranges) != 1 or not base or any(not key.startswith(LOOP_PREFIX) for key in base):
            return None
        if aranges[0] in self.tile_parts:
            # `g * N + offs_n` over a tile `offs_n`: a row picked for a tile, not a new tile.
            return None
        spelled = self._tile_spellings.setdefault((code_of(node), frozenset(aranges) | base), owner)
        if spelled != owner and spelled in self.tile_parts:
            owner = spelled
        size = self.dim_size.get(aranges[0])
        if size is not None:
            self.dim_size.setdefault(owner, size)
        self.dim_owners.setdefault(owner, [owner])
        self.tile_parts[owner] = frozenset(aranges) | base
        return frozenset({owner}) | base | {key for key in offsets if key.startswith(LOOP_PREFIX)}

    def _def_dims(self, d: Def, path: Path) -> frozenset[str]:
        if d.kind == "for":
            return frozenset(loop.key for loop in d.loops[-1:])
        if d.value is None:
            return frozenset()
        key = (id(d), path, self._reading_mask)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            self._cycle_cut = True  # a loop-carried definition reaching itself: cut the cycle here
            return frozenset()
        self._busy.add(key)
        outer_cut, self._cycle_cut = self._cycle_cut, False
        result = self.dims(d.value, d.order, d.path | path if compatible(d.path, path) else d.path, d.loops, d.name)
        offsets = [key for key in result if not key.startswith(LOOP_PREFIX)]
        if len(offsets) == 1 and d.name not in self.dim_owners.get(offsets[0], ()) and \
                not self._pointer_sum(d.value, 0):
            # `offs_y_n = BLOCK_N * pid_n + tl.arange(0, BLOCK_N)`: the variable names the offsets.
            self.dim_owners.setdefault(offsets[0], []).append(d.name)
        if d.kind == "advance":
            result |= {d.loops[-1].key}
        self._busy.discard(key)
        cut, self._cycle_cut = self._cycle_cut, outer_cut or self._cycle_cut
        # A result computed while a cycle was cut misses what flows in through the cut; it is
        # complete only at the query that started the cycle (the outermost). Keeping the partial
        # one would make every later answer depend on which name happened to be asked first.
        if not cut or not self._busy:
            self._memo[key] = result
        return result

    def _call_dims(self, call: cst.Call, order: int, path: Path, loops: tuple[Loop, ...],
                   owner: str | None) -> frozenset[str]:
        member = self.qualify_tl(call.func)
        args = [arg.value for arg in call.args]
        if member == "arange":
            # Keyed by its text: `tl.arange(0, BLOCK_K)` in a pointer and in a mask is one dimension,
            # whichever variable holds it.
            key = "arange(" + ",".join(code_of(arg) for arg in args) + ")"
            if len(args) >= 2:
                self.dim_size.setdefault(key, code_of(args[1]))
            if owner:
                self.dim_owners.setdefault(key, []).append(owner)
            return frozenset({key})
        if member == "make_block_ptr":
            key = owner or "block_ptr"
            block_shape = _keyword(call, "block_shape", 4)
            rank = len(block_shape.elements) if isinstance(block_shape, (cst.Tuple, cst.List)) else 0
            self.block_rank[key] = rank
            return frozenset(f"{key}[{i}]" for i in range(rank))
        if member == "load" and self._reading_mask:
            # A mask built from data loaded under a mask (`src = tl.load(I + offs_m, mask=offs_m < n,
            # other=-1)`, then `mask=src != -1`) bounds what that load's mask bounds: kernels rely on `other`.
            inner = _keyword(call, "mask", 1)
            return self.dims(inner, order, path, loops) if inner is not None else frozenset()
        if member == "program_id":
            return frozenset({PROGRAM})
        if member in _NO_OFFSETS:
            return frozenset()
        if member in _CLAMPS:
            # Clamped into bounds: no offsets remain, but the loops it moves with do (the bound in
            # `rows < tl.minimum(BLOCK_M, m_size - tile_start)` is the rows left at this tile).
            return frozenset(key for arg in args for key in self.dims(arg, order, path, loops)
                             if key.startswith(LOOP_PREFIX) and key != PROGRAM)
        if member == "where" and len(args) == 3:
            condition = self.dims(args[0], order, path, loops)
            values = self.dims(args[1], order, path, loops, owner) | self.dims(args[2], order, path, loops, owner)
            return values - condition  # `where(offs < N, offs, 0)` clamps offs
        if member in _PASS_FIRST and args:
            return self.dims(args[0], order, path, loops, owner)
        found: set[str] = set()
        if member is None:
            if isinstance(call.func, cst.Attribute):  # a method: `offs.to(tl.int64)` keeps offs
                return self.dims(call.func.value, order, path, loops, owner)
            # A helper's result (`idx = argmax_helper(x)`, often a scalar): its offsets, if any,
            # are built where we do not look; treating it as tiled would be a guess.
            return frozenset(key for arg in args for key in self.dims(arg, order, path, loops)
                             if key.startswith(LOOP_PREFIX))
        for arg in args:
            found |= self.dims(arg, order, path, loops, owner)
        return frozenset(found)

    # ------------------------------------------------------------------ masks

    def mask_dims(self, access: Access, hypothesis: Path = EMPTY, own: bool = False) -> frozenset[str] | None:
        """Dimensions the access's mask bounds on its path; None when the mask cannot be read (trust it).

        With `own`, the mask is judged for the access itself: `o_i < BT` over `tl.arange(0, BT)` is
        always true, but writing it says the author holds that dimension to be whole here. As
        evidence about other accesses such a mask says nothing.
        """
        key = (access, hypothesis, own)  # keyed by the object: a caller's view of a helper access is transient
        if key not in self._mask_memo:
            self._tautologies_bound = own
            try:
                self._mask_memo[key] = self._mask_dims(access, hypothesis)
            finally:
                self._tautologies_bound = False
        return self._mask_memo[key]

    def evidence_dims(self, access: Access) -> frozenset[str] | None:
        """Dimensions the access's mask bounds on some way it can be defined: as evidence that the
        kernel expects partial tiles, `tile_mask = seq_offset < n` under `if TILE != PAGE:` counts
        even though the other side's `tl.full(..., 1)` bounds nothing."""
        if access not in self._evidence_memo:
            self._any_side = True
            try:
                self._evidence_memo[access] = self._mask_dims(access, EMPTY)
            finally:
                self._any_side = False
        return self._evidence_memo[access]

    def _mask_dims(self, access: Access, hypothesis: Path) -> frozenset[str] | None:
        path = self.reader.closure(access.path | hypothesis) if hypothesis else access.path
        if access.boundary_check is not None:
            checked = access.boundary_check
            if not isinstance(checked, (cst.Tuple, cst.List)):
                return None
            indices = {element.value.value for element in checked.elements if isinstance(element.value, cst.Integer)}
            pointer_dims = self.dims(access.pointer, access.order, path, access.loops)
            return frozenset(key for key in pointer_dims
                             if key.endswith("]") and key.rsplit("[", 1)[1][:-1] in indices)
        if access.mask is None:
            return frozenset()
        if self._opaque(access.mask, access.order, path, access.loops, 0):
            return None
        return self.bound(access.mask, access.order, path, access.loops)

    def bound(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...]) -> frozenset[str]:
        """Dimensions a mask expression bounds on every way it can be defined on `path`.

        Unlike `dims`, alternatives intersect: `m = offs_k < K if ... else mask_n` bounds K only on
        one side, so it does not bound K; `a & b` bounds what either bounds, `a | b` what both do.
        """
        self._reading_mask = True
        try:
            return self._bound(node, order, path, loops, 0)
        finally:
            self._reading_mask = False

    def _common(self, sides: list[frozenset[str]]) -> frozenset[str]:
        """Dimensions every alternative bounds. Alternatives that bound the same offset variable
        count as agreeing even when it was rebuilt with another block size on that path
        (`offs_n` over BLOCK_N, or over BLOCK_N // 2 after an activation that halves N)."""
        if len(sides) == 1:
            return sides[0]
        def names(key: str) -> frozenset[str]:
            return frozenset(self.dim_owners.get(key, ())) | {key}
        classes = [frozenset().union(*(names(key) for key in side)) for side in sides]
        return frozenset(key for side in sides for key in side
                         if all(names(key) & other for other in classes))

    def _comparison_bound(self, node: cst.Comparison, order: int, path: Path,
                          loops: tuple[Loop, ...]) -> frozenset[str]:
        """What `offs < bound` bounds: the offsets on the small side, unless the bound is the
        offsets' own block size (`tl.arange(0, D) < D` is always true). `offs >= start` and
        `offs == i` select lanes; they never cut a tile short."""
        if len(node.comparisons) != 1:
            return self.dims(node, order, path, loops)
        ordered = _ordered(node)
        if ordered is None:
            # `src == -1` on data loaded under a mask bounds what that mask bounds (through loads).
            return self.dims(node, order, path, loops)
        small, large = ordered
        small_dims = self.dims(small, order, path, loops)
        large_dims = self.dims(large, order, path, loops)
        if small_dims and not [d for d in small_dims if not d.startswith(LOOP_PREFIX)] and \
                any(not d.startswith(LOOP_PREFIX) for d in large_dims):
            return frozenset()  # `start <= offs`: a lower bound
        bound_text = code_of(large)
        return frozenset(d for d in small_dims | large_dims
                         if d.startswith(LOOP_PREFIX) or self.dim_size.get(d) != bound_text or
                         not _pure_offset(small) or self._tautologies_bound)

    def _bound(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
               depth: int) -> frozenset[str]:
        if depth > 16:
            return frozenset()
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return frozenset()
            reaching = [d for d in self.reaching(node.value, order, path, loops) if d.kind != "advance"]
            if not reaching:
                return self.dims(node, order, path, loops)
            # A mask built under `if BLOCK_M == 1:` need not bound the rows: a one-row tile is never
            # partial (the program exists only for a row inside the tensor).
            sides = [(self._bound(d.value, d.order, d.path | path, d.loops, depth + 1) if d.value is not None
                      else frozenset()) | self._single_element_dims(d.path) for d in reaching]
            return frozenset().union(*sides) if self._any_side else self._common(sides)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            operator = node.operator
            if isinstance(operator, (cst.BitAnd, cst.And)):
                return self._bound(node.left, order, path, loops, depth + 1) | \
                    self._bound(node.right, order, path, loops, depth + 1)
            if isinstance(operator, (cst.BitOr, cst.Or)):
                return self._bound(node.left, order, path, loops, depth + 1) & \
                    self._bound(node.right, order, path, loops, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._bound(node.value, order, path, loops, depth + 1)
        if isinstance(node, cst.IfExp):
            sides = [self._bound(side, order, path | literals, loops, depth + 1)
                     for side, literals in self.reader.sides(node) if compatible(literals, path)]
            if not sides:
                return frozenset()
            return frozenset().union(*sides) if self._any_side else frozenset.intersection(*sides)
        if isinstance(node, cst.Comparison):
            return self._comparison_bound(node, order, path, loops)
        if isinstance(node, cst.Call):
            member = self.qualify_tl(node.func)
            if member in ("full", "zeros", "ones", "full_like", "zeros_like"):
                return frozenset()
            if member in _PASS_FIRST and node.args:
                return self._bound(node.args[0].value, order, path, loops, depth + 1)
            if member is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
                return self._bound(node.func.value, order, path, loops, depth + 1)
        return self.dims(node, order, path, loops)

    def _opaque(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                depth: int) -> bool:
        """A mask that comes from a parameter or a helper's result: we cannot see what it bounds."""
        if depth > 12:
            return True
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return False
            reaching = self.reaching(node.value, order, path, loops)
            if not reaching:
                return False
            return any(d.kind == "param" or (d.value is not None and d.kind != "for" and
                                             self._opaque(d.value, d.order, d.path, d.loops, depth + 1))
                       for d in reaching)
        if isinstance(node, cst.Call):
            member = self.qualify_tl(node.func)
            if member is None:
                if isinstance(node.func, cst.Attribute):  # `mask.to(tl.int1)`
                    return self._opaque(node.func.value, order, path, loops, depth + 1)
                return True
            if member in _PASS_FIRST or member == "where":
                return bool(node.args) and self._opaque(node.args[-1 if member == "where" else 0].value,
                                                        order, path, loops, depth + 1)
            return False
        if isinstance(node, cst.BinaryOperation):
            return self._opaque(node.left, order, path, loops, depth + 1) or \
                self._opaque(node.right, order, path, loops, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self._opaque(node.expression, order, path, loops, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._opaque(node.value, order, path, loops, depth + 1)
        if isinstance(node, cst.IfExp):
            return self._opaque(node.body, order, path, loops, depth + 1) or \
                self._opaque(node.orelse, order, path, loops, depth + 1)
        return isinstance(node, cst.Attribute)

    # ------------------------------------------------------------------ walks

    def walks(self, access: Access) -> list[Walk]:
        """The tiled dimensions the access's pointer walks; empty for scalar accesses."""
        if access not in self._walk_memo:
            self._walk_memo[access] = self._walks(access)
        return self._walk_memo[access]

    def _walks(self, access: Access) -> list[Walk]:
        pointer_dims = self.dims(access.pointer, access.order, access.path, access.loops)
        offsets = sorted(key for key in pointer_dims if not key.startswith(LOOP_PREFIX))
        if not offsets:
            return []
        enclosing = {loop.key: loop for loop in access.loops}
        result: list[Walk] = []
        claimed_loops: set[str] = set()
        chain = self._chain(access.pointer, access)
        for dim in offsets:
            loop = self._loop_along(dim, access, enclosing) or self._loop_by_variable(dim, chain, access)
            if loop is not None:
                claimed_loops.add(loop.key)
            result.append(Walk(dim, loop))
        # A pointer advanced a tile per iteration walks that loop even when no offset name says which.
        advances: dict[str, list[Def]] = {}
        for advance in self._advances(access.pointer, access):
            advances.setdefault(advance.loops[-1].key, []).append(advance)
        for key, defs in advances.items():
            if key in claimed_loops or key not in enclosing:
                continue
            loop = enclosing[key]
            increments = [code_of(d.value) for d in defs if d.value is not None]
            matched = [w for w in result if w.dim and any(self._size_in(w.dim, text) for text in increments)]
            if matched:
                result = [Walk(w.dim, loop) if w in matched and w.loop is None else w for w in result]
            elif any(d.constexpr for advance in defs for name in names_in(advance.value)
                     for d in self.defs.get(name, ())) and any(self._tiled_name(d.name) for d in defs):
                result.append(Walk(None, loop))
        return result

    def _tiled_name(self, name: str) -> bool:
        """Whether `name` carries a tile when a loop advances it: a parameter (a base pointer moves
        whatever is added to it) or a local defined with block offsets. A scalar advanced a tile
        per iteration (`offs_k += BLOCK_K` from `tl.zeros(())`, read as `offs_k // group_k`) only
        touches each tile's first element, which the loop bound keeps in range."""
        return any(d.kind == "param" or any(not key.startswith(LOOP_PREFIX) for key in self._def_dims(d, EMPTY))
                   for d in self.defs.get(name, ()) if d.kind != "advance")

    def _loop_by_variable(self, dim: str, chain: dict[str, list[Def]], access: Access) -> Loop | None:
        """`tl.load(X + start + cols)` in `for start in range(0, N, BLOCK)`: the loop variable itself
        moves the tile, along the offset whose block size the loop steps by."""
        computed: set[str] | None = None
        for loop in reversed(access.loops):
            if not loop.targets & chain.keys():
                continue
            if computed is None:
                computed = self._computed_from(access)
            if loop.targets & computed and self.size_tokens(dim) & set(re.findall(r"\w+", loop.text)):
                return loop
        return None

    def _computed_from(self, access: Access) -> set[str]:
        """Names the pointer is computed from, transitively, not looking into loads: an index read
        from memory (`page = tl.load(block_table + i // PAGE)`) is data; the loop that picks the
        page does not move the tile inside it."""
        return set(self._build_chain(access.pointer, access.order, access.path, access.loops, self._is_load))

    def _is_load(self, node: cst.CSTNode) -> bool:
        return type(node) is cst.Call and self.qualify_tl(node.func) == "load"

    def size_tokens(self, dim: str) -> set[str]:
        """Names in a dimension's block size, with constexpr locals expanded once
        (`GROUPS = BLOCK_K // GROUP_K` makes `tl.arange(0, GROUPS)` a BLOCK_K dimension too)."""
        size = self.dim_size.get(dim, "")
        tokens = {token for token in re.findall(r"[A-Za-z_]\w*", size)}
        for token in list(tokens):
            defs = [d for d in self.defs.get(token, ()) if d.value is not None]
            if len(defs) == 1 and defs[0].value is not None:
                tokens |= set(re.findall(r"[A-Za-z_]\w*", code_of(defs[0].value)))
        return tokens

    def _size_in(self, dim: str, text: str) -> bool:
        size = self.dim_size.get(dim)
        if dim.endswith("]"):  # block pointer dimension: tl.advance(bp, (0, BLOCK_K)) names the index
            return False
        return size is not None and re.search(rf"(?<![\w.]){re.escape(size)}(?!\w)", text) is not None

    def _loop_along(self, dim: str, access: Access, enclosing: dict[str, Loop]) -> Loop | None:
        """The enclosing loop whose iterations move this offset: a name the pointer is built from
        combines the offset with the loop (`cols = kb * BLOCK_K + offs_k`, `offs_k += BLOCK_K`)."""
        if dim.endswith("]"):
            return self._block_loop(dim, access, enclosing)
        moving: set[str] = set()
        sources: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...], frozenset[str] | None]] = [
            (d.value, d.order, d.path, d.loops, self._def_dims(d, EMPTY))
            for defs in self._chain(access.pointer, access).values() for d in defs if d.value is not None]
        if not isinstance(access.pointer, cst.Name):  # (a name's definitions are in the chain)
            # The pointer expression itself: `A + (k_in_tile + rk[None, :]) * stride` in the call.
            # Unlike a definition, it never names a tile: `W + cols * 5 + i` steps by elements.
            sources.append((access.pointer, access.order, access.path, access.loops, None))
        for value, order, path, loops, keys in sources:
            if keys is not None and dim not in keys:
                continue
            if keys is None or _offset_count(keys) > 1:
                # A pointer over several dimensions (`X + rows[:, None] * s + cols[None, :]`):
                # a loop moves `dim` only if it shares a term with it, not with another offset.
                # A name over several dimensions is split where it is defined (it is in the chain).
                shared = [self.dims(term, order, path, loops) for term in terms(value)]
                keys = frozenset().union(*(term_keys for term, term_keys in zip(terms(value), shared)
                                           if dim in term_keys
                                           and not (isinstance(term, cst.Name) and _offset_count(term_keys) > 1)))
            moving |= keys & enclosing.keys()
        # The innermost such loop (a set has no order: choosing by position keeps results stable).
        return next((loop for loop in reversed(access.loops) if loop.key in moving), None)

    def _block_loop(self, dim: str, access: Access, enclosing: dict[str, Loop]) -> Loop | None:
        owner, index = dim[:-1].rsplit("[", 1)
        for d in self.defs.get(owner, ()):
            if d.kind != "advance" or not d.loops or d.loops[-1].key not in enclosing:
                continue
            step = _advance_step(d.value, owner, int(index), self.qualify_tl)  # `bp = tl.advance(bp, (0, BK))`
            if step is not None and not (type(step) is cst.Integer and step.value == "0"):
                return d.loops[-1]
        # Advanced in the call itself: `tl.load(gK.advance([0, n_block * BLOCK_N]))` in the loop,
        # or made in the loop at the tile's place: `tl.make_block_ptr(..., offsets=(start_n, 0))`.
        placed: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]] = []
        step = _advance_step(access.pointer, owner, int(index), self.qualify_tl)
        if step is not None:
            placed.append((step, access.order, access.path, access.loops))
        for d in self.reaching(owner, access.order, access.path, access.loops):
            if d.kind == "assign" and isinstance(d.value, cst.Call) and d.loops and \
                    self.qualify_tl(d.value.func) == "make_block_ptr":
                offsets = _keyword(d.value, "offsets", 3)
                if isinstance(offsets, (cst.Tuple, cst.List)) and int(index) < len(offsets.elements):
                    placed.append((offsets.elements[int(index)].value, d.order, d.path, d.loops))
        moving: set[str] = set()
        for step, order, path, loops in placed:
            moving |= self.dims(step, order, path, loops) & enclosing.keys()
        return next((loop for loop in reversed(access.loops) if loop.key in moving), None)

    def _chain(self, pointer: cst.BaseExpression, access: Access) -> dict[str, list[Def]]:
        """Names a pointer is built from, transitively, with the definitions that reach it."""
        key = (id(pointer), access.order, access.path, access.loops)
        memo = self._chain_memo.get(key)
        if memo is not None and memo[0] is pointer:  # the same node, not a new one at a reused id
            return memo[1]
        chain = self._build_chain(pointer, access.order, access.path, access.loops)
        self._chain_memo[key] = (pointer, chain)
        return chain

    def _build_chain(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                     skip: Callable[[cst.CSTNode], bool] | None = None) -> dict[str, list[Def]]:
        """Names `node` is computed from at that place, transitively through their assignments,
        with the definitions that reach each; not looking inside what `skip` picks."""
        chain: dict[str, list[Def]] = {}
        pending = [(name, order, path, loops) for name in names_in(node, skip)]
        while pending and len(chain) < 64:
            name, order, path, loops = pending.pop()
            if name in chain:
                continue
            chain[name] = self.reaching(name, order, path, loops)
            for d in chain[name]:
                if d.kind == "assign" and d.value is not None:
                    pending.extend((inner, d.order, d.path, d.loops) for inner in names_in(d.value, skip))
        return chain

    def _advances(self, pointer: cst.BaseExpression, access: Access) -> list[Def]:
        """Loop advances of the names a pointer is built from (`ptrs += BLOCK_K * stride`)."""
        return [d for defs in self._chain(pointer, access).values() for d in defs
                if d.kind == "advance" and d.loops and d.loops[-1] in access.loops]

    # ------------------------------------------------------------------ flags

    @cached_property
    def flags(self) -> list[Flag]:
        return self._usage_flags() + self._heuristic_flags() + self._name_flags()

    def _usage_flags(self) -> list[Flag]:
        """Conditions that switch a mask off, or pick an unmasked twin of a masked access."""
        groups: dict[str, list[tuple[Path, frozenset[str]]]] = {}
        mask_names: set[str] = set()
        for access in self.accesses:
            group = groups.setdefault("ptr:" + code_of(access.pointer), [])
            if access.mask is not None:
                mask_names.update(self._mask_roots(access.mask))
            if isinstance(access.mask, cst.IfExp):
                # `mask=None if EVEN_K else offs < k`: the switch is written inline, one member a side.
                for side, literals in self.reader.sides(access.mask):
                    path = access.path | literals
                    group.append((path, self.bound(side, access.order, path, access.loops)))
                continue
            bounded = self.mask_dims(access)
            if bounded is not None:
                group.append((access.path, bounded))
        for name in sorted(mask_names):
            for d in self.defs.get(name, ()):
                if d.kind == "param" or d.kind == "for":
                    continue
                bounded = frozenset() if d.value is None else self.bound(d.value, d.order, d.path, d.loops)
                groups.setdefault("mask:" + name, []).append((d.path, bounded))
        found: dict[tuple[str, bool], set[str]] = {}
        for members in groups.values():
            if len(members) < 2:
                continue
            atoms = sorted({lit.atom for path, _ in members for lit in path if self._can_be_flag(lit.atom)})
            for atom in atoms:
                for even in (True, False):
                    even_side = [dims for path, dims in members if Literal(atom, even) in path]
                    tail_side = [dims for path, dims in members if Literal(atom, not even) in path]
                    if not even_side or not tail_side:
                        continue
                    unbounded_when_even = frozenset().union(*tail_side) - frozenset().union(*even_side)
                    if unbounded_when_even:
                        found.setdefault((atom, even), set()).update(unbounded_when_even)
        flags = []
        for (atom, even), dims in found.items():
            named = self._named_dims(atom, frozenset(dims), even)
            if named and not (_EVEN_NAME.search(atom) and even != (not atom.startswith("NO_"))):
                flags.append(Flag(atom, even, named, "usage"))  # a name saying the opposite is a bug, not a flag
        return flags

    def _named_dims(self, atom: str, dims: frozenset[str], even: bool = True) -> frozenset[str]:
        """Narrow a flag's dimensions by its name when the name says which (`EVEN_M` -> the BLOCK_M ones).

        A twin branch often differs in several masks at once (`if EVEN_M: store(p, x) else:
        store(p, x, mask=m & n)`); the name tells which of them the flag vouches for. A compound
        test vouches for what its parts do: on the side where every part holds (`EVEN_M & EVEN_N`
        True) for what any part does; on the side where one of them may (`EVEN_M or EVEN_K`
        True), only for what all of them do.
        """
        parts = self.reader.parts.get(atom)
        if parts is not None:
            vouched = [self._named_dims(part, dims, even) for part in parts]
            if (atom in self.reader.conjunctions) == even:
                return frozenset().union(*vouched)
            return frozenset.intersection(*vouched)
        suffix = set(atom.split("_")[1:]) - {"EVEN", "DIVISIBLE", "ALIGNED", "MASK", "TAIL", "IS", "NO", "HAS"}
        if not suffix or not re.fullmatch(r"[A-Z0-9_]+", atom):
            return dims
        named = frozenset(dim for dim in dims if suffix & self._dim_tokens(dim))
        if named:
            return named
        if any(suffix & self._dim_tokens(dim) for dim in self.dim_size):
            # `DIVISIBLE_N` switching a K mask: the name vouches for N, so the K difference
            # between its branches is a missing mask, not an evenness guarantee.
            return frozenset()
        return dims

    def _dim_tokens(self, dim: str) -> set[str]:
        if dim.startswith(LOOP_PREFIX):
            return self._loop_tokens(dim)
        return {part for token in self.size_tokens(dim) for part in token.split("_")}

    def _loop_tokens(self, key: str) -> set[str]:
        for loop in self.loops:
            if loop.key == key:
                return {part for token in re.findall(r"\w+", loop.text) for part in token.split("_")}
        return set()

    def _mask_roots(self, node: cst.BaseExpression) -> set[str]:
        """Names holding (part of) a mask value: `mask_k` in `mask_k[None, :] & m`, not `K` in `offs < K`."""
        if isinstance(node, cst.Name):
            return {node.value}
        if isinstance(node, cst.Subscript):
            return self._mask_roots(node.value)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)) and \
                isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.And, cst.Or)):
            return self._mask_roots(node.left) | self._mask_roots(node.right)
        if isinstance(node, cst.IfExp):
            return self._mask_roots(node.body) | self._mask_roots(node.orelse)
        if isinstance(node, cst.Call) and node.args and (
                self.qualify_tl(node.func) in _PASS_FIRST
                or (isinstance(node.func, cst.Attribute) and node.func.attr.value == "to")):
            target = node.args[0].value if self.qualify_tl(node.func) in _PASS_FIRST else node.func.value  # type: ignore[attr-defined]
            return self._mask_roots(target)
        return set()

    def _heuristic_flags(self) -> list[Flag]:
        """`@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})`."""
        flags = []
        for decorator in self.function.decorators:
            call = decorator.decorator
            if not (isinstance(call, cst.Call) and (self.imports.qualify(call.func) or "").endswith("heuristics")):
                continue
            table = call.args[0].value if call.args else None
            if not isinstance(table, cst.Dict):
                continue
            for element in table.elements:
                if not (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
                        and isinstance(element.value, cst.Lambda)):
                    continue
                body = element.value.body
                if not (isinstance(body, cst.Comparison) and isinstance(body.left, cst.BinaryOperation)
                        and isinstance(body.left.operator, cst.Modulo) and len(body.comparisons) == 1
                        and code_of(body.comparisons[0].comparator) == "0"):
                    continue
                operator = body.comparisons[0].operator
                even = isinstance(operator, cst.Equal)
                if not even and not isinstance(operator, cst.NotEqual):
                    continue
                block = _string_keys(body.left.right)
                dims = {dim for dim, size in self.dim_size.items() if block & set(re.findall(r"\w+", size))}
                dims |= {loop.key for loop in self.loops if block & set(re.findall(r"\w+", loop.text))}
                flags.append(Flag(str(element.key.evaluated_value), even, frozenset(dims), "heuristics"))
        return flags

    def _name_flags(self) -> list[Flag]:
        """Last hint: a condition named like EVEN_K guards the even side, for suppression only."""
        flags = []
        atoms = {lit.atom for access in self.accesses for lit in access.path}
        for atom in atoms:
            configured = atom in self.extra_flags
            if not configured and not _EVEN_NAME.search(atom):
                continue
            suffix = set(atom.split("_")[1:]) - {"EVEN", "DIVISIBLE", "ALIGNED", "MASK", "TAIL", "IS", "NO"}
            dims = {dim for dim, size in self.dim_size.items()
                    if not suffix or suffix & set(re.split(r"_|\W", size))}
            dims |= {loop.key for loop in self.loops if not suffix or suffix & set(re.split(r"_|\W", loop.text))}
            flags.append(Flag(atom, not atom.startswith("NO_"), frozenset(dims), "config" if configured else "name"))
        return flags

    # ------------------------------------------------------------------ hazards

    def tail_hazards(self, kind: str) -> Iterator[TailHazard]:
        """Each `kind` access ("load" or "store") that can touch a partial tail tile unbounded; one per access.

        Accesses inside the jit helpers this kernel calls (`helpers`, set by the engine) are
        judged at each call site with the caller's offsets and flags.
        """
        for access in self.accesses:
            if access.kind != kind:
                continue
            hazard = self.hazard_of(access)
            if hazard is not None:
                yield hazard
        for site in self.calls:
            helper = self.helpers.get(site.name)
            if helper is None or helper is self:
                continue
            for inner, view in self.inline(site, helper):
                if inner.kind != kind or helper.hazard_of(inner) is not None:
                    continue  # reported in the helper itself already
                if any(helper._on_side(flag.atom, flag.even, inner.path) for flag in helper.flags):
                    continue  # the even side of the helper's own flag (`if EVEN: tl.load(ptrs)`)
                hazard = self.hazard_of(view)
                if hazard is not None:
                    yield dataclasses.replace(hazard, access=inner, helper=helper, walked=self.describe_walk(hazard.walk),
                                              via=f"called from kernel {self.function.name.value} at line {self.line_of(site.call)}")

    def hazards_of(self, access: Access) -> list[TailHazard]:
        """One hazard per dimension the access leaves unbounded (a fix must bound them all)."""
        return list(self._hazards(access))

    def inline(self, site: HelperCall, helper: KernelModel) -> Iterator[tuple[Access, Access]]:
        """The helper's accesses as this caller sees them at `site`: (helper access, caller view).

        Parameters are replaced by the arguments, flags renamed (`EVEN=EVEN_K`) or decided
        (`EVEN=True`). Only accesses built from parameters alone are inlined: a helper local
        would be resolved against the caller's variables of the same name.
        """
        params = [p.name.value for p in helper.function.params.params]
        bound: dict[str, cst.BaseExpression] = {}
        positional = [arg for arg in site.call.args if arg.keyword is None and not arg.star]
        for name, arg in zip(params, positional):
            bound[name] = arg.value
        for arg in site.call.args:
            if arg.keyword is not None and arg.keyword.value in params:
                bound[arg.keyword.value] = arg.value
        for access in helper.accesses:
            names = set(names_in(access.pointer)) | set(names_in(access.mask))
            if not names <= set(bound) | {"tl", "triton"}:
                continue
            path = site.path
            contradicted = False
            for literal in access.path:
                value = bound.get(literal.atom)
                if value is None:
                    continue
                text = code_of(value)
                if text in ("True", "False"):
                    contradicted |= (text == "True") != literal.value
                else:
                    path = path | {Literal(text, literal.value)}
            if contradicted or not compatible(path, site.path):
                continue
            replace = _Substitute(bound)
            pointer = access.pointer.visit(replace)
            mask = access.mask.visit(replace) if access.mask is not None else None
            assert isinstance(pointer, cst.BaseExpression)
            view = Access(access.kind, access.call, pointer, mask if isinstance(mask, cst.BaseExpression) else None,
                          access.boundary_check, site.order, frozenset(path), site.loops)
            yield access, view

    def hazard_of(self, access: Access) -> TailHazard | None:
        """The first tail hazard of one access (also a helper's access seen from a caller), if any."""
        return next(self._hazards(access), None)

    def _hazards(self, access: Access) -> Iterator[TailHazard]:
        walks = self.walks(access)
        if not walks:
            return
        moved_by = self._pointer_loops(access)
        own = self.mask_dims(access, own=True)
        for walk in walks:
            hazard = self._walk_hazard(access, walk, own, moved_by)
            when = self._only_when(access, walk.dim) if hazard is not None and walk.dim is not None else EMPTY
            if when:  # again, with the mask as it reads where this dimension is in the pointer at all
                hazard = self._walk_hazard(access, walk, self.mask_dims(access, when, own=True), moved_by)
            # The full-tile exclusions are asked last: most walks are bounded by a mask already.
            if hazard is not None and not self._full_tiles(access, walk):
                yield hazard

    def _only_when(self, access: Access, dim: str) -> Path:
        """What holds wherever `dim` enters the pointer, when that is one side of a conditional
        expression (`p + (rows[:, None] * s if X_DIM == 2 else 0)`: X_DIM == 2); else nothing."""
        chain = self._chain(access.pointer, access)
        sources = [(access.pointer, access.order, access.path, access.loops)] + [
            (d.value, d.order, d.path, d.loops) for defs in chain.values() for d in defs
            if d.kind == "assign" and d.value is not None]
        found: list[Path] = []
        for value, order, path, loops in sources:
            for term in terms(value):
                if type(term) is cst.Name and term.value in chain:
                    continue  # its definitions are sources of their own
                if dim not in self.dims(term, order, path, loops):
                    continue
                if type(term) is not cst.IfExp:
                    return EMPTY  # the dimension is in the pointer unconditionally
                sides = [literals for side, literals in self.reader.sides(term)
                         if dim in self.dims(side, order, path | literals, loops)]
                if len(sides) != 1:
                    return EMPTY
                found.append(sides[0])
        return found[0] if len(found) == 1 else EMPTY

    def _walk_hazard(self, access: Access, walk: Walk, own: frozenset[str] | None,
                     moved_by: frozenset[str]) -> TailHazard | None:
        """The evidence that this walk can meet a partial tile the access does not bound, if any."""
        keys = walk.keys
        covering = [flag for flag in self.flags if flag.dims & keys]
        if any(self._on_side(flag.atom, flag.even, access.path) for flag in covering):
            return None  # the even side: full tiles guaranteed
        evidence_flags = [flag for flag in covering if flag.source != "name" and self._atom_applies(flag.atom, access)]
        for flag in evidence_flags:
            tail = Literal(flag.atom, not flag.even)
            if not compatible(access.path, self._flag_side(flag.atom, not flag.even)):
                continue  # `FULL_K: tl.constexpr = EVEN_K`: its tail side contradicts `EVEN_K is False`
            # The mask as it reads on the tail side (a mask name may be defined on one side only).
            bounded = self.mask_dims(access, frozenset({tail}), own=True)
            if bounded is not None and not self.covers(bounded, keys, moved_by):
                how = {"usage": "by how the kernel uses it", "heuristics": "by its @triton.heuristics",
                       "config": "by the configuration"}[flag.source]
                return TailHazard(access, walk, f"reachable when {tail.describe()}",
                                  f"{flag.atom} is an evenness flag for this dimension ({how})", tail, tail.negated())
        if evidence_flags or own is None or self.covers(own, keys, moved_by):
            return None  # (a mask we cannot read is trusted)
        sibling = self._masked_sibling(access, keys, walk.loop)
        if sibling is not None and walk.loop is None and walk.dim is not None and walk.dim.startswith("arange(") \
                and not self._runtime_bound(sibling, walk.dim, moved_by):
            # `cols = tl.arange(0, D)` spans a whole constexpr extent; a sibling's `cols < 2 * HALF`
            # selects part of it. Only a bound known at run time (`cols < head_dim`) says the
            # block is padded past the data.
            sibling = None
        if sibling is not None:
            return TailHazard(access, walk, "reachable on every tile, the partial last one included",
                              f"the tl.{sibling.kind} at line {self.line_of(sibling.call)} masks the same dimension")
        if walk.loop is not None and walk.loop.tiles == "partial":
            return TailHazard(access, walk, "reachable on the loop's last iteration",
                              f"the last tile of `for ... in {walk.loop.text}` can be partial")
        return None

    def _full_tiles(self, access: Access, walk: Walk) -> bool:
        """Whether the kernel's own construction keeps every tile of this walk full (or in bounds)."""
        loop, dim = walk.loop, walk.dim
        if loop is not None and loop.tiles == "full":
            return True  # `range(K // BLOCK_K)`: every tile this loop visits is full
        if dim is None:
            return False
        if loop is not None and (self._peeled(loop, dim) or self._split_interior(loop, dim)):
            return True  # the partial tile is another loop's or a peeled access's, which masks it
        if loop is None and dim.startswith("arange(") and self._page_local(access):
            return True  # a program's own scratch page, exactly its block sizes
        if dim.endswith("]") and self._block_spans_shape(access, dim):
            return True  # `shape=(N, D), block_shape=(BLOCK_N, D)`: the block is the whole extent
        if dim in self._single_element_dims(access.path):
            return True  # `if BLOCK_M == 1:` a one-row tile is never partial
        if self._right_aligned(access, dim):
            return True  # the last window is shifted back to end at the bound
        # `tl.static_assert(K % BLOCK_K == 0)`, `if K % BLOCK_K == 0:`: the kernel promises full tiles
        return any(block in self.size_tokens(dim) and total not in self._arange_sizes
                   for total, block in self.divisible | _divisible_on(access.path))

    def _block_spans_shape(self, access: Access, dim: str) -> bool:
        """Whether every block pointer the access can use has this dimension's block size spelled
        as its extent in the tensor (`shape=(k_len, HEAD_DIM)`, `block_shape=(BLOCK_N, HEAD_DIM)`)."""
        owner, index = dim[:-1].rsplit("[", 1)
        made = [d for d in self.reaching(owner, access.order, access.path, access.loops) if d.kind != "advance"]
        if not made:
            return False
        for d in made:
            if not (isinstance(d.value, cst.Call) and self.qualify_tl(d.value.func) == "make_block_ptr"):
                return False
            shape, block = _keyword(d.value, "shape", 1), _keyword(d.value, "block_shape", 4)
            if not (isinstance(shape, (cst.Tuple, cst.List)) and isinstance(block, (cst.Tuple, cst.List))):
                return False
            i = int(index)
            if i >= min(len(shape.elements), len(block.elements)) or \
                    code_of(shape.elements[i].value) != code_of(block.elements[i].value):
                return False
        return True

    def _on_side(self, atom: str, value: bool, path: Path) -> bool:
        """Whether `path` lies on the `value` side of a flag, spelled directly or through the
        constexpr aliases it stands for (`FULL_K` True is `EVEN_K` True)."""
        own = Literal(atom, value)
        if own in path:
            return True
        implied = self._flag_side(atom, value) - {own}
        return bool(implied) and implied <= path

    def _peeled(self, loop: Loop, dim: str) -> bool:
        """The partial tile is handled outside the loop: nothing in the loop masks this dimension,
        but an access before or after it does (a peeled tail, or a reverse sweep that loads the
        partial top tile first). The loop then only visits full tiles."""
        inside = [a for a in self.accesses if loop in a.loops]
        if any(self.covers(self.mask_dims(a) or frozenset(), frozenset({dim, loop.key})) for a in inside):
            return False
        # Outside the loop the tile has no loop part: `rk = start_k + offs_k` in the loop is
        # `rk = last_k + offs_k` after it, the same block offsets, placed where the loop stops
        # (a masked first tile before `range(1, n_tiles)` leaves the loop's last tile partial).
        parts = frozenset(key for key in self.tile_parts.get(dim, ()) if not key.startswith(LOOP_PREFIX))
        stop = self._loop_stop(loop)
        for other in self.accesses:
            if loop in other.loops or not any(w.dim == dim or w.dim in parts for w in self.walks(other)):
                continue
            bounded = self.mask_dims(other) or frozenset()
            if self.covers(bounded, frozenset({dim})) and any(w.dim == dim for w in self.walks(other)):
                return True
            if parts and self.covers(bounded, parts) and stop is not None and \
                    any(re.search(rf"(?<![\w.]){re.escape(stop)}(?!\w)", code_of(d.value))
                        for defs in self._chain(other.pointer, other).values() for d in defs if d.value is not None):
                return True
        return False

    def _flag_side(self, atom: str, value: bool) -> Path:
        """The literals a flag's side stands for, through the kernel's constexpr aliases
        (`FULL_K` True is also `EVEN_K` True); at least the flag's own literal."""
        key = (atom, value)
        if key not in self._flag_sides:
            own = frozenset({Literal(atom, value)})
            try:
                node = cst.parse_expression(atom)
            except Exception:  # noqa: BLE001  (an atom that is not an expression: only itself)
                self._flag_sides[key] = own
            else:
                self._flag_sides[key] = own | (self.reader.when_true(node) if value else self.reader.when_false(node))
        return self._flag_sides[key]

    def _single_element_dims(self, path: Path) -> frozenset[str]:
        """Dimensions whose block size the path holds to be 1 (`if BLOCK_M == 1:`)."""
        ones = self._ones_memo.get(path)
        if ones is None:  # asked for every definition a mask reads: read each path once
            ones = self._ones_memo[path] = frozenset(_block_sizes_one(path))
        if not ones:
            return frozenset()
        return frozenset(key for key in self.dim_size if self.size_tokens(key) & ones)

    def _pointer_loops(self, access: Access) -> frozenset[str]:
        """The loops (and program id) the access's pointer moves with."""
        return frozenset(key for key in self.dims(access.pointer, access.order, access.path, access.loops)
                         if key.startswith(LOOP_PREFIX))

    def _can_be_flag(self, atom: str) -> bool:
        """A compound test can be a flag when one of its parts can (`start + BLOCK > N or
        D != D_PADDED` picks the masked twin for a tile that does not fit or a padded head)."""
        parts = self.reader.parts.get(atom)
        if parts is not None:
            # Parts named as flags (`EVEN_M and EVEN_N`) are flags each, reported by their names.
            return not any(_EVEN_NAME.search(part) for part in parts) and \
                any(self._can_be_flag(part) for part in parts)
        return _can_be_flag(atom)

    def _atom_applies(self, atom: str, access: Access) -> bool:
        """A tile-fits test (`start + BLOCK > N`) speaks of the tile of the loop that moves `start`;
        outside that loop it says nothing."""
        parts = self.reader.parts.get(atom)
        if parts is not None:
            return any(self._atom_applies(part, access) for part in parts if self._can_be_flag(part))
        if not _TILE_FITS.fullmatch(atom):
            return True
        tokens = set(re.findall(r"\w+", atom))
        return any(loop.targets & tokens for loop in access.loops)

    def _right_aligned(self, access: Access, dim: str) -> bool:
        """`tl.load(ptr - left_shift * d, mask=offs >= left_bound)`: the kernel right-aligns its
        last, short window (shifted back so it ends exactly at the bound) and masks the lanes that
        fall before its start. A lower-bound mask on this dimension, on this access or on one in
        the same loop, with no upper bound beside it, is that idiom: the window never runs past
        the end."""
        same = frozenset({dim} | {key for key in self.tile_parts.get(dim, ()) if not key.startswith(LOOP_PREFIX)})
        scope = [access] + ([a for a in self.accesses if access.loops[-1] in a.loops] if access.loops else [])
        if any(self._bounds_offsets(self.mask_dims(a) or frozenset(), same) for a in scope):
            return False  # an upper bound too (`offs >= window_start & offs < seq_len`): not this idiom
        return any(a.mask is not None and self._lower_bounded(a, same) for a in scope)

    def _lower_bounded(self, access: Access, dims: frozenset[str]) -> bool:
        """Whether the access's mask compares one of `dims` from below (`offs >= start`)."""
        return any(self.dims(ordered[1], access.order, access.path, access.loops) & dims
                   for ordered in map(_ordered, self._mask_comparisons(access)) if ordered is not None)

    def _mask_comparisons(self, access: Access) -> Iterator[cst.Comparison]:
        """The single comparisons (`a < b`) an access's mask is built from, through the
        assignments of the names it reads."""
        pending: list[tuple[cst.BaseExpression, int]] = [(access.mask, 0)] if access.mask is not None else []
        while pending:
            node, depth = pending.pop()
            if depth > 8:
                continue
            if isinstance(node, cst.Comparison):
                if len(node.comparisons) == 1:
                    yield node
                continue
            if isinstance(node, cst.Name):
                for d in self.reaching(node.value, access.order, access.path, access.loops):
                    if d.value is not None and d.kind == "assign":
                        pending.append((d.value, depth + 1))
                continue
            pending.extend((child, depth) for child in expressions_in(node))

    def _page_local(self, access: Access) -> bool:
        """`P + pid * (BLOCK_M * BLOCK_N) + rows[:, None] * BLOCK_N + cols[None, :]` with `rows`,
        `cols` bare aranges: each program owns one page of exactly its block sizes (a scratch
        buffer sized by the grid), and block offsets over two or more dimensions stay inside it.
        A row stride that is a block size, not the tensor's, is what tells a page from a tile."""
        pointer_dims = self.dims(access.pointer, access.order, access.path, access.loops)
        offsets = [key for key in pointer_dims if not key.startswith(LOOP_PREFIX)]
        if len(offsets) < 2 or not all(key.startswith("arange(") and key in self.dim_size for key in offsets):
            return False
        sizes = {token for key in offsets for token in re.findall(r"[A-Za-z_]\w*", self.dim_size[key])}
        terms = self._pointer_terms(access.pointer, access.order, access.path, access.loops, 0)
        pages = 0
        for term, order, path, loops in terms:
            term_dims = self.dims(term, order, path, loops)
            if any(not key.startswith(LOOP_PREFIX) for key in term_dims):
                # block offsets: only compile-time sizes may scale them (`rows[:, None] * BLOCK_N`)
                others = set(names_in(term)) - sizes - _NOT_VARIABLES - self._offset_names(term, order, path, loops)
                if any(not self._constexpr(name) for name in others):
                    return False
                continue
            if not term_dims:
                continue  # the buffer itself, or a constant
            names = set(names_in(term)) - _NOT_VARIABLES
            indices = {name for name in names if name not in sizes}
            if not sizes <= names or not indices or any(
                    any(not key.startswith(LOOP_PREFIX) for key in self.dims(cst.Name(name), order, path, loops))
                    or self._runtime_stride(name) for name in indices):
                return False
            pages += 1
        return pages == 1

    def _pointer_terms(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                       depth: int) -> list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]]:
        """The summands of a pointer (`_terms`), looking through names with one definition."""
        found: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]] = []
        for term in terms(node):
            defs = [d for d in self.reaching(term.value, order, path, loops) if d.kind != "param"] \
                if isinstance(term, cst.Name) and depth < 4 else []
            value = defs[0].value if len(defs) == 1 and defs[0].kind == "assign" else None
            if value is not None:
                found.extend(self._pointer_terms(value, defs[0].order, defs[0].path, defs[0].loops, depth + 1))
            else:
                found.append((term, order, path, loops))
        return found

    def _offset_names(self, term: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...]) -> set[str]:
        """Names in a term that hold block offsets themselves (`rows`, `cols`)."""
        return {name for name in names_in(term)
                if any(not key.startswith(LOOP_PREFIX) for key in self.dims(cst.Name(name), order, path, loops))}

    def _constexpr(self, name: str) -> bool:
        defs = self.defs.get(name, ())
        return bool(defs) and all(d.constexpr for d in defs)

    def _runtime_stride(self, name: str) -> bool:
        """A non-constexpr parameter other than an index: a tensor stride (`pid * stride_p`)."""
        return any(d.kind == "param" and not d.constexpr for d in self.defs.get(name, ()))

    def _split_interior(self, loop: Loop, dim: str) -> bool:
        """`for s in range(lo, hi - border, B)` beside `for t in range(0, border, B)` whose accesses
        mask this dimension: the kernel split its loop, the masked one takes the border tiles
        (the partial one among them) and this one the interior, full tiles only."""
        iterable = getattr(loop.node, "iter", None)
        args = _range_args(iterable) if isinstance(iterable, cst.Call) else []
        stop = args[1] if len(args) >= 2 else None
        if not (isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.Subtract)):
            return False
        cuts = {code_of(stop.right), code_of(stop)}
        same = frozenset({dim} | {key for key in self.tile_parts.get(dim, ()) if not key.startswith(LOOP_PREFIX)})
        for other in self.loops:
            other_iter = getattr(other.node, "iter", None)
            if other is loop or not isinstance(other_iter, cst.Call):
                continue
            bounds = _range_args(other_iter)[:2]
            if not cuts & {code_of(bound) for bound in bounds}:
                continue
            if any(other in a.loops and self._bounds_offsets(self.mask_dims(a) or frozenset(), same)
                   for a in self.accesses):
                return True
        return False

    def _bounds_offsets(self, bounded: frozenset[str], offsets: frozenset[str]) -> bool:
        """A mask bounds these block offsets, itself or through a tile built on them
        (`cols = start + offs_n; cols < seqlen` bounds `offs_n`)."""
        return self.covers(bounded, offsets) or any(
            self.tile_parts.get(key, frozenset()) & offsets for key in bounded)

    def _loop_stop(self, loop: Loop) -> str | None:
        """The stop of `for ... in range(start, stop, step)` as written, when it is a plain name."""
        iterable = getattr(loop.node, "iter", None)
        if not isinstance(iterable, cst.Call):
            return None
        args = _range_args(iterable)
        stop = args[1] if len(args) >= 2 else args[0] if args else None
        return stop.value if isinstance(stop, cst.Name) else None

    def covers(self, bounded: frozenset[str], keys: frozenset[str], context: frozenset[str] = frozenset(),
               *, loop_alone: bool = True) -> bool:
        """Whether a mask bounding `bounded` bounds one of `keys`. `ks = k * BLOCK_K + offs_k` is
        bounded as well by `offs_k < K - k * BLOCK_K`: the same block offsets and the same loop.

        Without `loop_alone`, sharing only a loop is not enough (evidence from another access:
        `g * N + offs_n`, a scale row the K loop picks, and `k * BLOCK_K + offs_k` both move with it).
        """
        if bounded & keys and (loop_alone or _share_a_dimension(bounded, keys)):
            return True
        for key in keys:
            parts = self.tile_parts.get(key)
            if parts is not None and parts <= bounded | {PROGRAM}:
                shared = parts & bounded
                if shared and (loop_alone or any(not part.startswith(LOOP_PREFIX) for part in shared)):
                    return True
        # The other way round: `o_col = i_t + o_i; mask = o_col < T` bounds a pointer that spells
        # the same tile inline (`p + i_t * s + o_i * s`): its own block offsets, plus loops that
        # move the pointer (`context`).
        return any(key in self.tile_parts and self.tile_parts[key] <= keys | context and
                   any(not part.startswith(LOOP_PREFIX) for part in self.tile_parts[key] & keys)
                   for key in bounded)

    def _runtime_bound(self, access: Access, dim: str, moved_by: frozenset[str]) -> bool:
        """Whether the access's mask compares `dim`, shifted by the same loops and program id as
        the pointer in question (`moved_by`), with a value only known at run time. `offs < n`
        bounds `X + offs`; `i_t + offs < T` bounds a tile of a loop, not `X + offs`."""
        for ordered in map(_ordered, self._mask_comparisons(access)):
            if ordered is None:
                continue  # `offs == i` selects lanes: no bound
            small, large = ordered
            small_dims = self.dims(small, access.order, access.path, access.loops)
            if dim in small_dims and frozenset(k for k in small_dims if k.startswith(LOOP_PREFIX)) <= moved_by \
                    and self._runtime(large, 0):
                return True
        return False

    def _runtime(self, node: cst.BaseExpression, depth: int) -> bool:
        """A value not fixed at compile time: a non-constexpr parameter, loaded data, or built from them."""
        if depth > 6:
            return False
        for name in names_in(node):
            for d in self.defs.get(name, ()):
                if d.kind == "param" and not d.constexpr:
                    return True
                if d.kind == "for" or (d.value is not None and not d.constexpr and self._runtime(d.value, depth + 1)):
                    return True
        return "load(" in code_of(node) or "program_id(" in code_of(node)

    def _masked_sibling(self, access: Access, keys: frozenset[str], loop: Loop | None) -> Access | None:
        """A masked access of the same dimension (in the same loop, for a dimension the loop walks)."""
        for other in self.accesses:
            if other is access or not compatible(other.path, access.path):
                continue
            if loop is not None and loop not in other.loops:
                continue
            bounded = self.evidence_dims(other)
            if not bounded or not self.covers(bounded, keys, loop_alone=False):
                continue
            if self._placed_elsewhere(other, access, keys):
                continue
            if any(not key.startswith(LOOP_PREFIX) and key in bounded for key in keys):
                return other  # its mask names this very dimension (`seq_offset < max_len`)
            if any(_share_a_dimension(walk.keys, keys) for walk in self.walks(other)):
                return other
        return None

    def _placed_elsewhere(self, sibling: Access, access: Access, keys: frozenset[str]) -> bool:
        """The sibling bounds `seq_start + offs < seq_end` or `ids * B + t < length`: a window
        placed at a position read from memory (a ragged segment, a gathered block). Its bound
        says where that segment ends, not where this access's tensor does, unless the access
        is placed at the same position (its pointer is built from that loaded value too)."""
        chain = self._chain(access.pointer, access).keys()
        placements = []
        for ordered in map(_ordered, self._mask_comparisons(sibling)):
            if ordered is None:
                continue
            small = ordered[0]
            if not self.dims(small, sibling.order, sibling.path, sibling.loops) & keys:
                continue
            placements.append(self._loaded_names(small, sibling))
        return bool(placements) and all(loaded - chain for loaded in placements)

    def _loaded_names(self, node: cst.BaseExpression, access: Access) -> set[str]:
        """Names an expression is computed from (through assignments) whose value is read from
        memory: `seq_start = tl.load(cu_seqlens + b)`."""
        chain = self._build_chain(node, access.order, access.path, access.loops, self._is_load)
        return {name for name, defs in chain.items()
                if any(d.kind == "assign" and d.value is not None and self._is_load(strip_casts(d.value)) for d in defs)}

    def label(self, dim: str) -> str:
        """A dimension as the kernel names it: its offset variable, else its `tl.arange(...)`."""
        owners = self.dim_owners.get(dim)
        return owners[0] if owners else ("tl." + dim if dim.startswith("arange(") else dim)

    def describe_walk(self, walk: Walk) -> str:
        parts = []
        if walk.dim:
            size = self.dim_size.get(walk.dim)
            parts.append(f"`{self.label(walk.dim)}`" + (f" (tiles of {size})" if size else ""))
        if walk.loop is not None:
            parts.append(f"advanced by the loop at line {self.line_of(walk.loop.node)}")
        return ", ".join(parts)


_VARIANT_TEST = re.compile(r"""==\s*['"]|['"]\s*==|!=\s*['"]|\bis(not)?None\b|isnotNone|isNone|[=!]=-?\d+$|^-?\d+[=!]=""")


# "The row fits in one block" switches: their other side loops over full blocks first.
_ONE_BLOCK = re.compile(r"ONE_TILE|ONE_BLOCK|SINGLE_(TILE|BLOCK)|NEED_LOOP|USE_LOOP|NO_LOOP|MULTI_(TILE|BLOCK)")
_TILE_FITS = re.compile(r"\(?\w+[+-]\w+\)?(<|<=|>|>=)\w+|\w+(<|<=|>|>=)\(?\w+[+-]\w+\)?")
_ROUND_DOWN = re.compile(r"prev_multiple|round_down|floor_to|align_down|rounddown", re.IGNORECASE)


def strip_casts(node: cst.BaseExpression) -> cst.BaseExpression:
    """`offs_k.to(index_type)` -> `offs_k`, `tl.load(p).to(tl.int64)` -> the load."""
    while type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "to":
        node = node.func.value
    return node


def _ordered(comparison: cst.Comparison) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """A single comparison `a < b` (or `b > a`, `<=`, `>=`) as (a, b), the smaller side first;
    None for `==`, `!=`, `in` and the like, which select lanes rather than bound them."""
    target = comparison.comparisons[0]
    kind = type(target.operator)
    if kind is cst.LessThan or kind is cst.LessThanEqual:
        return comparison.left, target.comparator
    if kind is cst.GreaterThan or kind is cst.GreaterThanEqual:
        return target.comparator, comparison.left
    return None


def _advance_step(pointer: cst.BaseExpression | None, owner: str, index: int,
                  qualify_tl: Callable[[cst.BaseExpression], str | None]) -> cst.BaseExpression | None:
    """The offset `bp.advance([a, b])` or `tl.advance(bp, (a, b))` moves block pointer `owner`
    by along `index`, when `pointer` is written that way."""
    if not isinstance(pointer, cst.Call):
        return None
    func, args = pointer.func, pointer.args
    if isinstance(func, cst.Attribute) and func.attr.value == "advance" and code_of(func.value) == owner and args:
        steps = args[0].value
    elif qualify_tl(func) == "advance" and len(args) > 1 and code_of(args[0].value) == owner:
        steps = args[1].value
    else:
        return None
    if isinstance(steps, (cst.Tuple, cst.List)) and index < len(steps.elements):
        return steps.elements[index].value
    return None


def _range_args(call: cst.Call) -> list[cst.BaseExpression]:
    """start/stop/step of `range(...)` / `tl.range(..., step=BLOCK)`, keywords included."""
    args = [arg.value for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    if len(args) == 2 and "step" in keywords:
        args.append(keywords["step"])
    return args


def _can_be_flag(atom: str) -> bool:
    """Conditions that pick a variant (`LAYOUT == "HOPPER"`, `B is not None`) are not evenness flags:
    their masked and unmasked branches load different layouts, not the same tile twice. Nor is
    `BLOCK >= N` ("fits in one block"): on its False side the first tiles are still full."""
    if atom in ("True", "False", "None") or atom.lstrip("-").isdigit():
        return False  # a constant decides nothing at run time (`None if False else m`)
    if _VARIANT_TEST.search(atom):
        return False
    if _ONE_BLOCK.search(atom):
        return False
    # `start_n + BLOCK > ctx_len`: a tile-fits test, checked at run time per tile, picks the
    # masked twin for the tile that does not fit. (A bare `BLOCK >= N` is the one-block switch.)
    return "%" in atom or not re.search(r"[<>]", atom) or bool(_TILE_FITS.fullmatch(atom))


def _pure_offset(node: cst.BaseExpression) -> bool:
    """`offs`, `offs[None, :]`, `tl.arange(0, D)`: offsets with no tile base added."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return isinstance(node, (cst.Name, cst.Call))


class _Substitute(cst.CSTTransformer):
    """Replace parameter names by the caller's argument expressions."""

    def __init__(self, bound: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.bound = bound

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.bound.get(original.value)
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
            if value is not None and not isinstance(value, cst.Name) else (value or updated)


def _is_boolean_shape(node: cst.BaseExpression) -> bool:
    """`FLAG`, `not FLAG`, `A and B`: values that restate conditions rather than compute data."""
    if isinstance(node, cst.Name):
        return node.value not in ("None", "True", "False")
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    return isinstance(node, cst.BooleanOperation)


# `tl.program_id(0)`, `tl.program_id(axis=0).to(tl.int64)`: a program's own tile index.
_PROGRAM_ID = re.compile(r"(\w+\.)*program_id\([^()]*\)(\.to\([\w.]+\))?")
# `BLOCK_M == 1`, `1 == BLOCK_M`, `BLOCK_M != 1`: a test of a block size against one.
_IS_ONE = re.compile(r"(?P<name>[A-Za-z_]\w*)(?P<op>==|!=)1|1(?P<op2>==|!=)(?P<name2>[A-Za-z_]\w*)")
_DIVISIBLE = re.compile(r"\(?(\w+)%(\w+)\)?==0")


def _divisible_on(path: Path) -> set[tuple[str, str]]:
    """(K, BLOCK_K) for each `K % BLOCK_K == 0` the path holds true (an `if`, a static_assert)."""
    found = set()
    for literal in path:
        match = _DIVISIBLE.fullmatch(literal.atom)
        if match and literal.value:
            found.add((match.group(1), match.group(2)))
    return found


_NOT_VARIABLES = {"tl", "None", "True", "False"}


def _block_sizes_one(path: Path) -> Iterator[str]:
    """Names the path holds to equal 1 (`BLOCK_M == 1` true, `1 != BLOCK_M` false)."""
    for literal in path:
        match = _IS_ONE.fullmatch(literal.atom)
        if match and literal.value == ((match.group("op") or match.group("op2")) == "=="):
            yield match.group("name") or match.group("name2")


def _share_a_dimension(theirs: frozenset[str], keys: frozenset[str]) -> bool:
    """Two sets of dimension keys have a tile dimension in common, or both walk a loop alone
    (`ptrs += BLOCK_K` with no offsets): a common loop alone is not a common dimension."""
    common = theirs & keys
    if any(not key.startswith(LOOP_PREFIX) for key in common):
        return True
    return bool(common) and all(key.startswith(LOOP_PREFIX) for key in keys)


def _offset_count(keys: frozenset[str]) -> int:
    """How many tile offsets (not loops) a set of dimension keys holds."""
    return sum(not key.startswith(LOOP_PREFIX) for key in keys)


def _keyword(call: cst.Call, name: str, position: int) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None]
    return positional[position] if position < len(positional) else None


def _string_keys(node: cst.BaseExpression) -> set[str]:
    """`args["BLOCK_K"]` -> {"BLOCK_K"}."""
    keys = set()
    for match in re.finditer(r"\[\s*['\"](\w+)['\"]\s*\]", code_of(node)):
        keys.add(match.group(1))
    return keys
