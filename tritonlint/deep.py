"""Deeply nested code: analysed again with room for deep recursion, else reported as TL001, never a crash."""

from __future__ import annotations

import ast
import functools
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from tritonlint.report import FileReport

# Room for a 10,000-term expression: the analysis recurses a few frames per level of nesting.
RECURSION_LIMIT = 60_000
# The C stack those frames need (generators and calls through C take some each); reserved, not used.
STACK_BYTES = 512 * 1024 * 1024

# Deeper than this, not tried again: libcst's parse of such an expression grows with the square of its
# depth (a 1,000-term sum: 2.4 s; 5,000 terms: over a minute), so it is reported at once instead.
MAX_DEPTH = 1500

Result = TypeVar("Result")
_ONE_AT_A_TIME = threading.Lock()  # the recursion limit is the interpreter's, not the thread's


class NestedTooDeep(Exception):
    """The analysis ran out of recursion on the code at `line`; `what` it was doing."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"nested too deeply to {what}")
        self.line = line
        self.what = what


def deeper(work: Callable[[], Result]) -> Result:
    """`work()` on a thread with a large stack and a high recursion limit; its exception is re-raised."""
    results: list[Result] = []
    errors: list[BaseException] = []

    def run() -> None:
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
        try:
            results.append(work())
        except BaseException as error:  # noqa: BLE001  (handed to the caller's thread)
            errors.append(error)
        finally:
            sys.setrecursionlimit(previous)

    with _ONE_AT_A_TIME:
        previous_size = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            thread = threading.Thread(target=run, name="tritonlint-deep")
            thread.start()
        finally:
            threading.stack_size(previous_size)
        thread.join()
    if errors:
        raise errors[0]
    return results[0]


def retried_deeper(check: Callable[..., FileReport]) -> Callable[..., FileReport]:
    """Wrap `check(path, text, ...)`, which raises NestedTooDeep: try again with room to recurse, and
    when that is not enough either, report the file as not checked (TL001) at the line it stopped."""

    @functools.wraps(check)
    def wrapper(path: str, *args: object, **kwargs: object) -> FileReport:
        try:
            return check(path, *args, **kwargs)
        except NestedTooDeep as error:
            first = error
        text = args[0] if args and isinstance(args[0], str) else ""
        depth, line = nesting(text)
        if depth is None or depth > MAX_DEPTH:
            levels = f"{depth} levels of nesting" if depth is not None else "more levels of nesting than that"
            reason = f"{first}: {levels}; tritonlint follows at most {MAX_DEPTH}"
            return FileReport(path, errors=(f"{path}:{line or first.line}: {reason}",), unchecked=True)
        try:
            return deeper(lambda: check(path, *args, **kwargs))
        except NestedTooDeep as error:
            reason = f"{error}: an expression or a chain of assignments deeper than tritonlint can follow"
            return FileReport(path, errors=(f"{path}:{error.line}: {reason}",), unchecked=True)
        except (RuntimeError, ValueError, MemoryError) as error:  # no thread, or no stack that large
            return FileReport(path, errors=(f"{path}:1: nested too deeply to analyse ({error})",), unchecked=True)

    return wrapper


def nesting(text: str) -> tuple[int | None, int | None]:
    """The deepest nesting of the syntax tree of `text` (counted without recursing) and its line;
    None when even the stdlib parser runs out of recursion (it allows three times the limit)."""
    try:
        tree = ast.parse(text)
    except RecursionError:
        return None, None
    except (SyntaxError, ValueError, MemoryError):
        return 0, None
    deepest, line = 0, 1
    pending: list[tuple[ast.AST, int, int]] = [(tree, 0, 1)]
    while pending:
        node, depth, where = pending.pop()
        where = getattr(node, "lineno", where)
        if depth > deepest:
            deepest, line = depth, where
        pending.extend((child, depth + 1, where) for child in ast.iter_child_nodes(node))
    return deepest, line
