"""Caches keyed by syntax-tree nodes, let go when a file's check is done.

Several walks remember their answers per node (`functools.lru_cache`: nodes are immutable and hash by
identity). In a command-line check a file's trees never come back once it is done, yet the caches kept
up to thousands of its nodes, and so whole trees, alive: the cyclic collector, back on after each file,
then scanned them in every pass (a tenth of a cold check of vLLM was the collector's, half of it these
trees). `forget_trees()` empties them; the editor, whose trees outlive a check, keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol, TypeVar


class _Clearable(Protocol):
    def cache_clear(self) -> None: ...


_CACHES: list[_Clearable] = []
_F = TypeVar("_F", bound=Callable[..., Any])


def tree_cache(maxsize: int) -> Callable[[_F], _F]:
    """`functools.lru_cache(maxsize)` for a function of syntax-tree nodes, emptied by `forget_trees`."""

    def decorate(function: _F) -> _F:
        cached = lru_cache(maxsize=maxsize)(function)
        _CACHES.append(cached)
        return cached  # type: ignore[return-value]  # the same signature, cached

    return decorate


def forget_trees() -> None:
    """Empty every `tree_cache` (a file's check is over, its trees are not asked again)."""
    for cache in _CACHES:
        cache.cache_clear()
