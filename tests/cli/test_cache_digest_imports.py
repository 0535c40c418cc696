"""The cache key names the neighbours a file imports from (`from <...>module import`): found by one pass
over each text, with the answers the per-module search gave (`\\bfrom\\s+[\\w.]*\\bmodule\\s+import\\b`)."""

from __future__ import annotations

import re

import pytest

from tritonlint import runner


def searched(text: str, module: str) -> bool:
    """The definition: the search the one pass replaces."""
    return re.search(rf"\bfrom\s+[\w.]*\b{re.escape(module)}\s+import\b", text) is not None


TEXTS = [
    "from ops import a", "from .ops import a", "from ..ops import a", "from pkg.sub.ops import (a,\n b)",
    "from x.myops import a", "from my_ops import a", "xfrom ops import a", "_from ops import a",
    "éfrom ops import a", "é from ops import a", "from ops.sub import a", "from\n  ops   import a",
    "from a.from import x import y", "from from import a", "import ops", "from ops importx",
    "from x-y import a", "from a.b import c", "# taken from ops import rules\n",
]
MODULES = ["ops", "sub", "from", "b", "a.b", "x-y", "y", "import", "myops", "my_ops"]


@pytest.mark.parametrize("text", TEXTS)
def test_imports_from_answers_as_the_search(text: str) -> None:
    runner._imported_tails.cache_clear()
    assert [runner._imports_from(text, module) for module in MODULES] == [searched(text, m) for m in MODULES]


def test_a_module_named_after_the_last_part_of_a_path_only() -> None:
    assert runner._imports_from("from pkg.ops import a", "ops")
    assert not runner._imports_from("from pkg.ops import a", "pkg")
    assert runner._imports_from("from pkg.ops import a", "pkg.ops")
    assert not runner._imports_from("from pkg.xops import a", "ops")
