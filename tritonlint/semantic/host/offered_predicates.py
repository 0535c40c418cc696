"""Predicates a module offers beside a launching function: `gemv(x, w)` launches the kernel, and
`gemv_supported(x, w)`, a plain boolean function of the same module over the same host values,
returns `... and k % block_k == 0`. The callers (often in other packages' modules, which the
launch model does not read) are meant to test the predicate before they call the launcher: the
shapes it refuses are shapes the package does not launch.

Nothing at the launch proves the callers test it, so these pairs are not `Launch.multiples` (which
`check` trusts to drop a finding): they go to `Launch.offered`, which only the witness reads, to mark
a confirmation that needs a refused shape `latent`.

A predicate counts when both it and the launching function are public (no leading `_`: offered to
other modules), the predicate is plain (`predicates.py`: assignments ending in `return <test>`),
and each of its parameters is a value the launching function holds under the same name before the
launch (a parameter, or a local assigned earlier: `M, K = a.shape` beside `supported(M, N, K)`).
Its divisibility conjuncts are read in the launch's terms (both sides inlined through the launching
body) and matched to the launch's arguments; a literal divisor matches a block argument every value
of which (through a config chooser's returns, module constants included) is that literal.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping

from tritonlint.semantic.host.host_guards import (
    Body,
    aliases,
    choices,
    compact_text,
    held,
    inline,
    parameter_names,
)

# (a, b) kernel parameters -> the predicate's test, its place, for notes
Offered = dict[tuple[str, str], str]


def _held_names(function: ast.FunctionDef, body: Body, line: int) -> set[str]:
    """The names the launching function holds a value under at `line`: its parameters, and the
    locals it assigns before the line."""
    names = set(parameter_names(function))
    names |= {name for name, entries in body.assigns.items() if any(entry[0] < line for entry in entries)}
    return names


def offered_multiples(function: ast.FunctionDef | None, functions: Mapping[str, ast.FunctionDef],
                      expand: Callable[[ast.expr], ast.expr], args: Mapping[str, str], launching_body: Callable[[], Body],
                      line: int, display: str, constants: Mapping[str, int]) -> Offered:
    """(a, b) kernel parameters whose arguments a public predicate of the module, over the launching
    function's own values, requires multiples (see the module's docstring); {} when none. The
    launching body is read only when the module has a candidate predicate (most have none)."""
    if function is None or function.name.startswith("_"):
        return {}
    held_names: set[str] | None = None
    found: Offered = {}
    for name, candidate in functions.items():
        if candidate is function or name.startswith("_") or not _returns_test(candidate):
            continue
        params = parameter_names(candidate)
        if held_names is None:
            body = launching_body()
            held_names = _held_names(function, body, line)
        if not params or not set(params) <= held_names:
            continue
        call = ast.Call(ast.Name(name, ast.Load()), [], [ast.keyword(p, ast.Name(p, ast.Load())) for p in params])
        expanded = expand(call)
        if expanded is call:
            continue  # not plain
        where = f"the module's predicate `{name}` requires it ({display}:{candidate.lineno})"
        mods = held(expanded, True)
        # The predicate's own spelling for notes (`k % block_k`), when its conjuncts map one to one.
        last = candidate.body[-1]
        own = held(last.value, True) if isinstance(last, ast.Return) and last.value is not None else []
        spelled = own if len(own) == len(mods) else mods
        for mod, spelling in zip(mods, spelled):
            for pair in _pairs(mod, args, body, line, display, functions, constants):
                found.setdefault(pair, f"`{ast.unparse(spelling)} == 0`: {where}")
    return found


def _returns_test(function: ast.FunctionDef) -> bool:
    """Whether the function's last statement returns a comparison or a boolean combination (cheap, before expanding)."""
    last = function.body[-1] if function.body else None
    return isinstance(last, ast.Return) and isinstance(last.value, (ast.BoolOp, ast.Compare, ast.UnaryOp))


def _pairs(mod: ast.BinOp, args: Mapping[str, str], body: Body, line: int, display: str,
           functions: Mapping[str, ast.FunctionDef], constants: Mapping[str, int]) -> list[tuple[str, str]]:
    """The (a, b) launch parameters `mod` (`x % y`, in the launching function's names) speaks of."""
    left = compact_text(inline(mod.left, body, line))
    right = compact_text(inline(mod.right, body, line))
    sizes = [a for a, text in args.items() if left in aliases(text, body, line)]
    if not sizes:
        return []
    if re.fullmatch(r"\d+", right):
        blocks = [b for b, text in args.items() if _always(text, int(right), body, line, display, functions, constants)]
    else:
        blocks = [b for b, text in args.items() if right in aliases(text, body, line)]
    return [(a, b) for a in sizes for b in blocks if a != b]


def _always(text: str, value: int, body: Body, line: int, display: str,
            functions: Mapping[str, ast.FunctionDef], constants: Mapping[str, int]) -> bool:
    """Whether the host text is `value` at every path: a literal, a module constant, or a block every
    return of a config chooser gives that value."""
    if text == str(value) or constants.get(text) == value:
        return True
    if not re.fullmatch(r"[^\W\d]\w*", text) or body.value(text, line) is None:
        return False
    options = choices(text, body, line, functions, display, constants=constants)
    return bool(options) and all(option == str(value) for option, _ in options or ())
