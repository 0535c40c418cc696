"""A shift the mask ignores: a loop or the program id moves the pointer's tile, and the comparison
bounding it compares in-tile offsets with the whole extent."""

from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst

from tritonlint.semantic.ir import LOOP_PREFIX, PROGRAM, Access, Def, Loop, Walk
from tritonlint.semantic.paths import Path
from tritonlint.source.names import code_of
from tritonlint.source.syntax import range_args, strip_casts
from tritonlint.source.tree import terms

from .reading import Reading


class ShiftReading(Reading):
    """TL104's reading of this shape (a part of `MaskSufficiency`)."""

    def _shifts(self, access: Access, walk: Walk) -> Iterator[tuple[str, Loop | None]]:
        """What moves this dimension's tile in the pointer: the loop advancing it, the program id."""
        dim = walk.dim
        assert dim is not None
        if walk.loop is not None and self._moves_a_tile(access, dim, walk.loop):
            yield walk.loop.key, walk.loop
        if PROGRAM in self._moved_by(access) and self._shift_term(access, dim, PROGRAM):
            # (not `row * stride + cols`: a row picked, no tile moved)
            yield PROGRAM, None

    def _moved_by(self, access: Access) -> frozenset[str]:
        moved = self._moved_memo.get(access)
        if moved is None:
            moved = self._moved_memo[access] = self.walker.pointer_loops(access)
        return moved

    def _moves_a_tile(self, access: Access, dim: str, loop: Loop) -> bool:
        """The loop moves the pointer a whole tile of `dim` per iteration: it advances a name the
        pointer is built from by the tile's block size (`a_ptrs += BLOCK_K * s`), or its variable
        steps by it (`for k in range(0, K, BLOCK_K)`, read in the pointer). A loop that shifts a
        window by one (`t + i_w` over a filter's width) moves no tile past the extent."""
        chain = self.flow.chain(access.pointer, access)
        for defs in chain.values():
            for d in defs:
                if d.kind == "advance" and d.loops and d.loops[-1] is loop and d.value is not None \
                        and d.name not in loop.targets and self.ev.size_in(dim, code_of(d.value)):
                    return True  # (a `while` tile loop's own `k += s` is its step, read below like a `for`'s)
        if self._shift_term(access, dim, loop.key):
            return True
        if loop.tiles == "unknown" or not any(type(term) is cst.Name and term.value in loop.targets
                                              for term in self._sums_with(access, dim)):
            return False  # the loop's variable is no summand beside the offsets (`i_k = i_t - i_s // BS`)
        # By the step alone: `range(i_t * BT, ..., BS)` moves BS-tiles, not the BT rows it starts at.
        args = range_args(loop.iterable) if isinstance(loop.iterable, cst.Call) else []
        return len(args) == 3 and bool(self.ev.size_tokens(dim) & set(re.findall(r"\w+", code_of(args[2]))))

    def _shift_term(self, access: Access, dim: str, shift: str) -> bool:
        """`X + pid * BLOCK * s + offs * s`, or a base moved that way before: a term that moves with
        the program id (or a loop, `k * BLOCK_K * s`) alone and steps by this dimension's block size."""
        for term, keys in self._terms(access, dim):
            if shift in keys and all(key.startswith(LOOP_PREFIX) for key in keys) and \
                    self.ev.size_in(dim, code_of(term)) and self._tile_step(term, shift, access):
                return True
        return False

    def _tile_step(self, term: cst.BaseExpression, shift: str, access: Access) -> bool:
        """`k * BLOCK_K * s`, `pid * BLOCK`: the tile index itself is a factor. In `(bos * H + i_h) * BT`
        a head picks a block of rows; no tile index steps along the offsets."""
        factors, pending = [], [term]
        while pending:
            node = pending.pop()
            if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
                pending += [node.left, node.right]
            else:
                factors.append(node)
        return any(type(factor) is not cst.BinaryOperation and
                   shift in self.ev.dims(factor, access.order, access.path, access.loops) for factor in factors)

    def _sums_with(self, access: Access, dim: str) -> list[cst.BaseExpression]:
        return [term for term, _ in self._terms(access, dim)]

    def _terms(self, access: Access, dim: str) -> Iterator[tuple[cst.BaseExpression, frozenset[str]]]:
        """The summands of the pointer and of the sums it is built from that hold `dim` (or move
        the pointer itself: `X += pid * BLOCK * s`), with the dimensions of each."""
        sources: list[tuple[cst.BaseExpression, Def | None]] = [(access.pointer, None)]
        sources += [(d.value, d) for defs in self.flow.chain(access.pointer, access).values() for d in defs
                    if d.value is not None and d.kind in ("assign", "advance")]
        for value, d in sources:
            if d is None:
                yield from self._summands(value, access.order, access.path, access.loops)
                continue
            if not self.ev._pointer_sum(value, 0) and dim not in self.ev.def_dims(d, d.path):
                continue  # another dimension's offsets (`o_r = i_t * BT + i_i * BC + ...`)
            yield from self._summands(value, d.order, d.path, d.loops)

    def _summands(self, value: cst.BaseExpression, order: int, path: Path,
                  loops: tuple[Loop, ...]) -> list[tuple[cst.BaseExpression, frozenset[str]]]:
        """The terms of a sum with their dimensions, read once per definition: the accesses
        of a kernel share most of the definitions their pointers are built from."""
        key = (id(value), order, path)
        memo = self._summand_memo.get(key)
        if memo is None or memo[0] is not value:
            memo = self._summand_memo[key] = (value, [(term, self.ev.dims(term, order, path, loops))
                                                      for term in terms(strip_casts(value))])
        return memo[1]

    def _accounts(self, small: cst.BaseExpression, large: cst.BaseExpression, shift: str, access: Access) -> bool:
        """Whether a comparison moves with the shift: it reads the loop's variable, something the
        loop advances, or the program id (through any name it is built from)."""
        for side in (small, large):
            if shift in self.ev.dims(side, access.order, access.path, access.loops):
                return True
        chain = self.flow.build_chain(cst.Tuple([cst.Element(small), cst.Element(large)]), access.order,
                                      access.path, access.loops)
        for defs in chain.values():
            for d in defs:
                if shift == PROGRAM:
                    if d.value is not None and "program_id(" in code_of(d.value):
                        return True
                    if d.kind == "for" and self._reads_program(d.loops[-1], access):
                        return True  # `for k in range(first_tile, ...)`: the loop starts at the program's tile
                elif (d.kind in ("for", "advance") and d.loops and d.loops[-1].key == shift) or \
                        (d.kind == "for" and any(loop.key == shift for loop in d.loops)):
                    return True
        text = code_of(small) + code_of(large)
        return shift == PROGRAM and "program_id(" in text

    def _reads_program(self, loop: Loop, access: Access) -> bool:
        node = loop.node.iter if isinstance(loop.node, cst.For) else loop.node.test
        if "program_id(" in code_of(node):
            return True
        chain = self.flow.build_chain(node, access.order, access.path, access.loops)
        return any(d.value is not None and "program_id(" in code_of(d.value) for defs in chain.values() for d in defs)
