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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tritonlint.witness.analysis import module_numbers
from tritonlint.witness.launcher_values import default_values, int_values, passed_argument
from tritonlint.witness.left_defaults import assigned_names, enclosing_function, is_named
from tritonlint.witness.package_files import package_root, parsed_file
from tritonlint.witness.synth import launch_literal


def launcher_tile_defaults(launch: Any, finding_file: Path) -> dict[str, tuple[str, str]]:
    """Kernel parameter -> (the default's value as text, where it is said) for the launch's arguments that
    name an int-defaulted parameter of the launching function. The launch's place names its file as the
    module's own (`ops.py:41`): it is read beside `finding_file`."""
    found = _launcher(launch, finding_file)
    if found is None:
        return {}
    file_text, _function, defaults = found
    out = {param: (str(defaults[text][0]), f"`{text}={defaults[text][0]}`, the default at {file_text}:{defaults[text][1]}")
           for param, text in getattr(launch, "args", {}).items() if text in defaults}
    return out if out and _keeps_multiples(launch, {p: int(v) for p, (v, _) in out.items()}) else {}


def caller_tile_values(launch: Any, finding_file: Path, limit: int = 2) -> list[dict[str, tuple[str, str]]]:
    """Up to `limit` other sets of those parameters' values, one per call of the launching function in the
    package that passes an int literal for one of them (`chunked(q, k, BTS=64)`: the others at their
    defaults), in the order of the package's files; each kernel parameter -> (its value, the call's place)."""
    found = _launcher(launch, finding_file)
    if found is None:
        return []
    _, function, defaults = found
    by_param = {text: param for param, text in getattr(launch, "args", {}).items() if text in defaults}
    if not by_param:
        return []
    seen = {tuple(sorted((p, defaults[t][0]) for t, p in by_param.items()))}
    out: list[dict[str, tuple[str, str]]] = []
    root = package_root(finding_file)
    for file in sorted(root.rglob("*.py")):
        tree = parsed_file(str(file)) if _mentions(file, function.name) else None
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)) if tree is not None else ():
            if not is_named(call.func, function.name) or any(isinstance(a, ast.Starred) for a in call.args):
                continue
            passed = {t: passed_argument(call, function, t) for t in by_param}
            values = {t: defaults[t][0] if given is None else _single(int_values(given)) for t, given in passed.items()}
            key = tuple(sorted((by_param[t], v) for t, v in values.items() if v is not None))
            if None in values.values() or key in seen:
                continue
            seen.add(key)
            where = f"{file.name}:{call.lineno}"
            chosen = {by_param[t]: (str(v), f"`{t}={v}`, passed at {where}") for t, v in values.items() if v is not None}
            if _keeps_multiples(launch, {p: int(v) for p, (v, _) in chosen.items()}):
                out.append(chosen)
            if len(out) >= limit:
                return out
    return out


def _mentions(file: Path, name: str) -> bool:
    try:
        return name in file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _launcher(launch: Any, finding_file: Path) -> tuple[str, ast.FunctionDef, dict[str, tuple[int, int]]] | None:
    """(the launch's file as its place names it, the launching function, its int defaults not stored to)."""
    where = getattr(launch, "where", "")
    file_text, _, line_text = where.rpartition(":")
    path = finding_file.parent / Path(file_text).name
    if not line_text.isdigit() or not path.is_file():
        return None
    function = enclosing_function(path, int(line_text))
    kernel = getattr(launch, "kernel", "")
    if function is None or not kernel or not any(is_named(node, kernel) for node in ast.walk(function)):
        return None  # no launch of this kernel there: another module of that name holds it
    try:
        numbers = module_numbers(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    reassigned = assigned_names(function)
    defaults = {name: found for name, found in _int_defaults(function, numbers).items() if name not in reassigned}
    return file_text, function, defaults


def _keeps_multiples(launch: Any, defaults: dict[str, int]) -> bool:
    """Whether the values (with the launch's literals) keep every `a % b == 0` the host asserts."""
    args: Mapping[str, str] = getattr(launch, "args", {})
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
    """Parameter -> (its int default, its line) for the parameters whose default folds to one positive int."""
    out: dict[str, tuple[int, int]] = {}
    for name, (values, line) in default_values(function, numbers).items():
        value = _single(values)
        if value is not None and value > 0:
            out[name] = (value, line)
    return out


def _single(values: list[int] | None) -> int | None:
    """The one int an expression always is; None for a conditional's two or none."""
    return values[0] if values is not None and len(values) == 1 else None
