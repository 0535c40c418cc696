"""`may_launch`, the textual test before any host code is parsed: a few names are searched with
`str.find`, many with one pattern; both must answer alike."""

from __future__ import annotations

import itertools

import pytest

from tritonlint.semantic.host.launches import may_launch

# Names that occur in none of the texts below: enough of them send `may_launch` down its pattern path.
_ABSENT = [f"absent_kernel_{number}" for number in range(40)]

_TEXTS = [
    "add_kernel[grid](x, y, out, n)",
    "add_kernel [grid](x)",
    "add_kernel\n    [grid](x)",
    "fused_add_kernel[grid](x)",  # a longer name ending in it: not a launch of it
    "add_kernel2[grid](x)",  # a longer name starting with it: not a launch of it
    "ops.add_kernel[grid](x)",  # an attribute: the name itself, after a dot
    "handle = add_kernel.warmup(x, grid=(1,))",
    "handle = add_kernel . warmup(x, grid=(1,))",
    "add_kernel.warmups(x)",  # not `.warmup` itself
    "add_kernel(x)",  # a plain call: no launch
    "table[add_kernel]",  # read, not launched
    "# add_kernel[grid] in a comment still counts: the test is textual",
    "x = add_kernelish + add_kernel\t[grid]",
    "ｍul_kernel[grid](x)",  # a full-width letter: another name to a word boundary
    "mul_kernel[grid]; add_kernel(x)",
    "",
]

_NAMES = [["add_kernel"], ["mul_kernel"], ["add_kernel", "add_kernel2"], ["add", "add_kernel"], ["kernel"]]


@pytest.mark.parametrize(("text", "names"), list(itertools.product(_TEXTS, _NAMES)))
def test_a_few_names_answer_as_the_pattern_does(text: str, names: list[str]) -> None:
    assert may_launch(text, names) == may_launch(text, names + _ABSENT)


@pytest.mark.parametrize(("text", "expected"), [
    ("add_kernel[grid](x)", True),
    ("add_kernel .warmup(x, grid=g)", True),
    ("fused_add_kernel[grid](x)", False),
    ("add_kernel2[grid](x)", False),
    ("add_kernel(x)", False),
    ("y = 1\nadd_kernel(x)\nadd_kernel  [g](x)", True),  # the second occurrence launches
])
def test_a_launch_is_a_whole_name_then_a_subscript_or_warmup(text: str, expected: bool) -> None:
    assert may_launch(text, ["add_kernel"]) is expected
    assert may_launch(text, ["add_kernel", *_ABSENT]) is expected
