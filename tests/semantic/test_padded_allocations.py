"""padded_length: the host text X where every value a name holds before a launch has X elements or more."""

from __future__ import annotations

import ast
import textwrap

from tritonlint.semantic.host.padded_allocations import padded_length


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
