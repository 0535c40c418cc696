"""Walks: the tiled dimensions an access's pointer walks, and the loop that moves each a tile on."""

from __future__ import annotations

import re

import libcst as cst

from tritonlint.semantic.dataflow import Dataflow
from tritonlint.semantic.evaluator import Evaluator
from tritonlint.semantic.ir import LOOP_PREFIX, Access, Def, KernelIR, Loop, Walk, offset_count
from tritonlint.semantic.paths import EMPTY, Path, compatible
from tritonlint.source.names import code_of
from tritonlint.source.syntax import advance_step, keyword
from tritonlint.source.tree import names_in, terms


class Walker:
    """`tl.load(A + offs_m[:, None] * s + (k * BLOCK_K + offs_k)[None, :])` in `for k in ...`
    walks `offs_m` (no loop) and `offs_k` (advanced by the k loop)."""

    def __init__(self, ir: KernelIR, flow: Dataflow, ev: Evaluator) -> None:
        self.ir = ir
        self.flow = flow
        self.ev = ev
        self._walk_memo: dict[Access, list[Walk]] = {}

    def walks(self, access: Access) -> list[Walk]:
        """The tiled dimensions the access's pointer walks; empty for scalar accesses."""
        if access not in self._walk_memo:
            self._walk_memo[access] = self._walks(access)
        return self._walk_memo[access]

    def _walks(self, access: Access) -> list[Walk]:
        pointer_dims = self.ev.dims(access.pointer, access.order, access.path, access.loops)
        offsets = sorted(key for key in pointer_dims if not key.startswith(LOOP_PREFIX))
        if not offsets:
            return []
        enclosing = {loop.key: loop for loop in access.loops}
        result: list[Walk] = []
        claimed_loops: set[str] = set()
        chain = self.flow.chain(access.pointer, access)
        for dim in offsets:
            loop = self._loop_along(dim, access, enclosing) or self._loop_by_variable(dim, chain, access)
            if loop is not None:
                claimed_loops.add(loop.key)
            result.append(Walk(dim, loop))
        # A pointer advanced a tile per iteration walks that loop even when no offset name says which.
        advances: dict[str, list[Def]] = {}
        for advance in self._advances(access.pointer, access):
            advances.setdefault(advance.loops[-1].key, []).append(advance)
        for key, defs in advances.items():
            if key in claimed_loops or key not in enclosing:
                continue
            loop = enclosing[key]
            increments = [code_of(d.value) for d in defs if d.value is not None]
            matched = [w for w in result if w.dim and any(self.ev.size_in(w.dim, text) for text in increments)]
            if matched:
                result = [Walk(w.dim, loop) if w in matched and w.loop is None else w for w in result]
            elif any(d.constexpr for advance in defs for name in names_in(advance.value)
                     for d in self.ir.defs.get(name, ())) and any(self._tiled_name(d.name) for d in defs):
                result.append(Walk(None, loop))
        return result

    def _tiled_name(self, name: str) -> bool:
        """Whether `name` carries a tile when a loop advances it: a parameter (a base pointer moves
        whatever is added to it) or a local defined with block offsets. A scalar advanced a tile
        per iteration (`offs_k += BLOCK_K` from `tl.zeros(())`, read as `offs_k // group_k`) only
        touches each tile's first element, which the loop bound keeps in range."""
        return any(d.kind == "param" or any(not key.startswith(LOOP_PREFIX) for key in self.ev.def_dims(d, EMPTY))
                   for d in self.ir.defs.get(name, ()) if d.kind != "advance")

    def _loop_by_variable(self, dim: str, chain: dict[str, list[Def]], access: Access) -> Loop | None:
        """`tl.load(X + start + cols)` in `for start in range(0, N, BLOCK)`: the loop variable itself
        moves the tile, along the offset whose block size the loop steps by."""
        computed: set[str] | None = None
        for loop in reversed(access.loops):
            if not loop.targets & chain.keys():
                continue
            if computed is None:
                computed = self.flow.computed_from(access)
            if loop.targets & computed and self.ev.size_tokens(dim) & set(re.findall(r"\w+", loop.text)):
                return loop
        return None

    def _loop_along(self, dim: str, access: Access, enclosing: dict[str, Loop]) -> Loop | None:
        """The enclosing loop whose iterations move this offset: a name the pointer is built from
        combines the offset with the loop (`cols = kb * BLOCK_K + offs_k`, `offs_k += BLOCK_K`)."""
        if dim.endswith("]"):
            return self._block_loop(dim, access, enclosing)
        moving: set[str] = set()
        sources: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...], frozenset[str] | None]] = [
            (d.value, d.order, d.path, d.loops, self.ev.def_dims(d, EMPTY))
            for defs in self.flow.chain(access.pointer, access).values() for d in defs if d.value is not None]
        if not isinstance(access.pointer, cst.Name):  # (a name's definitions are in the chain)
            # The pointer expression itself: `A + (k_in_tile + rk[None, :]) * stride` in the call.
            # Unlike a definition, it never names a tile: `W + cols * 5 + i` steps by elements.
            sources.append((access.pointer, access.order, access.path, access.loops, None))
        for value, order, path, loops, keys in sources:
            if keys is not None and dim not in keys:
                continue
            if keys is None or offset_count(keys) > 1:
                # A pointer over several dimensions (`X + rows[:, None] * s + cols[None, :]`):
                # a loop moves `dim` only if it shares a term with it, not with another offset.
                # A name over several dimensions is split where it is defined (it is in the chain).
                shared = [self.ev.dims(term, order, path, loops) for term in terms(value)]
                keys = frozenset().union(*(term_keys for term, term_keys in zip(terms(value), shared)
                                           if dim in term_keys
                                           and not (isinstance(term, cst.Name) and offset_count(term_keys) > 1)))
            moving |= keys & enclosing.keys()
        # The innermost such loop (a set has no order: choosing by position keeps results stable).
        return next((loop for loop in reversed(access.loops) if loop.key in moving), None)

    def _block_loop(self, dim: str, access: Access, enclosing: dict[str, Loop]) -> Loop | None:
        owner, index = dim[:-1].rsplit("[", 1)
        for d in self.ir.defs.get(owner, ()):
            if d.kind != "advance" or not d.loops or d.loops[-1].key not in enclosing:
                continue
            step = advance_step(d.value, owner, int(index), self.ir.qualify_tl)  # `bp = tl.advance(bp, (0, BK))`
            if step is not None and not (type(step) is cst.Integer and step.value == "0"):
                return d.loops[-1]
        # Advanced in the call itself: `tl.load(gK.advance([0, n_block * BLOCK_N]))` in the loop,
        # or made in the loop at the tile's place: `tl.make_block_ptr(..., offsets=(start_n, 0))`.
        placed: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]] = []
        step = advance_step(access.pointer, owner, int(index), self.ir.qualify_tl)
        if step is not None:
            placed.append((step, access.order, access.path, access.loops))
        for d in self.flow.reaching(owner, access.order, access.path, access.loops):
            if d.kind == "assign" and isinstance(d.value, cst.Call) and d.loops and \
                    self.ir.qualify_tl(d.value.func) == "make_block_ptr":
                offsets = keyword(d.value, "offsets", 3)
                if isinstance(offsets, (cst.Tuple, cst.List)) and int(index) < len(offsets.elements):
                    placed.append((offsets.elements[int(index)].value, d.order, d.path, d.loops))
        moving: set[str] = set()
        for step, order, path, loops in placed:
            moving |= self.ev.dims(step, order, path, loops) & enclosing.keys()
        return next((loop for loop in reversed(access.loops) if loop.key in moving), None)

    def _advances(self, pointer: cst.BaseExpression, access: Access) -> list[Def]:
        """Loop advances of the names a pointer is built from (`ptrs += BLOCK_K * stride`). An
        advance made only where the access never runs does not move it: `if BIAS == "matrix":
        b_ptrs += BLOCK_M * s` leaves the `BIAS == "vector"` load of `b_ptrs` where it was."""
        return [d for defs in self.flow.chain(pointer, access).values() for d in defs
                if d.kind == "advance" and d.loops and d.loops[-1] in access.loops
                and compatible(d.path, access.path)]

    def only_when(self, access: Access, dim: str) -> Path:
        """What holds wherever `dim` enters the pointer, when that is one side of a condition: a
        conditional expression (`p + (rows[:, None] * s if X_DIM == 2 else 0)`: X_DIM == 2), or a
        definition made on one side of an `if` (`if NORMK: p = z + o_k` / `else: p = z + o_v`:
        NORMK for `o_k`); else nothing."""
        chain = self.flow.chain(access.pointer, access)
        sources = [(access.pointer, access.order, access.path, access.loops)] + [
            (d.value, d.order, d.path, d.loops) for defs in chain.values() for d in defs
            if d.kind == "assign" and d.value is not None]
        found: list[Path] = []
        for value, order, path, loops in sources:
            for term in terms(value):
                named = type(term) is cst.Name and term.value in chain  # its definitions are sources too
                if named and not path - access.path:
                    continue
                if dim not in self.ev.dims(term, order, path, loops):
                    continue
                if type(term) is not cst.IfExp:
                    if path - access.path:
                        found.append(path - access.path)  # defined on one side of an `if`
                        continue
                    return EMPTY  # the dimension is in the pointer unconditionally
                sides = [literals for side, literals in self.ir.reader.sides(term)
                         if dim in self.ev.dims(side, order, path | literals, loops)]
                if len(sides) != 1:
                    return EMPTY
                found.append(sides[0])
        return found[0] if len(found) == 1 else EMPTY

    def pointer_loops(self, access: Access) -> frozenset[str]:
        """The loops (and program id) the access's pointer moves with."""
        return frozenset(key for key in self.ev.dims(access.pointer, access.order, access.path, access.loops)
                         if key.startswith(LOOP_PREFIX))
