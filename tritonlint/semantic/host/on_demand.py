"""A mapping worked out on its first read: for the facts of a launch that only the witness reads.

`check` builds every launch of a file but never reads its witness-only facts (`Launch.live_callers`,
`unknown_multiples`, `admitted`): working them out anyway was about a seventh of the launch search.
Read, compared or pickled, an `OnDemand` is the plain dict its function returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class OnDemand(Mapping[K, V]):
    """The dict `compute()` returns, computed when first read (then the function is let go)."""

    __slots__ = ("_compute", "_value")

    def __init__(self, compute: Callable[[], dict[K, V]]) -> None:
        self._compute: Callable[[], dict[K, V]] | None = compute
        self._value: dict[K, V] | None = None

    @property
    def computed(self) -> bool:
        """Whether it has been read (for the tests)."""
        return self._value is not None

    def _read(self) -> dict[K, V]:
        if self._value is None:
            assert self._compute is not None
            self._value = self._compute()
            self._compute = None  # (what it held, the host module's tree among it, goes with it)
        return self._value

    def __getitem__(self, key: K) -> V:
        return self._read()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __repr__(self) -> str:
        return repr(self._read())

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (self._read(),)
