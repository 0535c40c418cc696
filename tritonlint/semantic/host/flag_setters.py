"""Evenness predicates: what sets a kernel's evenness flag (a launch argument, a heuristics lambda), and whether it keeps its promise.

A flag like `EVEN_K` lets the kernel drop its masks on K. The flag is right only when its predicate
implies that every tile the kernel walks along K is full: `K % T == 0` for the kernel's tile `T` of
that walk (a loop's step, `BLOCK_K * SPLIT_K` for a split K, or a program's block). A predicate
that tests the walked extent (or a divisor of it) against something that is not a multiple of
`T` (`K % 2 == 0` with `BLOCK_K = 32`; `K % BLOCK_K == 0` when the loop steps `BLOCK_K * SPLIT_K`)
is weak: the flag says "full tiles" where the last one is partial. Read textually, factor by
factor; a predicate that tests something else, or that cannot be read, is left alone.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.host.launches import (
    Launch,
    classify,
    multiple_tests,
    product_factors,
    squash,
)
from tritonlint.semantic.ir import PROGRAM
from tritonlint.source.names import code_of
from tritonlint.source.syntax import ordered, range_args, string_keys

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages

# `args["K"]` (or `args['K']`) of a heuristics lambda: the kernel's argument K.
_ARG = re.compile(r"\b(\w+)\[\s*['\"](\w+)['\"]\s*\]")


@dataclass(frozen=True)
class Requirement:
    """What full tiles of one walk need: `extent % tile == 0` (kernel names), and the walk's keys."""

    extent: str
    tile: str
    keys: frozenset[str]
    # The accesses the flag lets through unmasked along this walk (their calls): where a run of the
    # predicate's launch goes out of bounds (the witness launches the kernel and watches them).
    calls: tuple[cst.Call, ...] = ()


@dataclass(frozen=True)
class WeakPredicate:
    """A predicate that sets an evenness flag without implying full tiles of the walk it guards."""

    flag: str  # the kernel's flag parameter (`EVEN_K`)
    text: str  # the predicate as written (`K % 2 == 0`)
    where: str  # "ops.py:41" (a launch argument) or "line 12" (a heuristics lambda of this file)
    tile: str  # the kernel's tile: `BLOCK_K`, `BLOCK_K * SPLIT_K`
    walked: str  # the extent it walks in those tiles: `K`
    keys: frozenset[str]  # the walks it lets through unmasked (loop keys and offset dimensions)
    node: cst.CSTNode | None = None  # the lambda's body, in the kernel's own tree
    launch: Launch | None = None  # the launch whose argument it is
    # The predicate's place in the launching file: 1-based lines, 0-based UTF-8 byte columns (ast's).
    span: tuple[int, int, int, int] | None = None
    replacement: str = ""  # the predicate that keeps the promise, in the setter's own names; "" if unclear
    calls: tuple[cst.Call, ...] = ()  # the unmasked accesses it lets through (the requirement's)
    # The predicate in the kernel's names (`args["K"] % 2 == 0` -> `K % 2 == 0`; a launch's host names
    # mapped to the parameters they are passed as), or "" where a name is passed as no parameter.
    kernel_text: str = ""

    @property
    def needs(self) -> str:
        """What full tiles need, in the kernel's names: `K % BLOCK_K == 0`."""
        return f"{self.walked} % {_grouped(self.tile)} == 0"


