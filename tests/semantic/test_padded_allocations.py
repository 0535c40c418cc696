"""padded_length: the host text X where every value a name holds before a launch has X elements or more."""

from __future__ import annotations

import ast
import textwrap

from tritonlint.semantic.host.padded_allocations import assignments, padded_length


def _length(body: str, before: int = 100) -> str | None:
    return padded_length(ast.parse(textwrap.dedent(body)).body, "p", before)


def test_the_padding_idiom_is_read() -> None:
    assert _length("""
        if t.shape[0] < H:
            p = torch.zeros(H, device=t.device)
            p[: t.shape[0]] = t
        else:
            p = t
    """) == "H"
    assert _length("""
        if H <= t.numel():
            p = t
        else:
            p = t.new_zeros((H,))
    """) == "H"


def test_what_is_not_padding() -> None:
    assert _length("p = torch.zeros(M, N)") is None  # two dimensions
    assert _length("""
        if ready:
            p = torch.zeros(H)
        else:
            p = t
    """) is None  # nothing shows `t` holds H
    assert _length("""
        if t.shape[0] >= H:
            p = torch.zeros(H)
        else:
            p = t
    """) is None  # the test sits on the wrong side
    assert _length("""
        p = torch.zeros(H)
        p = torch.zeros(K)
    """) is None  # two lengths
    assert _length("p = t") is None
    assert _length("p = torch.zeros(H)", before=1) is None  # assigned after the launch


INDEXED = """
q = p = torch.zeros(H)
if t.shape[0] < H:
    r = torch.zeros(H)
    for i in range(2):
        s = torch.zeros(K)
else:
    r = t
    try:
        s = torch.zeros(H)
    except ValueError:
        pass
s = s
"""


def test_a_scopes_assignments_read_once_give_the_same_lengths() -> None:
    # The launch finder reads a scope's assignments once for all its launch arguments (`assignments`):
    # each name's, with the tests around them, as the walk for that name alone finds them.
    statements = ast.parse(INDEXED).body
    indexed = assignments(statements)
    for name in ("p", "q", "r", "s", "t"):
        for before in (1, 3, 8, 100):
            assert padded_length(statements, name, before, indexed) == padded_length(statements, name, before)
    assert padded_length(statements, "r", 100, indexed) == "H"  # the test around `r = t` read too
