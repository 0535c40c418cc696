"""Which axis a tile dimension lies on: the broadcasts (`[:, None]`) an expression, a pointer or a
mask writes it under. TL104 compares the pointer's axis with the mask's; TL105 follows a load's lanes
along the axis a mask cuts."""

from __future__ import annotations

import re

import libcst as cst

from tritonlint.semantic.dataflow import Dataflow
from tritonlint.semantic.evaluator import Evaluator
from tritonlint.semantic.ir import LOOP_PREFIX, Access, KernelIR, Loop
from tritonlint.semantic.paths import Path
from tritonlint.source.names import code_of
from tritonlint.source.syntax import ordered
from tritonlint.source.tree import names_in, nodes_under

# Calls that move a tensor's axes: a broadcast read through them is not the one written.
AXIS_MOVES = {"trans", "permute", "reshape", "view", "ravel", "expand_dims", "join", "split", "interleave"}


class Broadcasts:
    """The broadcast reading of one kernel, memoized per expression (each walk of an access asks again)."""

    def __init__(self, ir: KernelIR, flow: Dataflow, ev: Evaluator) -> None:
        self.ir, self.flow, self.ev = ir, flow, ev
        self._subscript_memo: dict[tuple[int, int, Path], tuple[cst.BaseExpression,
                                                                list[tuple[str, frozenset[str]]] | None]] = {}
        self._broadcast_memo: dict[tuple[int, int], tuple[cst.BaseExpression, Access,
                                                          list[tuple[str, frozenset[str]]] | None]] = {}

    def pointer_writes(self, access: Access, dim: str, broadcast: str) -> bool:
        """Whether the pointer, or a definition it is built from, puts `dim` under `broadcast`:
        asked in the order the names are read, so the usual answer (yes, right there) is quick."""
        sources = [(access.pointer, access.order, access.path, access.loops)]
        sources += [(d.value, d.order, d.path, d.loops) for defs in self.flow.chain(access.pointer, access).values()
                    for d in defs if d.value is not None and d.kind in ("assign", "advance")]
        for value, order, path, loops in sources:
            found = self.subscripts(value, order, path, loops)
            if found is None:
                return True  # axes moved: not judged
            if any(text == broadcast and len(offsets) == 1 and self.ev.same_tile(next(iter(offsets)), dim)
                   for text, offsets in found):
                return True
        return False

    def axis_of(self, node: cst.BaseExpression, dim: str, access: Access) -> tuple[int, int] | None:
        """Where `dim` lies in the tile an expression builds: (its axis counted from the last, the
        tile's rank); None where that cannot be read (TL105 follows a load's lanes by it)."""
        broadcasts = self.broadcasts(node, access)
        slices = self.slices(node, dim, access)
        if broadcasts is None or slices is None or len(slices) != 1:
            return None
        text = next(iter(slices))
        if text == "":
            # A bare offset beside broadcast ones sits on an axis nothing here names.
            return None if any(written for written, _ in broadcasts) else (0, 1)
        right = from_right(text)
        return None if right is None else (right, text.count(",") + 1)

    def slices(self, node: cst.BaseExpression, dim: str, access: Access) -> set[str] | None:
        """The broadcasts (`[:, None]`) `dim` is put under in an expression and what it is built
        from; "" for none; None where an axis-moving call makes them unreadable."""
        broadcasts = self.broadcasts(node, access)
        if broadcasts is None:
            return None
        found = {text for text, offsets in broadcasts if len(offsets) == 1 and self.ev.same_tile(next(iter(offsets)), dim)}
        return found or {""}

    def broadcasts(self, node: cst.BaseExpression, access: Access) -> list[tuple[str, frozenset[str]]] | None:
        """Every broadcast subscript in an expression and what it is built from, with the offsets
        under it; None where an axis-moving call makes them unreadable. Read once per expression:
        each walk of the access asks again."""
        key = (id(node), id(access))
        memo = self._broadcast_memo.get(key)
        if memo is not None and memo[0] is node and memo[1] is access:
            return memo[2]
        # Only definitions that carry tile offsets can broadcast them (most of a chain is scalars:
        # strides, sequence bounds, loaded indices).
        found: list[tuple[str, frozenset[str]]] | None = self.subscripts(node, access.order, access.path,
                                                                           access.loops)
        for defs in self.flow.chain(node, access).values():
            for d in defs:
                if found is None:
                    break
                # Only definitions that carry tile offsets can broadcast them (most of a chain is
                # scalars: strides, sequence bounds, loaded indices).
                if d.value is None or d.kind not in ("assign", "advance") or \
                        all(key.startswith(LOOP_PREFIX) for key in self.ev.def_dims(d, d.path)):
                    continue
                more = self.subscripts(d.value, d.order, d.path, d.loops)
                found = None if more is None else found + more
        self._broadcast_memo[key] = (node, access, found)
        return found

    def subscripts(self, value: cst.BaseExpression, order: int, path: Path,
                    loops: tuple[Loop, ...]) -> list[tuple[str, frozenset[str]]] | None:
        """The broadcasts written in one expression, read once per definition (see `_summands`)."""
        key = (id(value), order, path)
        memo = self._subscript_memo.get(key)
        if memo is not None and memo[0] is value:
            return memo[1]
        found: list[tuple[str, frozenset[str]]] | None = []
        for inner in nodes_under(value):
            if isinstance(inner, cst.Call) and self.moves_axes(inner):
                found = None
                break
            if isinstance(inner, cst.Subscript):
                text = slice_text(inner)
                if from_right(text) is None:
                    continue  # an index, not a broadcast
                keys = self.ev.dims(inner.value, order, path, loops)
                assert found is not None
                found.append((text, frozenset(key for key in keys if not key.startswith(LOOP_PREFIX))))
        self._subscript_memo[key] = (value, found)
        return found

    def near_slices(self, node: cst.BaseExpression, dim: str, access: Access) -> set[str] | None:
        """The broadcasts of `dim` in a compared expression and the definitions of the names it
        reads (`rows < M` with `rows = tl.arange(0, B)[:, None]`); deeper, a compared offset is
        a plain tile. None where an axis-moving call makes them unreadable."""
        sources = [(node, access.order, access.path, access.loops)]
        for name in names_in(node):
            sources += [(d.value, d.order, d.path, d.loops)
                        for d in self.flow.reaching(name, access.order, access.path, access.loops)
                        if d.value is not None and d.kind in ("assign", "advance")]
        found: set[str] = set()
        for value, order, path, loops in sources:
            subscripts = self.subscripts(value, order, path, loops)
            if subscripts is None:
                return None
            found |= {text for text, offsets in subscripts
                      if len(offsets) == 1 and self.ev.same_tile(next(iter(offsets)), dim)}
        return found

    def moves_axes(self, call: cst.Call) -> bool:
        """`tl.trans(x)`, `x.permute(...)`, `tl.reshape(...)`: the axes read under it are not the ones written."""
        if (self.ir.qualify_tl(call.func) or "") in AXIS_MOVES:
            return True
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in AXIS_MOVES

    def mask_slices(self, access: Access, dim: str) -> set[str] | None:
        """The broadcasts under which the mask bounds `dim`: inside its comparisons, or applied to
        them from outside (`(offs < M)[:, None]`, `mask_m[:, None]`)."""
        assert access.mask is not None
        found: set[str] = set()
        pending: list[tuple[cst.BaseExpression, str, int]] = [(access.mask, "", 0)]
        while pending:
            node, outer, depth = pending.pop()
            if depth > 8:
                return None
            if type(node) is cst.Comparison:
                sides = ordered(node) if len(node.comparisons) == 1 else None
                if sides is None or not self.bounds(sides[0], dim, access):
                    continue
                inner = self.near_slices(sides[0], dim, access)
                if inner is None or not (inner or outer):
                    return None  # unreadable, or no broadcast written nearby: not judged
                if inner and outer:
                    return None  # broadcast twice: not read
                found |= inner or {outer}
            elif type(node) is cst.Subscript:
                if outer:
                    return None
                pending.append((node.value, slice_text(node), depth + 1))
            elif type(node) is cst.Name:
                for d in self.flow.reaching(node.value, access.order, access.path, access.loops):
                    if d.kind == "assign" and d.value is not None:
                        pending.append((d.value, outer, depth + 1))
            elif type(node) is cst.Call:
                member = self.ir.qualify_tl(node.func)
                if self.moves_axes(node):
                    return None
                if member is None and type(node.func) is cst.Attribute:
                    pending.append((node.func.value, outer, depth + 1))  # `m.to(tl.int1)`
                else:
                    pending.extend((arg.value, outer, depth + 1) for arg in node.args)
            elif isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
                pending.append((node.left, outer, depth + 1))
                pending.append((node.right, outer, depth + 1))
            elif type(node) is cst.UnaryOperation:
                pending.append((node.expression, outer, depth + 1))
            elif type(node) is cst.IfExp:
                pending.append((node.body, outer, depth + 1))
                pending.append((node.orelse, outer, depth + 1))
        return found

    def bounds(self, small: cst.BaseExpression, dim: str, access: Access) -> bool:
        # The dimension itself, or a part of its tile (`offs_k < K` for `k * BLOCK_K + offs_k`); a
        # tile built on a bare offset the pointer uses (`i_t * BT + o` beside a column `o`) is
        # another axis that happens to share the arange.
        keys = self.ev.dims(small, access.order, access.path, access.loops)
        return dim in keys or any(not key.startswith(LOOP_PREFIX) and key in self.ev.tile_parts.get(dim, ())
                                  for key in keys)


def slice_text(node: cst.Subscript) -> str:
    parts = []
    for element in node.slice:
        index = element.slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == "None":
            parts.append("None")
        elif isinstance(index, cst.Slice) and index.lower is None and index.upper is None:
            parts.append(":")
        else:
            parts.append(re.sub(r"\s", "", code_of(index)))
    return "[" + ", ".join(parts) + "]"


def from_right(broadcast: str) -> int | None:
    """The axis a 1-D tile lands on, counted from the last: `[:, None]` 1, `[None, :]` 0, bare 0."""
    if broadcast == "":
        return 0
    parts = broadcast[1:-1].split(", ")
    if parts.count(":") != 1 or any(part not in (":", "None") for part in parts):
        return None
    return len(parts) - 1 - parts.index(":")