def weak_predicates(model: Stages) -> list[WeakPredicate]:
    """The weak predicates of the kernel's flags: its heuristics lambdas and its launches' arguments."""
    params = {p.name.value for p in model.ir.function.params.params}
    found: list[WeakPredicate] = []
    seen: set[str] = set()
    # A literal default is the tile's value where the launch does not bind it, unless autotuned.
    autotuned = any((model.ir.imports.qualify(d.func) or "").endswith("autotune")
                    for d in model.ir.decorators if isinstance(d, cst.Call))
    defaults = {} if autotuned else _defaults(model)
    for flag in model.flags.flags:
        if flag.atom not in params or flag.atom in seen or not flag.even:
            continue
        seen.add(flag.atom)
        heuristics = _heuristic_predicates(model, flag.atom)
        launched = [launch for launch in model.launches if flag.atom in launch.predicates]
        if not heuristics and not launched:
            continue  # nothing sets the flag where it can be read: the walks need not be asked
        requirements = _requirements(model, flag.atom, flag.dims)
        if not requirements:
            continue
        for node, text in heuristics:
            weak = _judge(text, requirements, {}, {})
            if weak is not None:
                requirement, replacement = weak
                found.append(WeakPredicate(flag.atom, _written(node), f"line {model.line_of(node)}",
                                           requirement.tile, requirement.extent, requirement.keys, node=node,
                                           replacement=_in_lambda(node, replacement), calls=requirement.calls,
                                           kernel_text=text))
        for launch in launched:
            text, span = launch.predicates[flag.atom]
            weak = _judge(text, requirements, dict(launch.args), defaults)
            if weak is not None:
                requirement, replacement = weak
                file = launch.where.rsplit(":", 1)[0]
                found.append(WeakPredicate(flag.atom, text, f"{file}:{span[0]}", requirement.tile,
                                           requirement.extent, requirement.keys, launch=launch, span=span,
                                           replacement=replacement, calls=requirement.calls,
                                           kernel_text=in_kernel_names(text, dict(launch.args))))
    return found


def _requirements(model: Stages, atom: str, dims: frozenset[str]) -> list[Requirement]:
    """What full tiles need along each walk the flag lets through unmasked (its even side)."""
    found: dict[tuple[str, str], set[str]] = {}
    calls: dict[tuple[str, str], list[cst.Call]] = {}
    for access in model.flags.accesses:  # helpers' accesses too, as their calls see them
        if not model.flags.on_side(atom, True, access.path):
            continue
        for walk in model.walker.walks(access):
            if not walk.keys & dims:
                continue
            if walk.loop is not None:
                divided = loop_division(model, walk.loop.iterable)
            elif walk.dim is not None and walk.dim in model.ev.dim_size \
                    and PROGRAM in model.walker.pointer_loops(access):
                divided = _program_division(model, walk.dim)
            else:
                divided = None
            if divided is not None:
                found.setdefault(divided, set()).update(walk.keys)
                if access.call not in calls.setdefault(divided, []):
                    calls[divided].append(access.call)
    return [Requirement(extent, tile, frozenset(keys), tuple(calls[(extent, tile)]))
            for (extent, tile), keys in found.items()]


def in_kernel_names(text: str, host: dict[str, str]) -> str:
    """A launch's predicate with each host name read as the kernel parameter it is passed as (`n % 2 == 0`
    with `K=n` gives `K % 2 == 0`); "" where a name it tests is passed as no parameter (unknown there)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return ""
    passed = {value.strip(): param for param, value in host.items() if value.strip().isidentifier()}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in passed:
                return ""
            node.id = passed[node.id]
    return ast.unparse(tree)


def loop_division(model: Stages, iterable: cst.BaseExpression | None) -> tuple[str, str] | None:
    """(extent, tile) of `range(0, E, T)`, `range(tl.cdiv(E, T))`, `range(0, (E + T - 1) // T)`; a
    count assigned once before the loop (`k_tiles = tl.cdiv(K, BLOCK_K)`) is read through its name."""
    if not isinstance(iterable, cst.Call):
        return None
    args = range_args(iterable)
    name = code_of(iterable.func)
    if not (name == "range" or name.endswith((".range", ".static_range"))) or not args or len(args) > 3:
        return None
    last: cst.BaseExpression = args[-1]
    if len(args) == 3:
        down = _counted_down(args)
        if down is None:
            return squash(code_of(args[1])), squash(code_of(args[2]))
        start, tile = down
        if code_of(tile) != "1":
            return squash(code_of(start)), squash(code_of(tile))
        last = start  # `range(tl.cdiv(K, BLOCK_K), 0, -1)`: a tile count, read below like `range(n)`
    if isinstance(last, cst.Name):
        defs = [d for d in model.ir.defs.get(last.value, ()) if d.kind != "param"]
        if len(defs) == 1 and defs[0].kind == "assign" and defs[0].value is not None:
            last = defs[0].value
    try:
        count = classify(ast.parse(code_of(last), mode="eval").body, "")  # a grid axis's reading of a count
    except SyntaxError:
        return None
    return (count.extent, count.size) if count.kind == "partial" else None


def _counted_down(args: list[cst.BaseExpression]) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(E, T) of `range(E, 0, -T)` (the classic matmul's `for k in range(K, 0, -BLOCK_K)`): it visits
    E, E - T, ... down to a last remainder, so its tiles are full only when T divides E."""
    start, stop, step = args
    if not (isinstance(step, cst.UnaryOperation) and isinstance(step.operator, cst.Minus)
            and isinstance(stop, cst.Integer) and stop.value == "0"):
        return None
    # `E - 0` (a walk from 0 counted down as its remaining length) is E.
    while isinstance(start, cst.BinaryOperation) and isinstance(start.operator, cst.Subtract) \
            and isinstance(start.right, cst.Integer) and start.right.value == "0":
        start = start.left
    # `-(2 * BLOCK_K)`: the tile is the parenthesised product, read bare
    return start.with_changes(lpar=[], rpar=[]), step.expression.with_changes(lpar=[], rpar=[])


