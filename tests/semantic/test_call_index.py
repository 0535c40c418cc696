"""`CallIndex` (the calls of a module's private functions found in one walk, statements naming none
skipped) gives `caller_facts` what the walk per function gives."""

from __future__ import annotations

import ast
import re

from tritonlint.semantic.host.host_guards import CallIndex, caller_facts


def naming_lines(text: str, names: list[str]) -> list[int]:
    """The lines holding one of `names` as a word (what the launch finder gives the index)."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if any(re.search(rf"\b{name}\b", line) for name in names)]


MODULE = '''
import torch

def _launch(x, w):
    n = x.shape[-1]
    return n


def _passed(x):
    return x


def _decorated(x):
    return x


def _mixed(x):
    return x


def _valued(x):
    return x


def run(x, w):
    if x.shape[-1] % 128 == 0:
        _launch(x, w)
    assert w.shape[0] % 64 == 0
    if w.shape[0] % 16 != 0:
        raise ValueError
    _mixed(w)
    _valued(w)
    return [_passed]


def other(y):
    if y.shape[-1] % 128 == 0 and y.shape[0] % 2 == 0:
        _launch(y, None)
    else:
        pass
    try:
        _mixed(y)
    except ValueError:
        _mixed(
            y)
    return _mixed(y) if y is not None else None


class Holder:
    @staticmethod
    def use(z):
        if z.shape[-1] % 128 == 0:
            return _launch(z, None)
        return None


@torch.no_grad
def wrapped(v, hook=_decorated, other=_valued):
    return hook(v)
'''


def _facts(tree: ast.Module, index: CallIndex | None) -> dict[str, object]:
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    return {name: caller_facts(tree, function, "m.py", None, index) for name, function in functions.items()}


def test_the_index_gives_every_function_the_facts_of_its_own_walk() -> None:
    tree = ast.parse(MODULE)
    names = {"_launch", "_passed", "_decorated", "_mixed", "_valued"}
    walked = _facts(tree, None)
    assert walked["_launch"], "the module's callers test the first dimension: the walk finds facts"
    # passed as values (a default is a reference): no facts, though `_valued` is called after an assert
    assert walked["_passed"] == walked["_decorated"] == walked["_valued"] == []
    assert _facts(tree, CallIndex(tree, names)) == walked
    assert _facts(tree, CallIndex(tree, names, naming_lines(MODULE, sorted(names)))) == walked


def test_lines_naming_none_of_the_functions_are_skipped() -> None:
    tree = ast.parse(MODULE)
    index = CallIndex(tree, {"_launch"}, [])
    assert index.found("_launch") == ([], [])
    whole = CallIndex(tree, {"_launch"}, naming_lines(MODULE, ["_launch"]))
    assert len(whole.found("_launch")[0]) == 3
