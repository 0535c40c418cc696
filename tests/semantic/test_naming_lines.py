"""The lines that may name a kernel: a whole word equal to one of the names (`_naming_lines`), found by a
search that skips to the names when they are few, with the answers of testing every word of the text."""

from __future__ import annotations

import re

import pytest

from tritonlint.semantic.host import launches

TEXT = '''import triton
from .kernels import k, kk as k2
def run(x):
    k[grid](x)  # k
    kk[grid](x); xk[grid](x); k_[grid](x); _k(x)
    k2.warmup(x, grid=g)
    y = "k"; éa = 1; aé = k
k'''


def every_word(text: str, words: list[str]) -> list[int]:
    """The definition: each `\\w+` word of the text tested against the set."""
    return [m.start() for m in re.finditer(r"\w+", text) if m.group() in set(words)]


@pytest.mark.parametrize("words", [["k"], ["kk", "k"], ["k2", "k_", "xk"], ["é", "a", "aé"], ["x"], ["absent"],
                                   ["a.b", "k"], [f"name{i}" for i in range(40)] + ["k"]])
def test_whole_words_as_every_word(words: list[str]) -> None:
    assert launches._whole_words_at(TEXT, tuple(sorted(set(words)))) == every_word(TEXT, words)


def test_naming_lines_of_a_kernel_name() -> None:
    assert launches._naming_lines(TEXT, ["k"]) == [2, 4, 7, 8]
    assert launches._naming_lines(TEXT, ["kk"]) == [2, 5, 7]  # (7: a non-ASCII line may spell any name)


@pytest.mark.parametrize("words", [["k"], ["kk"], ["k2", "xk"], ["absent"], [f"name{i}" for i in range(40)] + ["k"]])
def test_naming_lines_alike_whatever_ends_the_lines(words: list[str]) -> None:
    # `\n` alone: newlines counted between the words found; `\r\n` or `\r`: the table of line starts.
    ascii_text = TEXT.replace("éa", "ea").replace("aé", "ae")
    for text in (TEXT, ascii_text, "\n\n" + ascii_text + "\n"):
        expected = [text[:offset].count("\n") + 1 for offset in every_word(text, words)]
        if not text.isascii():
            expected += [7]  # the line of `é`: a non-ASCII line may spell any name
        expected = sorted(set(expected))
        assert launches._naming_lines(text, words) == expected
        assert launches._naming_lines(text.replace("\n", "\r\n"), words) == expected
        assert launches._naming_lines(text.replace("\n", "\r"), words) == expected
