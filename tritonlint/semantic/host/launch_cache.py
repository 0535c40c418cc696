"""The editor's memory of a buffer's launches: an edit inside a kernel's body changes no launch.

A file's launches (`find_file_launches`) are read from its host code, the kernels' headers (the
decorators, read by the autotune pruners, and the signature, which names the launch's arguments)
and where it all sits. An edit inside a kernel's body changes none of that but where the host code
below it sits, so the launches are kept by the host text with each kernel's body masked out and,
when reused, every host line they name (`ops.py:41`, a predicate's place, an allocation's line) is
moved with the kernels above it. Only the file's own launches are kept (no neighbouring module is
read: its text is not part of the key), and only while a kernel body cannot itself hold a launch.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from tritonlint.semantic.host.host_guards import parameter_names
from tritonlint.semantic.host.launches import Launch, may_launch
from tritonlint.semantic.host.on_demand import OnDemand
from tritonlint.source.outline import KernelSource

# Per kernel, in file order: its first and last line.
Spans = tuple[tuple[int, int], ...]
Found = dict[str, list[Launch]]


class LaunchMemo:
    """The last buffer's launches, with the key they were found under and its kernels' spans."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._spans: Spans = ()
        self._launches: Found = {}
        self.reused = False  # whether the last lookup reused the launches (tests)

    def recall(self, key: tuple[object, ...], spans: Spans, display: str) -> Found | None:
        self.reused = False
        if key != self._key or len(spans) != len(self._spans):
            return None
        self.reused = True
        if spans == self._spans:
            return self._launches
        line_now = _line_map(self._spans, spans)
        return {kernel: [_moved(launch, display, line_now) for launch in launches]
                for kernel, launches in self._launches.items()}

    def store(self, key: tuple[object, ...], spans: Spans, launches: Found) -> None:
        self._key, self._spans, self._launches = key, spans, launches


_memo: LaunchMemo | None = None


@contextmanager
def reusing_launches(memo: LaunchMemo) -> Iterator[None]:
    """Let `find_file_launches` keep and reuse the launches through `memo` while the block runs
    (the editor's analysis thread; a check from the command line keeps nothing)."""
    global _memo
    previous, _memo = _memo, memo
    try:
        yield
    finally:
        _memo = previous


def remembered(path: str, text: str, kernels: Sequence[KernelSource], aliases: Mapping[str, str],
               find: Callable[[], Found]) -> Found:
    """`find()`, or the launches it gave for the same host code and kernel headers, moved."""
    memo = _memo
    if memo is None or any(kernel.function is None or kernel.indented for kernel in kernels):
        return find()
    names = [kernel.name for kernel in kernels] + sorted(aliases)
    if any(may_launch(_body(kernel), names) for kernel in kernels):
        return find()  # (a launch inside a kernel's body would be masked out of the key)
    key = (path, _masked(text, kernels), tuple(sorted(aliases.items())),
           tuple((k.name, tuple(parameter_names(k.function))) for k in kernels if k.function is not None),
           "early_config_prune" in text)
    spans = tuple((k.first_line, k.first_line + k.text.rstrip("\r\n").count("\n")) for k in kernels)
    display = path.replace("\\", "/").rsplit("/", 1)[-1]
    found = memo.recall(key, spans, display)
    if found is None:
        found = find()
        memo.store(key, spans, found)
    return found


def _header_length(kernel: KernelSource) -> int:
    """Characters of the kernel's text before the line of its first statement (decorators, `def`)."""
    assert kernel.function is not None
    lines = kernel.function.body[0].lineno - kernel.first_line
    at = 0
    for _ in range(lines):
        at = kernel.text.index("\n", at) + 1
    return at


def _body(kernel: KernelSource) -> str:
    return kernel.text[_header_length(kernel):]


def _masked(text: str, kernels: Sequence[KernelSource]) -> str:
    """`text` with each kernel's body one NUL character, its header kept (nor where it sits)."""
    pieces: list[str] = []
    previous = 0
    for kernel in sorted(kernels, key=lambda k: k.start_offset):
        pieces.append(text[previous:kernel.start_offset])
        pieces.append(kernel.text[:_header_length(kernel)] + "\0")
        previous = kernel.start_offset + len(kernel.text)
    pieces.append(text[previous:])
    return "".join(pieces)


def _line_map(before: Spans, after: Spans) -> Callable[[int], int]:
    """Where a line of the text the launches were found in is now: moved with the kernel that
    holds it, or below which it lies (host code)."""
    def line_now(line: int) -> int:
        move = 0
        for (first, last), (new_first, new_last) in zip(before, after):
            if line < first:
                break
            move = new_first - first if line <= last else new_last - last
        return line + move
    return line_now


def _moved(launch: Launch, display: str, line_now: Callable[[int], int]) -> Launch:
    """The launch with every line of its file it names moved by `line_now`."""
    place = re.compile(rf"(?<![\w.]){re.escape(display)}:(\d+)")

    def text(value: str) -> str:
        return place.sub(lambda match: f"{display}:{line_now(int(match.group(1)))}", value)

    def strings(value: object) -> object:
        if isinstance(value, str):
            return text(value)
        if isinstance(value, tuple):
            return tuple(strings(item) for item in value)
        if isinstance(value, Mapping):
            return {key: strings(item) for key, item in value.items()}
        return value

    # Fields that hold lines as numbers; every other field names a line only as text (`ops.py:41`),
    # but for the witness-only divisors, which say `at line 41`.
    allocations = {param: tuple((value, line_now(line)) for value, line in values)
                   for param, values in launch.allocations.items()}
    predicates = {param: (text(test), (line_now(place[0]), place[1], line_now(place[2]), place[3]))
                  for param, (test, place) in launch.predicates.items()}
    def divisors(facts: Mapping[tuple[str, str], str]) -> dict[tuple[str, str], str]:
        return {pair: re.sub(r"\bline (\d+)\b", lambda match: f"line {line_now(int(match.group(1)))}", text(why))
                for pair, why in facts.items()}

    def tables(facts: Mapping[str, tuple[tuple[int, ...], str]]) -> dict[str, tuple[tuple[int, ...], str]]:
        return {param: (values, text(test)) for param, (values, test) in facts.items()}

    changes: dict[str, object] = {"unknown_multiples": _later(launch.unknown_multiples, divisors),
                                  "admitted": _later(launch.admitted, tables)}
    for field in dataclasses.fields(launch):
        if field.name in ("kernel", "local", "allocations", "predicates", "grid", *changes):
            continue
        value = getattr(launch, field.name)
        changes[field.name] = _later(value, strings) if isinstance(value, OnDemand) else strings(value)
    grid = tuple(dataclasses.replace(axis, guard=text(axis.guard), text=text(axis.text)) for axis in launch.grid)
    return dataclasses.replace(launch, grid=grid, allocations=allocations, predicates=predicates,
                               **changes)  # type: ignore[arg-type]


def _later(facts: Mapping[Any, Any], move: Callable[[Any], Any]) -> Mapping[Any, Any]:
    """`move(facts)`; for witness-only facts not worked out yet (`OnDemand`), moved when first read."""
    if isinstance(facts, OnDemand) and not facts.computed:
        return OnDemand(lambda: move(facts))
    return move(facts)  # type: ignore[no-any-return]

