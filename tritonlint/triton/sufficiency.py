"""Masks that are there but bound the wrong thing: an axis the pointer walks that the mask misses.

Read after the hazard stage, for accesses whose mask the evaluator already counts as bounding every
walked dimension (TL101 is quiet). Two questions the evaluator's `covers` leaves open:

- shifts: the pointer's tile of a dimension is moved by a loop (`a_ptrs += BLOCK_K * s`) or by the
  program id (`X + pid * BLOCK + offs`), and every comparison that bounds that dimension ignores
  the move (`offs_k < K`, `offs < N`): in-tile offsets compared with the whole extent;
- axes: the mask bounds a dimension along another axis than the pointer walks it
  (`offs[:, None] < M` beside a pointer's `offs[None, :]`), which compiles only for square tiles
  and then masks the wrong lanes.

Each verdict keeps its reason (`SufficiencyVerdict`), for the messages and for `--explain`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.triton.facts import full_tiles
from tritonlint.triton.ir import LOOP_PREFIX, PROGRAM, Access, Def, Loop, TailHazard, Walk
from tritonlint.triton.names import code_of
from tritonlint.triton.syntax import ordered, range_args
from tritonlint.triton.tree import names_in, nodes_under, terms

if TYPE_CHECKING:
    from tritonlint.triton.model import KernelModel

# Calls that move a tensor's axes: a broadcast read through them is not the one written.
_AXIS_MOVES = {"trans", "permute", "reshape", "view", "ravel", "expand_dims", "join", "split", "interleave"}


@dataclass(frozen=True)
class SufficiencyVerdict:
    """What the check found on one walk of one access: a hazard with its reason, or why not."""

    walk: Walk
    hazard: TailHazard | None
    reason: str
    shape: str = ""  # "shift" or "axes", for a hazard


class MaskSufficiency:
    """TL104's reading of one kernel."""

    def __init__(self, kernel: KernelModel) -> None:
        self.kernel = kernel
        self.ev, self.flow, self.walker = kernel.ev, kernel.flow, kernel.walker

    def hazards(self, kind: str) -> Iterator[TailHazard]:
        for access in self.kernel.accesses:
            if access.kind != kind or access.mask is None or access.boundary_check is not None:
                continue
            found = next((v.hazard for v in self.verdicts(access) if v.hazard is not None), None)
            if found is not None and self.kernel.hazards.hazard_of(access) is None:
                yield found

    def verdicts(self, access: Access) -> Iterator[SufficiencyVerdict]:
        """One verdict per walk the mask is held to bound; lazy."""
        if access.mask is None or access.boundary_check is not None:
            return
        walks = self.walker.walks(access)
        if not walks:
            return
        own = self.ev.mask_dims(access, own=True)
        if own is None:
            return
        moved_by = self.walker.pointer_loops(access)
        comparisons = [sides for sides in map(ordered, self.flow.mask_comparisons(access)) if sides is not None]
        for walk in walks:
            if walk.dim is None or walk.dim.endswith("]") or not self.ev.covers(own, walk.keys, moved_by):
                continue  # no offsets, a block pointer, or unbounded (TL101's business)
            yield self._judge(access, walk, comparisons)

    def _judge(self, access: Access, walk: Walk,
               comparisons: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> SufficiencyVerdict:
        dim = walk.dim
        assert dim is not None
        label = f"`{self.ev.label(dim)}`"
        relevant = [(small, large) for small, large in comparisons if self._bounds(small, dim, access)]
        if not relevant:
            return SufficiencyVerdict(walk, None, f"no single comparison bounds {label}: not judged")
        size = self.ev.dim_size.get(dim)
        if any(code_of(large) == size for _, large in relevant):
            # `o_k < K` over `tl.arange(0, K)`: the author holds the tile to be the whole extent, or
            # a page of its own (`db + pid * BK + o_db`): the program moves whole pages.
            return SufficiencyVerdict(walk, None, f"the mask compares {label} with its own block size {size}: "
                                      "whole pages")
        axes = self._axes(access, dim, [small for small, _ in relevant])
        if axes is not None:
            pointer_slice, mask_slice = axes
            evidence = (f"the pointer walks {label} along {_axis_words(pointer_slice)}, the mask bounds it "
                        f"along {_axis_words(mask_slice)}")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on every tile where the tile "
                                                       f"is square, the partial last one included", evidence),
                                      evidence, "axes")
        extents = [(small, large) for small, large in relevant if self.ev.runtime(large, 0)]
        for shift, moved in self._shifts(access, walk) if extents else ():
            if any(self._accounts(small, large, shift, access) for small, large in relevant):
                continue
            if shift != PROGRAM and walk.loop is not None:
                fact = full_tiles(self.kernel, access, walk)
                if fact is not None:
                    return SufficiencyVerdict(walk, None, f"the mask ignores the loop, but {fact.reason}")
            where = "the program's tile" if shift == PROGRAM else \
                f"the loop at line {self.kernel.line_of(moved.node)}" if moved is not None else "a loop"
            bound = "; ".join(f"`{code_of(small)} < {code_of(large)}`" for small, large in relevant[:2])
            evidence = (f"the pointer's {label} is moved by {where}; the mask compares the in-tile offsets "
                        f"with the whole extent ({bound})")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the tile that ends past the "
                                                       "extent", evidence), evidence, "shift")
        return SufficiencyVerdict(walk, None, f"the mask bounds {label} where the pointer puts it")

    # ------------------------------------------------------------------ shifts

    def _bounds(self, small: cst.BaseExpression, dim: str, access: Access) -> bool:
        keys = self.ev.dims(small, access.order, access.path, access.loops)
        return dim in keys or any(dim in self.ev.tile_parts.get(key, ()) for key in keys)

    def _same_tile(self, key: str, dim: str) -> bool:
        """`key` is `dim`, or a tile built on it (`q_index = arange + i * BLOCK` over the arange)."""
        return key == dim or dim in self.ev.tile_parts.get(key, ()) or key in self.ev.tile_parts.get(dim, ())

    def _shifts(self, access: Access, walk: Walk) -> Iterator[tuple[str, Loop | None]]:
        """What moves this dimension's tile in the pointer: the loop advancing it, the program id."""
        dim = walk.dim
        assert dim is not None
        if walk.loop is not None and self._moves_a_tile(access, dim, walk.loop):
            yield walk.loop.key, walk.loop
        if PROGRAM in self.ev.tile_parts.get(dim, ()) or self._shift_term(access, dim, PROGRAM):
            yield PROGRAM, None

    def _moves_a_tile(self, access: Access, dim: str, loop: Loop) -> bool:
        """The loop moves the pointer a whole tile of `dim` per iteration: it advances a name the
        pointer is built from by the tile's block size (`a_ptrs += BLOCK_K * s`), or its variable
        steps by it (`for k in range(0, K, BLOCK_K)`, read in the pointer). A loop that shifts a
        window by one (`t + i_w` over a filter's width) moves no tile past the extent."""
        chain = self.flow.chain(access.pointer, access)
        for defs in chain.values():
            for d in defs:
                if d.kind == "advance" and d.loops and d.loops[-1] is loop and d.value is not None \
                        and self.ev.size_in(dim, code_of(d.value)):
                    return True
        if self._shift_term(access, dim, loop.key):
            return True
        if loop.tiles == "unknown" or not loop.targets & (chain.keys() | set(names_in(access.pointer))):
            return False
        # By the step alone: `range(i_t * BT, ..., BS)` moves BS-tiles, not the BT rows it starts at.
        args = range_args(loop.node.iter) if isinstance(loop.node, cst.For) and \
            isinstance(loop.node.iter, cst.Call) else []
        return len(args) == 3 and bool(self.ev.size_tokens(dim) & set(re.findall(r"\w+", code_of(args[2]))))

    def _shift_term(self, access: Access, dim: str, shift: str) -> bool:
        """`X + pid * BLOCK * s + offs * s`, or a base moved that way before: a term that moves with
        the program id (or a loop, `k * BLOCK_K * s`) alone and steps by this dimension's block size."""
        sources: list[tuple[cst.BaseExpression, Def | None]] = [(access.pointer, None)]
        sources += [(d.value, d) for defs in self.flow.chain(access.pointer, access).values() for d in defs
                    if d.value is not None and d.kind in ("assign", "advance")]
        for value, d in sources:
            order, path, loops = (d.order, d.path, d.loops) if d is not None else \
                (access.order, access.path, access.loops)
            if d is not None and not self.ev._pointer_sum(value, 0) and dim not in self.ev.def_dims(d, path):
                continue  # another dimension's offsets (`o_r = i_t * BT + i_i * BC + ...`)
            for term in terms(value):
                keys = self.ev.dims(term, order, path, loops)
                if shift in keys and all(key.startswith(LOOP_PREFIX) for key in keys) and \
                        self.ev.size_in(dim, code_of(term)):
                    return True
        return False

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
                elif d.loops and d.loops[-1].key == shift and d.kind in ("for", "advance"):
                    return True
                elif d.kind == "for" and any(loop.key == shift for loop in d.loops):
                    return True
        text = code_of(small) + code_of(large)
        return shift == PROGRAM and "program_id(" in text

    def _reads_program(self, loop: Loop, access: Access) -> bool:
        node = loop.node.iter if isinstance(loop.node, cst.For) else loop.node.test
        if "program_id(" in code_of(node):
            return True
        chain = self.flow.build_chain(node, access.order, access.path, access.loops)
        return any(d.value is not None and "program_id(" in code_of(d.value) for defs in chain.values() for d in defs)

    # ------------------------------------------------------------------ axes

    def _axes(self, access: Access, dim: str, smalls: list[cst.BaseExpression]) -> tuple[str, str] | None:
        """(pointer's broadcast, mask's) of `dim` when they put it on different axes."""
        pointer = self._slices(access.pointer, dim, access)
        if pointer is None or len(pointer) != 1:
            return None
        (pointer_slice,) = pointer
        if pointer_slice == "":
            return None  # a 1-D pointer: no axis to confuse
        mask = self._mask_slices(access, dim)
        if not mask or len(mask) != 1:
            return None
        (mask_slice,) = mask
        if _from_right(mask_slice) == _from_right(pointer_slice):
            return None
        return pointer_slice, mask_slice

    def _slices(self, node: cst.BaseExpression, dim: str, access: Access) -> set[str] | None:
        """The broadcasts (`[:, None]`) `dim` is put under in an expression and what it is built
        from; "" for none; None where an axis-moving call makes them unreadable."""
        roots = [node] + [d.value for defs in self.flow.chain(node, access).values() for d in defs
                          if d.value is not None and d.kind in ("assign", "advance")]
        found: set[str] = set()
        bare = False
        for root in roots:
            for inner in nodes_under(root):
                if type(inner) is cst.Call and self.kernel.qualify_tl(inner.func) in _AXIS_MOVES:
                    return None
                if type(inner) is cst.Call and type(inner.func) is cst.Attribute and \
                        inner.func.attr.value in _AXIS_MOVES:
                    return None
                if type(inner) is cst.Subscript:
                    keys = self.ev.dims(inner.value, access.order, access.path, access.loops)
                    offsets = {key for key in keys if not key.startswith(LOOP_PREFIX)}
                    if len(offsets) == 1 and self._same_tile(offsets.pop(), dim):
                        found.add(_slice_text(inner))
        if not found:
            bare = True
        return found | ({""} if bare else set())

    def _mask_slices(self, access: Access, dim: str) -> set[str] | None:
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
                if sides is None or not self._bounds(sides[0], dim, access):
                    continue
                inner = self._slices(sides[0], dim, access)
                if inner is None:
                    return None
                inner.discard("")
                if inner and outer:
                    return None  # broadcast twice: not read
                found |= inner or {outer}
            elif type(node) is cst.Subscript:
                if outer:
                    return None
                pending.append((node.value, _slice_text(node), depth + 1))
            elif type(node) is cst.Name:
                for d in self.flow.reaching(node.value, access.order, access.path, access.loops):
                    if d.kind == "assign" and d.value is not None:
                        pending.append((d.value, outer, depth + 1))
            elif type(node) is cst.Call:
                member = self.kernel.qualify_tl(node.func)
                if member in _AXIS_MOVES or (member is None and type(node.func) is cst.Attribute
                                             and node.func.attr.value in _AXIS_MOVES):
                    return None
                if member is None and type(node.func) is cst.Attribute:
                    pending.append((node.func.value, outer, depth + 1))  # `m.to(tl.int1)`
                else:
                    pending.extend((arg.value, outer, depth + 1) for arg in node.args)
            elif type(node) in (cst.BinaryOperation, cst.BooleanOperation):
                pending.append((node.left, outer, depth + 1))  # type: ignore[attr-defined]
                pending.append((node.right, outer, depth + 1))  # type: ignore[attr-defined]
            elif type(node) is cst.UnaryOperation:
                pending.append((node.expression, outer, depth + 1))  # type: ignore[attr-defined]
            elif type(node) is cst.IfExp:
                pending.append((node.body, outer, depth + 1))  # type: ignore[attr-defined]
                pending.append((node.orelse, outer, depth + 1))  # type: ignore[attr-defined]
        return found


def _slice_text(node: cst.Subscript) -> str:
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


def _from_right(broadcast: str) -> int | None:
    """The axis a 1-D tile lands on, counted from the last: `[:, None]` 1, `[None, :]` 0, bare 0."""
    if broadcast == "":
        return 0
    parts = broadcast[1:-1].split(", ")
    if parts.count(":") != 1 or any(part not in (":", "None") for part in parts):
        return None
    return len(parts) - 1 - parts.index(":")


def _axis_words(broadcast: str) -> str:
    axis = _from_right(broadcast)
    if broadcast == "":
        return "the last axis (no broadcast)"
    return f"`{broadcast}`" + ("" if axis is None else f" (axis {axis} from the last)")
