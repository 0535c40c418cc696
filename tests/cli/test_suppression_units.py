"""tritonlint.suppressions function by function: the exact values each returns (the mutation run,
docs/testing/mutation.md, found what the CLI-level tests in test_suppressions.py leave open)."""

from __future__ import annotations

from tritonlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from tritonlint.suppressions import (
    ADDED_REASON,
    Suppression,
    add_suppressions,
    file_suppressions,
    may_hold_suppressions,
    suppressions_in_line,
    unused_suppressions,
)


def _finding(line: int, code: str = "TL101", end_line: int | None = None) -> Diagnostic:
    return Diagnostic(code, "n", "m", "k.py", line, 1, end_line or line, 2)


def test_suppressions_in_line_values() -> None:
    assert suppressions_in_line(7, "x = 1  # tritonlint: ignore[TL101, TL102] padded  # noqa: TL102") == [
        Suppression(7, frozenset({"TL101", "TL102"}), "padded"),
        Suppression(7, frozenset({"TL102"}), ""),
    ]
    assert suppressions_in_line(3, "x  # noqa") == [Suppression(3, None, "")]
    assert suppressions_in_line(3, "x = 1") == []


def test_file_suppressions_values() -> None:
    bare = "import triton\n# a comment first\n# tritonlint: noqa\n"
    assert file_suppressions(bare) == Suppression(3, None, "")
    listed = "# other\n# tritonlint: noqa: TL101\nx = 1\n# tritonlint: noqa: tl102\n"
    assert file_suppressions(listed) == Suppression(0, frozenset({"TL101", "TL102"}), "")
    # The text of a file-level noqa inside a docstring is no comment: nothing is suppressed.
    assert file_suppressions('"""\n# tritonlint: noqa\n"""\nx = 1\n') is None
    assert file_suppressions("x = 1  # noqa\n") is None


def test_may_hold_suppressions() -> None:
    assert may_hold_suppressions(b"x = 1  # tritonlint: ignore[TL101]") is True
    assert may_hold_suppressions(b"x = 1  # NOQA: TL101") is True
    assert may_hold_suppressions(b"x = 1  # noqa") is False  # no TL code: not ours
    assert may_hold_suppressions(b"TL101 = 1") is False
    assert may_hold_suppressions(b"x = 1") is False


def test_unused_directive_after_other_comment_text() -> None:
    """A directive that is not the comment's first text: offsets, columns, message and fix exact."""
    text = "x = 1\ny = 2  # why # tritonlint: ignore[TL101, TL102] padded\n"
    (d,) = unused_suppressions("k.py", text, [(2, "TL101")])
    start = text.index("# tritonlint")
    end = text.index("padded") + len("padded")
    assert (d.code, d.name, d.line, d.column, d.end_line, d.end_column) == (
        "TL100", "unused-suppression", 2, start - 6 + 1, 2, end - 6 + 1)
    assert (d.start_offset, d.end_offset) == (start, end)
    assert d.message == "unused suppression `# tritonlint: ignore[TL101, TL102] padded` (unused: TL102)"
    assert d.notes == ("reason given: padded",)
    assert d.fix == Fix("Remove the unused codes", Applicability.SAFE,
                        (Edit(start, end, "# tritonlint: ignore[TL101] padded"),))


def test_unused_noqa_codes_and_a_bare_noqa_before_them() -> None:
    text = "y = 2  # noqa # noqa: TL101, TL102, E501\n"
    (d,) = unused_suppressions("k.py", text, [])  # the bare noqa is never ours to report
    start = text.index("# noqa: TL101")
    assert (d.start_offset, d.end_offset, d.column) == (start, len(text) - 1, start + 1)
    assert d.message == "unused suppression `# noqa: TL101, TL102, E501` (unused: TL101, TL102)"
    assert d.notes == ()
    assert d.fix == Fix("Remove the unused codes", Applicability.SAFE, (Edit(start, len(text) - 1, "# noqa: E501"),))
    (partial,) = unused_suppressions("k.py", "y  # noqa: TL101, TL102\n", [(1, "TL102")])
    assert partial.fix is not None and partial.fix.edits == (Edit(3, 23, "# noqa: TL102"),)


def test_every_unused_directive_of_a_file_is_reported() -> None:
    text = "a  # tritonlint: ignore[TL101]\nb  # tritonlint: ignore[TL102]\nc  # tritonlint: ignore\n"
    found = unused_suppressions("k.py", text, [(1, "TL101")], enabled=lambda code: code != "TL102")
    assert [(d.line, d.notes) for d in found] == [(2, ("TL102 is not enabled by the configuration",)), (3, ())]
    assert found[1].message == "unused blanket suppression `# tritonlint: ignore`: nothing on this line is reported"
    line3 = text.index("c  #")
    assert found[1].fix == Fix("Remove the unused suppression", Applicability.SAFE, (Edit(line3 + 1, len(text) - 1, ""),))


def test_removal_takes_exactly_the_blanks_before_the_directive() -> None:
    for text, start in [("X = 1X  # tritonlint: ignore[TL101]", 6), ("x = 1 # noqa: TL101", 5),
                        (" # tritonlint: ignore[TL101]", 0), ("# tritonlint: ignore[TL101]\nx = 1 ", 0)]:
        (d,) = unused_suppressions("k.py", text, [])
        assert d.fix is not None and d.fix.edits[0].start == start and d.fix.edits[0].content == "", text


def test_add_suppressions_exact_text() -> None:
    text = "a = X\nb = 2\nc = 3"  # no newline at the end: the last line still gets its comment
    diagnostics = [_finding(1), _finding(1, "TL102"), Diagnostic("TL100", "u", "m", "k.py", 2, 1, 2, 2),
                   _finding(3)]
    fixed, count = add_suppressions(text, diagnostics, reason="why")
    assert (fixed, count) == ("a = X  # tritonlint: ignore[TL101,TL102] why\nb = 2\n"
                              "c = 3  # tritonlint: ignore[TL101] why", 2)
    assert add_suppressions("x = 1\n", [_finding(1)])[0] == f"x = 1  # tritonlint: ignore[TL101] {ADDED_REASON}\n"


def test_add_suppressions_line_length_boundaries() -> None:
    comment = "  # tritonlint: ignore[TL101] why"
    first, last = "f(a,", " b)"  # the last line is one shorter
    text = f"{first}\n{last}\n"
    # Exactly at the limit on the first line: it stays there.
    assert add_suppressions(text, [_finding(1, end_line=2)], "why", line_length=len(first + comment))[0] == \
        f"{first}{comment}\n{last}\n"
    # One over on the first line, exactly at the limit on the last: it moves to the last line.
    assert add_suppressions(text, [_finding(1, end_line=2)], "why", line_length=len(first + comment) - 1)[0] == \
        f"{first}\n{last}{comment}\n"
    # A one-line finding over the limit: the reason is cut to its part before the colon.
    long = "x = 1"
    assert add_suppressions(f"{long}\n", [_finding(1)], "TODO: more words", line_length=len(long) + 10)[0] == \
        f"{long}  # tritonlint: ignore[TL101] TODO\n"
    exact = f"{long}  # tritonlint: ignore[TL101] TODO: w"
    assert add_suppressions(f"{long}\n", [_finding(1)], "TODO: w", line_length=len(exact))[0] == f"{exact}\n"


def test_a_noqa_keeps_its_other_codes_in_their_order() -> None:
    text = "y  # noqa: E501, TL101, W291\n"
    (d,) = unused_suppressions("k.py", text, [])
    assert d.fix is not None and d.fix.edits == (Edit(3, len(text) - 1, "# noqa: E501, W291"),)
