"""What `synthesize`'s candidate builds read of the kernel's pointers, read once per synthesis.

A synthesis builds a dozen or more candidate launches (each size partial, then whole, on each axis), and every
build read the same facts of every pointer again: which of its accesses the launch's constexpr branches take,
their dims, the other definitions' dims, whether it is loaded as an index, its dtype. None of them depends on
the sizes a build chooses: only on the kernel, the branch values (fixed before the first build) and the uses'
definitions, which `taken_first` and `other_definitions` reorder only while they run and restore on leaving.
So each is asked once and remembered for the synthesis' other builds (a synthesis' readings, never a run's:
another synthesis of the same kernel reads with its own `Uses`, branches and sizes).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

from tritonlint.witness.capped_masks import capped_ends
from tritonlint.witness.constraints import branch_not_taken
from tritonlint.witness.taken_definitions import taken_first
from tritonlint.witness.uses import Uses

T = TypeVar("T")
Dims = list[tuple[str | None, Any]]


class BuildReadings:
    """One synthesis' pointer readings, each computed on first use. Keys hold node ids: the nodes are kept
    in `_kept` too, so that no id is reused by a node made while the synthesis runs."""

    def __init__(self, uses: Uses, fn: ast.FunctionDef, branch_env: dict[str, Any],
                 local: dict[str, ast.expr]) -> None:
        self.uses = uses
        self.fn = fn
        self.branch_env = branch_env
        self.local = local
        self._memo: dict[tuple[Hashable, ...], Any] = {}
        self._kept: list[ast.AST] = []

    def _once(self, key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])

    def not_taken(self, node: ast.expr) -> bool:
        """Whether `node` sits on a constexpr branch side the launch does not take."""
        self._kept.append(node)
        return self._once(("not_taken", id(node)),
                          lambda: branch_not_taken(self.fn, node, self.branch_env, self.local))

    def taken(self, exprs: list[ast.expr]) -> list[ast.expr]:
        """The accesses on the branches the launch takes (all of them where it takes none)."""
        return [e for e in exprs if not self.not_taken(e)] or exprs

    def taken_dims(self, expr: ast.expr, sizes: set[str], strides: set[str]) -> Dims:
        """`uses.dims` of an access, its locals read first from the definitions on the branches taken."""
        self._kept.append(expr)

        def read() -> Dims:
            with taken_first(self.uses, expr, self.not_taken):
                return self.uses.dims(expr, sizes, strides)
        return list(self._once(("taken_dims", id(expr), frozenset(sizes), frozenset(strides)), read))

    def other_definitions(self, expr: ast.expr, sizes: set[str], strides: set[str]) -> list[Dims]:
        """`uses.other_definitions` of an access, not through definitions on branches not taken."""
        self._kept.append(expr)
        return [list(d) for d in self._once(
            ("other_definitions", id(expr), frozenset(sizes), frozenset(strides)),
            lambda: self.uses.other_definitions(expr, sizes, strides, self.not_taken))]

    def inclusive_ends(self, pointer: str) -> set[str]:
        return set(self._once(("inclusive_ends", pointer), lambda: self.uses.inclusive_ends(pointer)))

    def capped_ends(self, pointer: str) -> dict[str, str]:
        return dict(self._once(("capped_ends", pointer), lambda: capped_ends(self.uses, pointer)))

    def loaded_as_index(self, pointer: str) -> bool:
        return self._once(("loaded_as_index", pointer), lambda: self.uses.loaded_as_index(pointer))

    def dtype_of(self, pointer: str) -> str | None:
        return self._once(("dtype_of", pointer), lambda: self.uses.dtype_of(pointer))

    def loaded_bits(self, pointer: str) -> bool:
        return self._once(("loaded_bits", pointer), lambda: self.uses.loaded_bits(pointer))

    def scaled_dot_use(self, pointer: str) -> tuple[str, str] | None:
        return self._once(("scaled_dot_use", pointer), lambda: self.uses.scaled_dot_use(pointer))

    def first_valid_index(self, pointer: str) -> int:
        return self._once(("first_valid_index", pointer), lambda: self.uses.first_valid_index(pointer))