def _program_division(model: Stages, dim: str) -> tuple[str, str] | None:
    """(extent, tile) of a program's block `pid * BLOCK_M + tl.arange(0, BLOCK_M)`: the tile is its
    size; the extent, the one bound the kernel's masks compare it with elsewhere (`offs_m < M`)."""
    size = model.ev.dim_size.get(dim)
    if size is None:
        return None
    bounds = set()
    for access in model.flags.accesses:
        for sides in map(ordered, model.flow.mask_comparisons(access)):
            if sides is None:
                continue
            small, large = sides
            if dim in model.ev.dims(small, access.order, access.path, access.loops) \
                    and isinstance(large, cst.Name) and any(d.kind == "param" for d in model.ir.defs.get(large.value, ())):
                bounds.add(large.value)
    return (bounds.pop(), squash(size)) if len(bounds) == 1 else None


def _heuristic_predicates(model: Stages, atom: str) -> list[tuple[cst.BaseExpression, str]]:
    """The body of `@triton.heuristics({"EVEN_K": lambda args: ...})` for the flag, and its text in
    the kernel's names (`args["K"]` -> `K`)."""
    found = []
    for call in model.ir.decorators:
        if not (isinstance(call, cst.Call) and (model.ir.imports.qualify(call.func) or "").endswith("heuristics")):
            continue
        table = call.args[0].value if call.args else None
        if not isinstance(table, cst.Dict):
            continue
        for element in table.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) \
                    and element.key.evaluated_value == atom and isinstance(element.value, cst.Lambda) \
                    and len(element.value.params.params) == 1:
                body = element.value.body
                own = element.value.params.params[0].name.value
                text = _ARG.sub(lambda m, own=own: m.group(2) if m.group(1) == own else m.group(0),  # type: ignore[misc]
                                code_of(body))
                if not string_keys(body):
                    continue
                found.append((body, text))
    return found


def _written(node: cst.CSTNode) -> str:
    """The node as written, on one line."""
    return " ".join(cst.Module(body=[]).code_for_node(node).split())


def _in_lambda(node: cst.CSTNode, replacement: str) -> str:
    """The kernel-named predicate written back with the lambda's `args["..."]`."""
    if not replacement:
        return ""
    body = code_of(node)
    match = _ARG.search(body)
    if match is None:
        return ""
    owner, quote = match.group(1), "'" if f"{match.group(1)}['" in body else '"'
    return re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: f"{owner}[{quote}{m.group(1)}{quote}]", replacement)


def _defaults(model: Stages) -> dict[str, str]:
    """The kernel's parameters with a literal default (`BLOCK_K: tl.constexpr = 32`)."""
    found = {}
    for param in model.ir.function.params.params:
        if param.default is not None and isinstance(param.default, cst.Integer):
            found[param.name.value] = param.default.value
    return found


