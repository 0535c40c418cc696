"""A wrapped fix is laid out in a window of the file around its statement (a huge file's fixes
each made a copy of the whole edited file): the edit must be the one the whole text gives,
also where the statement runs past the first window and the window has to widen."""

from __future__ import annotations

import pytest

from tritonlint.diagnostics import Edit
from tritonlint.fixing import edits
from tritonlint.fixing.edits import _wrapped_whole, wrapped_edit


def _file(arguments: int, after: int) -> tuple[str, Edit, int]:
    """A kernel body whose `tl.load` call is spread over `arguments` lines, `after` lines below
    it; the edit adds a long mask after the call's first argument, on its line."""
    head = "import triton\n\n\ndef kernel(x_ptr, n, BLOCK: tl.constexpr):\n    offsets = tl.arange(0, BLOCK)\n"
    call = "    values = tl.load(\n" + "".join(f"        x_ptr + offsets + {i},\n" for i in range(arguments)) + "    )\n"
    tail = "".join(f"    y{i} = values + {i}\n" for i in range(after))
    text = head + call + tail
    statement = len(head)
    start = text.index("offsets + 0,") + len("offsets + 0,")
    content = " mask=(offsets < n) & (offsets + 1 < n) & (offsets + 2 < n) & (offsets + 3 < n),"
    return text, Edit(start, start, content), statement


@pytest.mark.parametrize(("arguments", "after"), [(1, 0), (1, 40), (3, 2000), (400, 5), (2000, 0)])
def test_the_windowed_wrap_gives_the_whole_texts_edit(arguments: int, after: int) -> None:
    text, edit, statement = _file(arguments, after)
    assert wrapped_edit(text, edit, statement, 88) == _wrapped_whole(text, edit, statement, 88)


def test_a_statement_longer_than_the_first_window_widens_it(monkeypatch: pytest.MonkeyPatch) -> None:
    text, edit, statement = _file(400, 5)  # the call runs about 12,000 characters past the edit
    assert edit.end + edits._WINDOW < text.index("    )\n")
    windows: list[int] = []
    original = edits.laid_region

    def spy(window: str, start: int, end: int, limit: int) -> object:
        windows.append(len(window))
        return original(window, start, end, limit)

    monkeypatch.setattr(edits, "laid_region", spy)
    wrapped = wrapped_edit(text, edit, statement, 88)
    assert len(windows) > 1
    assert wrapped == _wrapped_whole(text, edit, statement, 88)
    assert wrapped != edit  # the long line was wrapped


def test_a_statement_joined_whole_is_read_to_its_end() -> None:
    """A long first line of a statement over many lines is laid out with the whole statement joined:
    what the wrapping writes depends on the statement's last line, far past the first window."""
    head = "def kernel(x_ptr, n, BLOCK: tl.constexpr):\n    offsets = tl.arange(0, BLOCK)\n"
    terms = "".join(f"        + offsets * {i}\n" for i in range(1, 400))
    text = head + "    values = tl.load(x_ptr + offsets) + tl.sum(\n        offsets\n" + terms + "    )\n    y = 1\n"
    start = text.index("x_ptr + offsets)") + len("x_ptr + offsets")
    edit = Edit(start, start, ", mask=(offsets < n) & (offsets + 1 < n) & (offsets + 2 < n) & (offsets + 3 < n)")
    assert edit.end + edits._WINDOW < len(text)
    whole = _wrapped_whole(text, edit, len(head), 88)
    assert whole != edit
    assert wrapped_edit(text, edit, len(head), 88) == whole
