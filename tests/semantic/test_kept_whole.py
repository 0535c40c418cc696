"""`kept_whole`: an extent is kept a multiple of a block when a test divides it by every value the
block can take; a value no test divides by settles the answer before the extent's aliases are read."""

from __future__ import annotations

import ast

import pytest

from tritonlint.semantic.host import host_guards
from tritonlint.semantic.host.host_guards import Body, kept_whole

_HOST = """\
M, K = x.shape
n = K
"""


def _body() -> Body:
    return Body(ast.parse(_HOST).body)


def test_a_fact_on_an_alias_keeps_the_extent_whole() -> None:
    facts = [("x.shape[1]", "64", "ops.py:3")]
    assert kept_whole("n", [("64", ())], _body(), 10, facts) == "ops.py:3"


def test_each_value_needs_its_own_test() -> None:
    facts = [("K", "64", "ops.py:3")]
    assert kept_whole("K", [("64", ()), ("128", ())], _body(), 10, facts) == ""
    path = (("K", "128", "ops.py:7"),)
    assert kept_whole("K", [("64", ()), ("128", path)], _body(), 10, facts) == "ops.py:3, ops.py:7"


def test_a_value_no_test_divides_by_reads_no_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []

    def counted(text: str, body: Body, line: int) -> set[str]:
        read.append(text)
        return {text}

    monkeypatch.setattr(host_guards, "aliases", counted)
    facts = [("K", "64", "ops.py:3")]
    assert kept_whole("K", [("64", ()), ("256", ())], _body(), 10, facts) == ""
    assert read == []  # 256 divides nothing: the aliases of `K` were never needed
    assert kept_whole("K", [("64", ())], _body(), 10, facts) == "ops.py:3"
    assert read == ["K"]
