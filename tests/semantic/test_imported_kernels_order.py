"""A neighbour's imports of a file's kernels are read in `ast.walk`'s order (breadth first) though
only statements are walked (file_launches.imported_kernels, engine.importing_callers): where two
imports bind one local name, the deeper one is met last and wins, wherever it sits in the text."""

from __future__ import annotations

import ast

from tritonlint.semantic.host.file_launches import imported_kernels
from tritonlint.source.imports import statements_breadth_first

NEIGHBOUR = """
def launch_later(x):
    if x:
        from .kernels import second as k
        return k


from .kernels import first as k
from . import kernels
import pkg.kernels as kmod
"""


def test_the_deeper_import_wins_as_in_a_full_walk() -> None:
    tree = ast.parse(NEIGHBOUR)
    local, modules = imported_kernels(tree, "kernels", {"first": "first", "second": "second"})
    assert local == {"k": "second"}  # a source-order walk would leave `first`
    assert modules == {"kernels", "kmod"}


def test_statements_come_in_the_order_of_a_full_walk() -> None:
    tree = ast.parse(NEIGHBOUR)
    walked = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert [node for node in statements_breadth_first(tree) if isinstance(node, ast.stmt)] == walked


EVERY_BLOCK = """
import a
try:
    from .k import one
except ImportError as error:
    from .k import two
else:
    from .k import three
finally:
    import b
match value:
    case 1:
        from .k import four
    case _:
        while x:
            from .k import five
        else:
            with ctx() as c:
                from .k import six
for i in range(3):
    global g
else:
    class C:
        def m(self):
            async def inner():
                async for y in z:
                    from .k import seven
"""


def test_every_block_that_holds_statements_is_walked_in_a_full_walks_order() -> None:
    # `try`'s handlers, `match`'s cases, loops' `else`, `finally`, classes and nested functions: only
    # the fields that hold statements are read, in the order a full walk meets them.
    tree = ast.parse(EVERY_BLOCK)
    walked = [node for node in ast.walk(tree) if isinstance(node, (ast.stmt, ast.excepthandler, ast.match_case))]
    found = [node for node in statements_breadth_first(tree) if not isinstance(node, ast.Module)]
    assert found == walked
    assert len([node for node in found if isinstance(node, ast.ImportFrom)]) == 7
