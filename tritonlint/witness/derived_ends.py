"""A loop end computed from a constexpr, and the values the host gives that constexpr.

A histogram kernel walks its bins in fixed tiles, `for start in range(0, r, TILE)` with
`r: tl.constexpr = 2 ** BITS` a local of the kernel: the bin count is no parameter, so no size the
synthesizer varies makes that loop's last tile partial. Only another value of the constexpr it is
computed from (`BITS`) does, and the host says which values that takes (`bits = 1 if bool else 4`).
`derived_end` finds such a loop around the flagged line; `host_constexpr_values` reads, from the
kernel's own file, the literals the launching function (and its callers, one call up) can pass for a
parameter. The synthesizer then launches a value whose end is not a whole number of tiles beside one
whose end is (the control), and lays the flagged tensor out with that end as its extent.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tritonlint.witness.analysis import module_numbers
from tritonlint.witness.call_names import call_name
from tritonlint.witness.host_extents import innermost_function, launching_function
from tritonlint.witness.launcher_values import default_values, int_values, passed_argument

_OPS: dict[type, Callable[[int, int], int]] = {
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.Mult: operator.mul, ast.Add: operator.add,
    ast.Sub: operator.sub, ast.FloorDiv: operator.floordiv,
}
GUESSED_VALUES = tuple(range(1, 9))  # where the host says nothing: small exponents and factors
MAX_END = 1 << 12  # an end past this many elements is no launch the interpreter runs in time


@dataclass(frozen=True)
class DerivedEnd:
    """The end of the loop that advances the flagged tile, computed from one constexpr parameter."""

    local: str  # the loop end (`r`)
    source: str  # the constexpr parameter it is computed from (`BITS`)
    value: ast.expr  # its definition (`2 ** BITS`)

    def at(self, source_value: int) -> int | None:
        """The end's value where the parameter is `source_value`; None where it does not evaluate."""
        try:
            result = _evaluate(self.value, {self.source: source_value})
        except (ValueError, ArithmeticError, OverflowError):
            return None
        return result if 0 < result <= MAX_END else None


def derived_end(fn: ast.FunctionDef, line: int, constexprs: set[str], tile: str | None) -> DerivedEnd | None:
    """The innermost `for ... in range(start, END, TILE)` around `line` stepping by the finding's tile, whose
    END is a local defined once from exactly one constexpr parameter and literals (`2 ** B`, `1 << B`, `B * 4`)."""
    if tile is None:
        return None
    found: DerivedEnd | None = None
    for node in ast.walk(fn):  # breadth-first: a loop nested inside comes later and wins
        if not (isinstance(node, ast.For) and node.body and node.body[0].lineno <= line <= (node.end_lineno or 0)):
            continue
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
                and len(call.args) == 3 and isinstance(call.args[1], ast.Name)
                and ast.unparse(call.args[2]).replace(" ", "") == tile.replace(" ", "")):
            continue
        end = call.args[1].id
        definitions = _definitions(fn, end)
        if len(definitions) != 1 or end in {a.arg for a in fn.args.args}:
            continue
        names = {n.id for n in ast.walk(definitions[0]) if isinstance(n, ast.Name)}
        # Not an end computed from the tile itself (`2 * BLOCK` stepped by BLOCK): varying it varies the tile.
        if len(names) == 1 and names <= constexprs and _arithmetic(definitions[0]) \
                and not names & {n.id for n in ast.walk(call.args[2]) if isinstance(n, ast.Name)}:
            found = DerivedEnd(end, names.pop(), definitions[0])
    return found


def annotated_constexprs(fn: ast.FunctionDef) -> set[str]:
    """The parameters annotated `tl.constexpr` (a cheap test before the host is read)."""
    return {a.arg for a in fn.args.args if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)}


def split_values(end: DerivedEnd, tile: int, values: list[int]) -> tuple[int, int] | None:
    """(a value whose end leaves the last tile partial, a value whose end is whole tiles): each the one
    with the smallest end, so the runs stay short; None where the values give no such pair."""
    ends = {v: end.at(v) for v in dict.fromkeys(values)}
    partial = sorted((e, v) for v, e in ends.items() if e is not None and e % tile)
    whole = sorted((e, v) for v, e in ends.items() if e is not None and e % tile == 0)
    if not partial or not whole:
        return None
    return partial[0][1], whole[0][1]


