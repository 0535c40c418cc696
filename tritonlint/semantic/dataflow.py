"""Dataflow over the binder's records: which definitions reach a use, and what a value is built from."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from tritonlint.semantic.ir import Access, Def, KernelIR, Loop
from tritonlint.semantic.paths import Path, compatible
from tritonlint.source.syntax import strip_casts
from tritonlint.source.tree import expressions_in, names_in

# Builtins a jit function may call by their bare name: none of them reads memory.
_BUILTINS = frozenset({"min", "max", "abs", "int", "float", "bool", "range", "len", "round", "divmod", "pow"})


class Dataflow:
    """Reaching definitions in structured code (no `goto`: the order of statements and the path
    conditions decide), memoized: the definitions are complete when this stage starts."""

    def __init__(self, ir: KernelIR, returns_load: Callable[[str], bool] | None = None) -> None:
        self.ir = ir
        # Whether the jit helper of that name returns data it loads (asked only when a pointer is
        # built from a helper's result; the helpers are known once the file's contexts are).
        self._returns_load = returns_load
        self._reaching_memo: dict[tuple[str, int, Path, tuple[Loop, ...]], list[Def]] = {}
        self._chain_memo: dict[tuple[int, int, Path, tuple[Loop, ...]],
                               tuple[cst.BaseExpression, dict[str, list[Def]]]] = {}
        self._names_memo: dict[tuple[int, object], tuple[cst.BaseExpression, list[str]]] = {}

    def reaching(self, name: str, order: int, path: Path, loops: tuple[Loop, ...]) -> list[Def]:
        """Definitions of `name` that can reach a use at `order` on `path` (structured code).
        The list returned may be shared: callers must not change it."""
        key = (name, order, path, loops)
        found = self._reaching_memo.get(key)
        if found is None:
            found = self._reaching_memo[key] = self._reaching(name, order, path, loops)
        return found

    def _reaching(self, name: str, order: int, path: Path, loops: tuple[Loop, ...]) -> list[Def]:
        result: list[Def] = []
        candidates = [d for d in self.ir.defs.get(name, ()) if compatible(d.path, path)]
        for d in reversed(candidates):
            if d.order < order:
                result.append(d)
                if d.kind in ("assign", "param", "for") and d.path <= path and d.loops == loops[:len(d.loops)]:
                    break  # this definition dominates the use: earlier ones are dead (a loop's target, in its body)
            elif d.kind == "advance" and d.loops and d.loops[-1] in loops:
                result.append(d)  # carried around the loop to the next iteration
        return result

    def computed_from(self, access: Access) -> set[str]:
        """Names the pointer is computed from, transitively, not looking into loads: an index read
        from memory (`page = tl.load(block_table + i // PAGE)`, or through a jit helper that
        returns what it loads) is data; the loop that picks the page does not move the tile inside it."""
        return set(self.build_chain(access.pointer, access.order, access.path, access.loops, self.is_data))

    def is_data(self, node: cst.CSTNode) -> bool:
        """A load, or a call of a jit helper that returns what it loads."""
        if self.is_load(node):
            return True
        node = strip_casts(node) if isinstance(node, cst.BaseExpression) else node
        return type(node) is cst.Call and type(node.func) is cst.Name and self._returns_load is not None \
            and self._returns_load(node.func.value)

    def is_load(self, node: cst.CSTNode) -> bool:
        return type(node) is cst.Call and self.ir.qualify_tl(node.func) == "load"

    def chain(self, pointer: cst.BaseExpression, access: Access) -> dict[str, list[Def]]:
        """Names a pointer is built from, transitively, with the definitions that reach it."""
        key = (id(pointer), access.order, access.path, access.loops)
        memo = self._chain_memo.get(key)
        if memo is not None and memo[0] is pointer:  # the same node, not a new one at a reused id
            return memo[1]
        chain = self.build_chain(pointer, access.order, access.path, access.loops)
        self._chain_memo[key] = (pointer, chain)
        return chain

    def build_chain(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                     skip: Callable[[cst.CSTNode], bool] | None = None) -> dict[str, list[Def]]:
        """Names `node` is computed from at that place, transitively through their assignments,
        with the definitions that reach each; not looking inside what `skip` picks."""
        chain: dict[str, list[Def]] = {}
        pending = [(name, order, path, loops) for name in self._names_in(node, skip)]
        while pending and len(chain) < 64:
            name, order, path, loops = pending.pop()
            if name in chain:
                continue
            chain[name] = self.reaching(name, order, path, loops)
            for d in chain[name]:
                if d.kind == "assign" and d.value is not None:
                    pending.extend((inner, d.order, d.path, d.loops) for inner in self._names_in(d.value, skip))
        return chain

    def _names_in(self, node: cst.BaseExpression, skip: Callable[[cst.CSTNode], bool] | None) -> list[str]:
        """`names_in(node, skip)`, remembered per expression for no `skip` and for this dataflow's own
        (`is_data`, `is_read`): the chains of a kernel's accesses read the same assignments again and
        again (more than half of the walks were repeats). The list returned is shared: not to be changed."""
        if skip is None:
            kind: object = None
        elif getattr(skip, "__self__", None) is self:
            kind = getattr(skip, "__func__", None)
        else:
            return names_in(node, skip)
        key = (id(node), kind)
        memo = self._names_memo.get(key)
        if memo is not None and memo[0] is node:  # the same node, not a new one at a reused id
            return memo[1]
        found = names_in(node, skip)
        self._names_memo[key] = (node, found)
        return found

    def mask_comparisons(self, access: Access) -> Iterator[cst.Comparison]:
        """The single comparisons (`a < b`) an access's mask is built from, through the
        assignments of the names it reads."""
        pending: list[tuple[cst.BaseExpression, int]] = [(access.mask, 0)] if access.mask is not None else []
        while pending:
            node, depth = pending.pop()
            if depth > 8:
                continue
            if isinstance(node, cst.Comparison):
                if len(node.comparisons) == 1:
                    yield node
                continue
            if isinstance(node, cst.Name):
                for d in self.reaching(node.value, access.order, access.path, access.loops):
                    if d.value is not None and d.kind == "assign":
                        pending.append((d.value, depth + 1))
                continue
            pending.extend((child, depth) for child in expressions_in(node))

    def loaded_names(self, node: cst.BaseExpression, access: Access) -> set[str]:
        """Names an expression is computed from (through assignments) whose value is read from
        memory: `seq_start = tl.load(cu_seqlens + b)`, or returned by a jit helper
        (`pos = load_position(pos_ptr)`), whose body this stage does not read: taken as read."""
        chain = self.build_chain(node, access.order, access.path, access.loops, self.is_read)
        return {name for name, defs in chain.items()
                if any(d.kind == "assign" and d.value is not None and self.is_read(strip_casts(d.value)) for d in defs)}

    def is_read(self, node: cst.CSTNode) -> bool:
        """A load, or a call of a function by its bare name that is no Python builtin (in a jit
        function: a jit helper, possibly one that loads)."""
        return self.is_load(node) or (type(node) is cst.Call and type(node.func) is cst.Name
                                      and node.func.value not in _BUILTINS)
