"""A loop counted in tiles or down, or a `while` tile loop, whose body starts by deriving the offset
it walks from its index (`k = a + i * s`, `k = b - r`) walks that offset like the `range(a, b, s)`
it restates (tritonlint/semantic/binder.py:_Binder._derived_range): the loop's `iterable` is that
range and the derived name is the loop's target."""

from __future__ import annotations

import pytest

from tritonlint import engine
from tritonlint.config import Config
from tritonlint.semantic.context import KernelContext
from tritonlint.source.names import code_of

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef kernel(X, n, E, BLOCK: tl.constexpr):\n"


def _loop(body: str) -> tuple[str, frozenset[str]]:
    text = HEADER + body
    found, kernels = engine.parse_file(text)
    models, helpers, _ = engine.build_contexts("k.py", text, found, kernels, Config(), None, strict=True)
    context: KernelContext = models[0][1]
    try:
        loop = context.ir.loops[0]
        assert loop.iterable is not None
        return code_of(loop.iterable).replace(" ", ""), loop.targets
    finally:
        helpers.clear()


@pytest.mark.parametrize(("body", "walked", "targets"), [
    # counted in tiles, from 0 and from a start
    ("    for i in range(0, tl.cdiv(n, BLOCK)):\n        k = i * BLOCK\n        tl.load(X + k)\n",
     "range(0,n,BLOCK)", {"i", "k"}),
    ("    for i in range(tl.cdiv(n - E, BLOCK)):\n        k = E + i * BLOCK\n        tl.load(X + k)\n",
     "range(E,n,BLOCK)", {"i", "k"}),
    # counted down, to 0 and from a start
    ("    for r in range(n, 0, -BLOCK):\n        k = n - r\n        tl.load(X + k)\n",
     "range(0,n,BLOCK)", {"r", "k"}),
    ("    for r in range(n - E, 0, -BLOCK):\n        k = n - r\n        tl.load(X + k)\n",
     "range(E,n,BLOCK)", {"r", "k"}),
    # one derivation after another: a tile count counted down, then the offset
    ("    for r in range(tl.cdiv(n, BLOCK), 0, -1):\n        i = tl.cdiv(n, BLOCK) - r\n        k = i * BLOCK\n"
     "        tl.load(X + k)\n", "range(0,n,BLOCK)", {"r", "i", "k"}),
    # a `while` tile count whose body derives the offset
    ("    i = 0\n    while i < tl.cdiv(n, BLOCK):\n        k = i * BLOCK\n        tl.load(X + k)\n        i += 1\n",
     "range(0,n,BLOCK)", {"i", "k"}),
])
def test_the_derived_offset_walks_the_range_it_restates(body: str, walked: str, targets: set[str]) -> None:
    assert _loop(body) == (walked, frozenset(targets))


@pytest.mark.parametrize("body", [
    # the index is used again below the derivation: the loop is about tiles and their index both
    "    for i in range(0, tl.cdiv(n, BLOCK)):\n        k = i * BLOCK\n        tl.load(X + k + i)\n",
    # the derived name is assigned again in the body
    "    for i in range(0, tl.cdiv(n, BLOCK)):\n        k = i * BLOCK\n        k = k + 1\n        tl.load(X + k)\n",
    # the product's block is not the count's
    "    for i in range(0, tl.cdiv(n, BLOCK)):\n        k = i * E\n        tl.load(X + k)\n",
    # a count that is no tile count
    "    for i in range(0, n):\n        k = i * BLOCK\n        tl.load(X + k)\n",
])
def test_other_loops_keep_their_own_range(body: str) -> None:
    text = body.split("\n")[0]
    written = text[text.index(" in ") + 4:-1].replace(" ", "")
    assert _loop(body)[0] == written


def test_a_while_counter_is_the_loop_s_target_in_its_body() -> None:
    # `tok = tl.program_id(1)` before the loop: in the body, tok is the loop's target (as in
    # `for tok in range(pid1, total, step)`), not a second program tile
    text = HEADER + ("    tok = tl.program_id(1)\n    while tok < n:\n        tl.load(X + tok)\n"
                     "        tok += tl.num_programs(1)\n")
    found, kernels = engine.parse_file(text)
    models, helpers, _ = engine.build_contexts("k.py", text, found, kernels, Config(), None, strict=True)
    context = models[0][1]
    try:
        access = context.ir.accesses[0]
        assert context.ev.dims(access.pointer, access.order, access.path, access.loops) == {context.ir.loops[0].key}
    finally:
        helpers.clear()