def host_constexpr_values(text: str, launch: Any) -> dict[str, list[int]]:
    """Kernel parameter -> the ints the host can pass it (`launcher_values.int_values`: literals, arithmetic
    of them, `a if c else b`; a default also folds the module's numbers): the launch's literal, else the
    ints the launching function assigns the name it passes before
    the launch, else, for a parameter of the launching function, its default and what the calls of that
    function in the same file pass (read the same way in each caller). Only what reads; a parameter with
    no value read is left out."""
    found = launching_function(text, launch)
    if found is None:
        return {}
    tree, holder, line = found
    if not isinstance(holder, ast.FunctionDef):
        return {}
    numbers = module_numbers(text)  # a launcher's default reads them, as Python evaluates it
    out: dict[str, list[int]] = {}
    for param, arg_text in dict(launch.args).items():
        try:
            arg = ast.parse(str(arg_text).strip(), mode="eval").body
        except SyntaxError:
            continue
        values = _values(tree, holder, arg, line, depth=2, numbers=numbers)
        if values:
            out[param] = values
    return out


def _values(tree: ast.Module, fn: ast.FunctionDef, expr: ast.expr, before: int, depth: int,
            numbers: Mapping[str, int | float]) -> list[int]:
    # The function's own expressions are read without the module's numbers (a local of that name hides one).
    choices = int_values(expr)
    if choices is not None or not isinstance(expr, ast.Name):
        return choices or []
    assigned = [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign) and n.lineno < before
                and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
    if assigned:
        out: list[int] = []
        for value in assigned:
            out += int_values(value) or []
        return list(dict.fromkeys(out))
    if expr.id not in {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}:
        return []
    defaults = default_values(fn, numbers)  # the reader tile_defaults' launcher defaults use too
    out = list(defaults[expr.id][0]) if expr.id in defaults else []
    if depth > 0:
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and call_name(n) == fn.name):
            given = passed_argument(call, fn, expr.id)
            caller = _holder(tree, call.lineno)
            if given is not None and caller is not None and caller is not fn:
                out += _values(tree, caller, given, call.lineno, depth - 1, numbers)
    return list(dict.fromkeys(out))


def _holder(tree: ast.Module, line: int) -> ast.FunctionDef | None:
    """The innermost (non-async) function holding `line`: a launcher or one of its callers."""
    fn = innermost_function(tree, line)
    return fn if isinstance(fn, ast.FunctionDef) else None


def _definitions(fn: ast.FunctionDef, name: str) -> list[ast.expr]:
    """Every value `name` is given in `fn`; a loop target or an augmented assignment counts twice (it
    changes as the kernel runs: never the one definition a derived end needs)."""
    out: list[ast.expr] = []
    for node in ast.walk(fn):
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            value = node.value if any(isinstance(t, ast.Name) and t.id == name for t in node.targets) else None
        elif isinstance(node, ast.AnnAssign):
            value = node.value if isinstance(node.target, ast.Name) and node.target.id == name else None
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            out += [node.value, node.value]
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == name:
            out += [node.iter, node.iter]
        if value is not None:
            out.append(value)
    return out


def _arithmetic(expr: ast.expr) -> bool:
    return all(isinstance(n, (ast.BinOp, ast.Constant, ast.Name, ast.Load, *_OPS)) for n in ast.walk(expr))


def _evaluate(expr: ast.expr, env: dict[str, int]) -> int:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, ast.Name) and expr.id in env:
        return env[expr.id]
    if isinstance(expr, ast.BinOp) and type(expr.op) in _OPS:
        left, right = _evaluate(expr.left, env), _evaluate(expr.right, env)
        if isinstance(expr.op, (ast.Pow, ast.LShift)) and not 0 <= right < 32:
            raise ValueError("exponent out of range")
        return _OPS[type(expr.op)](left, right)
    raise ValueError(f"not arithmetic: {ast.unparse(expr)}")


