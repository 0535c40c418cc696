"""`bound_arguments`: a helper call's arguments by parameter, as Python binds them, or None where
binding them would need the code to run. Every rule that reads a helper through its call uses it."""

from __future__ import annotations

import libcst as cst
import pytest

from tritonlint.source.names import code_of
from tritonlint.source.syntax import bound_arguments

HELPER = cst.ensure_type(cst.parse_statement("def f(p, n, BLOCK=16, other=0.0):\n    pass\n"), cst.FunctionDef)


def bound(call: str, defaults: bool = False) -> dict[str, str] | None:
    found = bound_arguments(HELPER, cst.ensure_type(cst.parse_expression(call), cst.Call), defaults)
    return None if found is None else {name: code_of(value) for name, value in found.items()}


def test_positional_then_keywords() -> None:
    assert bound("f(X + offs, n_cols, other=-1)") == {"p": "X+offs", "n": "n_cols", "other": "-1"}


def test_defaults_fill_only_when_asked() -> None:
    assert bound("f(X, N)") == {"p": "X", "n": "N"}
    assert bound("f(X, N)", defaults=True) == {"p": "X", "n": "N", "BLOCK": "16", "other": "0.0"}
    assert bound("f(X, BLOCK=32)", defaults=True) is None  # `n` has no default: the call would fail


@pytest.mark.parametrize("call", [
    "f(*args)",  # which parameter each element binds is known only at run time
    "f(X, *rest)",
    "f(X, **options)",
    "f(X, N, 8, 1.0, 7)",  # more positional arguments than parameters
    "f(X, N, mask=m)",  # a keyword the helper lacks
])
def test_calls_that_cannot_be_bound_without_running_them(call: str) -> None:
    assert bound(call) is None
    assert bound(call, defaults=True) is None
