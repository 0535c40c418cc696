"""Launches for a weak evenness predicate (TL103): sizes the predicate lets through with a partial tile.

A TL103 finding says an evenness flag's setter (`EVEN_K = K % 16 == 0`, a heuristics lambda, a literal
test at a launch) does not imply full tiles of the size the kernel walks (`BLOCK_K = 64`). It is shown
by a size for which the predicate holds and the walked size is no whole number of tiles (`K = 16 * m`,
`K % 64 != 0`): the flag takes the value the predicate gives (True), the even path drops its masks and
reads past the end. The TL101/TL102 findings on the accesses it lets through need the same sizes. The
rule names what to launch in `Diagnostic.facts` (tritonlint/semantic/host/weak_facts.py); nothing here
reads a message.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from tritonlint.witness.analysis import in_kernel_names

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
CANDIDATES = 3  # sizes tried per finding, like the partial tiles of any other finding


@dataclass(frozen=True)
class WeakFacts:
    """The predicate, in the kernel's names, and what it must leave partial."""

    kernel: str
    flag: str
    walked: str  # the kernel parameter walked in tiles (`K`)
    tile: str  # the tile, in the kernel's names (`BLOCK_K * SPLIT_K`)
    predicate: str  # `K % BLOCK_K == 0`
    setter: str  # "heuristics" (decides at run time) or "launch" (the launch passes the flag)
    access: tuple[int, int] | None = None  # (line, column) of an access the flag lets through unmasked
    names: dict[str, str] = field(default_factory=dict)  # host name -> the parameter it is passed as


def weak_facts_of(diagnostic: Any) -> WeakFacts | None:
    """The weak predicate the finding names (TL103, or a TL101/TL102 on the access it lets through)."""
    facts = dict(getattr(diagnostic, "facts", ()) or ())
    if not all(facts.get(k) for k in ("kernel", "flag", "walked", "tile", "predicate", "setter")):
        return None
    access = None
    if facts.get("access"):
        line, _, column = facts["access"].partition(":")
        access = (int(line), int(column or 1))
    names = dict(pair.split("=", 1) for pair in facts.get("names", "").split(",") if "=" in pair)
    return WeakFacts(facts["kernel"], facts["flag"], facts["walked"], facts["tile"], facts["predicate"],
                     facts["setter"], access, names)


def evaluate(text: str, env: dict[str, Any]) -> Any:
    """The value of a predicate or tile over integers (names from `env`); None where it cannot be read
    (a call, an attribute, a name `env` lacks): the witness never runs host code."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    try:
        return _value(tree, env)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def _value(node: ast.expr, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, bool)):
        return node.value
    if isinstance(node, ast.Name):
        value = env[node.id]
        if not isinstance(value, (int, bool)):
            raise TypeError(node.id)
        return value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_value(node.left, env), _value(node.right, env))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _value(node.operand, env)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand, env)
    if isinstance(node, ast.BoolOp):
        values = [bool(_value(v, env)) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _value(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            if type(op) not in _COMPARE:
                raise TypeError(op)
            right = _value(right_node, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    raise TypeError(ast.dump(node))


def tile_value(weak: WeakFacts, env: dict[str, Any]) -> int | None:
    value = evaluate(weak.tile, env)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 else None


def passing_sizes(weak: WeakFacts, env: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(size, the whole tiles above it, label) for sizes of the walked parameter where the predicate holds
    and the tile is partial: two tiles and a part, one and a part, a part alone (as any finding's
    candidates), the part half a tile where the predicate allows, else the smallest it allows."""
    tile = tile_value(weak, env)
    if tile is None:
        return []
    out: list[tuple[int, int, str]] = []
    for m in (2, 1, 0):
        for r in [tile // 2, *range(1, tile)]:
            size = m * tile + r
            if size % tile and evaluate(weak.predicate, {**env, weak.walked: size}) is True:
                label = f"{weak.walked}={size} (`{weak.predicate}` holds, {weak.walked} % {tile} = {r})"
                out.append((size, (m + 1) * tile, label))
                break
    return out[:CANDIDATES]


def at_access(diagnostic: Any) -> Any:
    """The TL103 finding placed at the access its predicate lets through unmasked (the kernel's line the
    run watches), its facts kept; None where the rule names no such access in this file."""
    weak = weak_facts_of(diagnostic)
    if weak is None or weak.access is None or weak.access[0] == diagnostic.line:
        return None  # no access named, or placed there already
    line, column = weak.access
    return replace(diagnostic, line=line, column=column, end_line=line, end_column=column + 1, notes=())


def fix_readable(diagnostic: Any) -> bool:
    """Whether the fix can be run: a heuristics lambda's is in the fixed file's kernel; a launch's predicate
    is host code, evaluated on the launch's values, so each name it tests must be passed to the kernel."""
    weak = weak_facts_of(diagnostic)
    if weak is None or weak.setter != "launch":
        return True
    text = _fix_text(diagnostic.fix)
    return bool(text and in_kernel_names(text, weak.names))


def _fix_text(fix: Any) -> str:
    edits: list[Any] = list(getattr(fix, "edits", ()) or ())
    return str(edits[0].content) if len(edits) == 1 else ""


def for_fix(launch: Any, weak: WeakFacts | None, fix: Any) -> Any:
    """The launch the fixed code makes: where the launch passes the flag, the flag is what the fix's
    predicate gives on this launch's values (False at a partial tile: the masked path); a heuristics
    lambda's fix decides in the fixed kernel itself, on the same launch."""
    if weak is None or weak.setter != "launch":
        return launch
    text = in_kernel_names(_fix_text(fix), weak.names)
    env = {a.name: a.value for a in launch.args if a.kind in ("int", "constexpr")}
    value = evaluate(text, env) if text else None
    if not isinstance(value, bool):
        return launch
    # A flag passed as a plain bool (not a constexpr) travels as an int, as the synthesizer passes it.
    args = [replace(a, value=value if a.kind == "constexpr" else int(value)) if a.name == weak.flag
            and a.kind in ("constexpr", "int") else a for a in launch.args]
    return replace(launch, args=args)


def describe(shown: Any, diagnostic: Any, fix_unread: bool) -> None:
    """The run of the predicate's access (a runner.Witness, changed in place), told as the predicate's:
    which predicate held at which size."""
    weak = weak_facts_of(diagnostic)
    assert weak is not None
    if shown.status == "confirmed" and shown.launch:
        sizes = shown.launch.get("sizes", {})
        at = f"{weak.walked}={sizes[weak.walked]}" if weak.walked in sizes else shown.launch.get("label", "")
        values = {a["name"]: a["value"] for a in shown.launch.get("args", ()) if a["kind"] in ("int", "constexpr")}
        tile = tile_value(weak, values)
        line = weak.access[0] if weak.access else "?"
        shown.reason = (f"`{weak.predicate}` holds at {at}, not a multiple of {weak.tile}"
                        + (f" = {tile}" if tile is not None else "")
                        + f": {weak.flag} is True and the unmasked access at line {line} runs; " + shown.reason)
        shown.judged_line = weak.access[0] if weak.access else 0
        if shown.evidence is not None:
            shown.evidence = {**shown.evidence, "predicate": weak.predicate, "flag": weak.flag, "size": at,
                              "access_line": line}
    if fix_unread and shown.validation is None:
        shown.validation = {"status": "not-run", "reason": "the fix's predicate tests a host value the launch "
                            "passes as no kernel parameter"}