def grid_stride_loops(fn: ast.FunctionDef, sizes: set[str]) -> tuple[set[str], set[str], set[str]]:
    """(sizes a persistent loop's end reads, size parameters it steps by, sizes that split its task
    index) for each grid-stride loop `for t in range(pid, END, STEP)` whose start reads a program id
    (`pid = tl.program_id(0)`): END's sizes, read directly or through a local defined once (`total = m *
    grid_n`), are counted task by task; a STEP passed as a parameter is the host's program count
    (`num_ctas`), so the launch's grid is it; a size the task index is split by (`t // m`, `t % m`) is
    1, so that the tasks run are the tensor's last ones too: with an END passed as a parameter the layout
    gives each quotient a row of its own (the quotient is bounded by END, not by END // m)."""
    ends: set[str] = set()
    steps: set[str] = set()
    splitters: set[str] = set()
    for node in ast.walk(fn):
        call = node.iter if isinstance(node, ast.For) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
                and len(call.args) == 3 and _reads_program_id(fn, call.args[0])):
            continue
        names = {n.id for n in ast.walk(call.args[1]) if isinstance(n, ast.Name)}
        for name in list(names):
            definitions = _definitions(fn, name)
            if len(definitions) == 1:
                names |= {n.id for n in ast.walk(definitions[0]) if isinstance(n, ast.Name)}
        ends |= names & sizes
        if isinstance(call.args[2], ast.Name) and call.args[2].id in sizes:
            steps.add(call.args[2].id)
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            splitters |= _splitting(node, node.target.id, sizes)
    return ends - steps - splitters, steps, splitters


def _splitting(loop: ast.For, task: str, sizes: set[str]) -> set[str]:
    """The sizes `task` is divided by or taken modulo in the loop's body (`task // m`, `task % m`)."""
    out: set[str] = set()
    for node in ast.walk(loop):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod)) \
                and isinstance(node.left, ast.Name) and node.left.id == task \
                and isinstance(node.right, ast.Name) and node.right.id in sizes:
            out.add(node.right.id)
    return out


def _reads_program_id(fn: ast.FunctionDef, expr: ast.expr) -> bool:
    values = [expr]
    if isinstance(expr, ast.Name):
        values += _definitions(fn, expr.id)
    return any(isinstance(n, ast.Attribute) and n.attr == "program_id" for v in values for n in ast.walk(v))


def split_program_axes(fn: ast.FunctionDef) -> dict[int, tuple[int, str]]:
    """Program axis -> (the axis of the splits, the constexpr that numbers its programs), where a row index is one program id
    scaled by that constexpr plus another (`pid_m = s * M_PER_SPLIT + pid_idx`, the host's grid `(S, ...,
    M_PER_SPLIT)`): the second axis runs that many programs, else rows inside each split are never reached
    (the layout holds `S * M_PER_SPLIT` rows)."""
    axes = {name: axis for name, axis in _program_id_locals(fn).items()}
    out: dict[int, tuple[int, str]] = {}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
            continue
        for scaled, other in ((node.left, node.right), (node.right, node.left)):
            if not (isinstance(scaled, ast.BinOp) and isinstance(scaled.op, ast.Mult)
                    and isinstance(other, ast.Name) and other.id in axes):
                continue
            for index, count in ((scaled.left, scaled.right), (scaled.right, scaled.left)):
                if isinstance(index, ast.Name) and index.id in axes and isinstance(count, ast.Name) \
                        and count.id not in axes and axes[index.id] != axes[other.id]:
                    out[axes[other.id]] = (axes[index.id], count.id)
    return out


def split_row_bounds(fn: ast.FunctionDef, sizes: set[str]) -> set[str]:
    """The sizes a split row index is compared with (`pid_m = s * M_PER_SPLIT + pid_idx`, `if pid_m >= m:
    return`): the rows the splits cover, `S * M_PER_SPLIT`, as the host's grid is read from them."""
    axes = _program_id_locals(fn)
    rows = {name for name, values in ((n, _definitions(fn, n)) for n in _assigned_names(fn)) if len(values) == 1
            and sum(isinstance(v, ast.Name) and v.id in axes for v in ast.walk(values[0])) == 2
            and isinstance(values[0], ast.BinOp) and isinstance(values[0].op, ast.Add)}
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            names = {n.id for n in (node.left, node.comparators[0]) if isinstance(n, ast.Name)}
            if names & rows:
                out |= names & sizes
    return out


def _assigned_names(fn: ast.FunctionDef) -> set[str]:
    return {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def _program_id_locals(fn: ast.FunctionDef) -> dict[str, int]:
    """Local -> the program axis it holds (`pid_n = tl.program_id(1)`), defined once."""
    out: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr == "program_id" and value.args and isinstance(value.args[0], ast.Constant) \
                    and isinstance(value.args[0].value, int) and len(_definitions(fn, node.targets[0].id)) == 1:
                out[node.targets[0].id] = value.args[0].value
    return out
