"""Tile sizes the launching function gives by default: `BTS=BTS` at the launch, where `BTS=32` is a parameter
of the host function that launches the kernel (`def chunked(q, k, BTL=16, BTS=32)`). A caller that passes
nothing launches those values, so they are sizes the kernel runs at, where the witness otherwise guesses
its tiles (all alike, 16): a hazard that needs two tiles to differ (a loop stepping by BTS past chunks of
BTL) shows only at the defaults.

Read as text beside the finding's file, never imported. An int default is a literal, or arithmetic of
literals and the module's top-level numbers (`2 * BLOCK`); a bool default is left to `left_defaults`. A
parameter the function's body stores to is no longer its default. Defaults that break a divisibility the
host asserts before the launch (`assert BTL % BTS == 0`, the launch's `multiples`) are never launched
together: none is given then.

Witness-only: the runner launches them once more where the guessed tiles stayed in bounds (`runner`)."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tritonlint.witness.analysis import module_numbers
from tritonlint.witness.left_defaults import assigned_names, enclosing_function, is_named
from tritonlint.witness.synth import launch_literal

_FOLDED: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow, ast.LShift: operator.lshift,
}


def launcher_tile_defaults(launch: Any, finding_file: Path) -> dict[str, tuple[str, str]]:
    """Kernel parameter -> (the default's value as text, where it is said) for the launch's arguments that
    name an int-defaulted parameter of the launching function. The launch's place names its file as the
    module's own (`ops.py:41`): it is read beside `finding_file`."""
    where = getattr(launch, "where", "")
    args: Mapping[str, str] = getattr(launch, "args", {})
    file_text, _, line_text = where.rpartition(":")
    path = finding_file.parent / Path(file_text).name
    if not line_text.isdigit() or not path.is_file():
        return {}
    function = enclosing_function(path, int(line_text))
    kernel = getattr(launch, "kernel", "")
    if function is None or not kernel or not any(is_named(node, kernel) for node in ast.walk(function)):
        return {}  # no launch of this kernel there: another module of that name holds it
    try:
        numbers = module_numbers(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return {}
    defaults = _int_defaults(function, numbers)
    reassigned = assigned_names(function)
    out: dict[str, tuple[str, str]] = {}
    for param, text in args.items():
        if text in defaults and text not in reassigned:
            value, line = defaults[text]
            out[param] = (str(value), f"`{text}={value}` at {file_text}:{line}")
    return out if out and _keeps_multiples(launch, args, {p: int(v) for p, (v, _) in out.items()}) else {}


def _keeps_multiples(launch: Any, args: Mapping[str, str], defaults: dict[str, int]) -> bool:
    """Whether the defaults (with the launch's literals) keep every `a % b == 0` the host asserts."""
    def value(param: str) -> int | None:
        if param in defaults:
            return defaults[param]
        if param.isdigit():
            return int(param)
        literal = launch_literal(args[param]) if param in args else None
        return literal if isinstance(literal, int) and not isinstance(literal, bool) else None

    for a, b in getattr(launch, "multiples", {}):
        if a not in defaults and b not in defaults:
            continue
        left, right = value(a), value(b)
        if left is not None and right is not None and right > 0 and left % right:
            return False
    return True


def _int_defaults(function: ast.FunctionDef, numbers: Mapping[str, int | float]) -> dict[str, tuple[int, int]]:
    """Parameter -> (its int default, its line) for the parameters whose default folds to a positive int."""
    positional = [*function.args.posonlyargs, *function.args.args]
    pairs = list(zip(positional[len(positional) - len(function.args.defaults):], function.args.defaults))
    pairs += [(arg, d) for arg, d in zip(function.args.kwonlyargs, function.args.kw_defaults) if d is not None]
    out: dict[str, tuple[int, int]] = {}
    for arg, default in pairs:
        value = _folded(default, numbers)
        if value is not None and value > 0:
            out[arg.arg] = (value, arg.lineno)
    return out


def _folded(node: ast.expr, numbers: Mapping[str, int | float]) -> int | None:
    """An int the expression always is: a literal (never a bool), a module number, or arithmetic of them."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.Name):
        number = numbers.get(node.id)
        return number if isinstance(number, int) and not isinstance(number, bool) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _FOLDED:
        left, right = _folded(node.left, numbers), _folded(node.right, numbers)
        if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0) \
                or (isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= right <= 16):
            return None
        return _FOLDED[type(node.op)](left, right)
    return None