def _judge(text: str, requirements: list[Requirement], host: dict[str, str],
           defaults: dict[str, str]) -> tuple[Requirement, str] | None:
    """The requirement the predicate `text` fails, with the predicate that would keep it (in the
    setter's names; "" when not all of them are known there). None when it keeps every one, or
    when it does not speak of the walked extent (nothing to judge)."""
    try:
        predicate = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    tests = _mod_tests(predicate)
    if tests is None:
        return None
    for requirement in requirements:
        walked, tile_text = requirement.extent, requirement.tile
        # `K // 2` walked in tiles of T: full when K is a multiple of T * 2.
        divided = re.fullmatch(r"\(?(\w+)\)?//(\w+)", walked)
        if divided is not None:
            walked, tile_text = divided.group(1), f"{tile_text}*{divided.group(2)}"
        extent = Counter(_factors_of(walked, host))
        tile = _factors_of(tile_text, host, defaults)
        needed = Requirement(walked, " * ".join(_atoms(tile_text)), requirement.keys, requirement.calls)
        relevant = [(e, d) for e, d in tests if not Counter(_factors(e)) - extent]
        if not relevant:
            continue
        if any(_covers(_factors(d), tile) for _, d in relevant):
            continue
        replacement = ""
        if len(tests) == 1:
            names = [atom if atom.isdigit() else host.get(atom, "") for atom in _atoms(tile_text)] if host \
                else _atoms(tile_text)
            if all(names):
                replacement = f"{ast.unparse(relevant[0][0])} % {_grouped(_host_text(tile_text, host))} == 0"
        return needed, replacement
    return None


def _mod_tests(predicate: ast.expr) -> list[tuple[ast.expr, ast.expr]] | None:
    """(E, D) of each `E % D == 0` conjunct; None when a conjunct is something else (not judged)."""
    conjuncts = predicate.values if isinstance(predicate, ast.BoolOp) and isinstance(predicate.op, ast.And) \
        else [predicate]
    tests = list(multiple_tests(predicate))  # at most one per conjunct
    if len(tests) != len(conjuncts) or not all(zero for _, zero in tests):
        return None
    return [(mod.left, mod.right) for mod, _ in tests if isinstance(mod, ast.BinOp)]


def _factors(node: ast.expr) -> list[str]:
    """`2`, `BLOCK_K` and `SPLIT_K` of `2 * BLOCK_K * SPLIT_K` (squashed texts)."""
    return [squash(ast.unparse(factor)) for factor in product_factors(node)]


def _atoms(text: str) -> list[str]:
    try:
        return _factors(ast.parse(text, mode="eval").body)
    except SyntaxError:
        return [text]


def _factors_of(text: str, host: dict[str, str], defaults: dict[str, str] | None = None) -> list[str]:
    """A kernel expression's factors in the setter's names: each kernel parameter bound at the
    launch becomes its argument (itself factored: `BLOCK_K=2 * B` gives `2`, `B`); an unbound one
    with a literal default becomes that literal."""
    found = []
    for atom in _atoms(text):
        value = host.get(atom) or (defaults or {}).get(atom)
        found += _atoms(value) if value else [atom]
    return found


def _host_text(text: str, host: dict[str, str]) -> str:
    return " * ".join(host.get(atom, atom) for atom in _atoms(text))


def _covers(divisor: list[str], tile: list[str]) -> bool:
    """Whether a multiple of `divisor` is a multiple of `tile`: every named factor of the tile is a
    factor of the divisor, and the literal part of the divisor is a multiple of the tile's."""
    names_d = Counter(f for f in divisor if not f.isdigit())
    names_t = Counter(f for f in tile if not f.isdigit())
    literal_d, literal_t = _product(divisor), _product(tile)
    if names_t - names_d:
        return False
    return literal_d % literal_t == 0


def _product(factors: list[str]) -> int:
    product = 1
    for factor in factors:
        if factor.isdigit():
            product *= int(factor)
    return product


def _grouped(text: str) -> str:
    return f"({text})" if "*" in text or "+" in text or "-" in text else text
