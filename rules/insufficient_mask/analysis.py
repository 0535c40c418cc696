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
from functools import cached_property
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.diagnostics import Applicability
from tritonlint.fixing.masks import (  # TL101's mask sources and call rewriting, reused as they are
    CallFix,
    _available,
    _code,
    _combined_mask,
    _comparison_mask,
    _loop_mask,
    _pure,
    _sibling_mask,
    _with_arguments,
)
from tritonlint.semantic.facts import full_tiles
from tritonlint.semantic.ir import LOOP_PREFIX, PROGRAM, Access, Def, Loop, TailHazard, Walk
from tritonlint.semantic.paths import Path
from tritonlint.source.names import code_of
from tritonlint.source.syntax import ordered, range_args, strip_casts
from tritonlint.source.tree import names_in, nodes_under, terms

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelModel

# A packed tile's block size: `BLOCK_K // 2`, `BLOCK_N // PACK`.
_PACKED = re.compile(r"\(?(\w+)\)?//\(?\w+\)?")
# A block size rounded up from a group's size, as the host spells it (squashed).
_NEXT_POW2 = re.compile(r"next_power_of_2\((.+)\)$")
# Calls that move a tensor's axes: a broadcast read through them is not the one written.
_AXIS_MOVES = {"trans", "permute", "reshape", "view", "ravel", "expand_dims", "join", "split", "interleave"}


@dataclass(frozen=True)
class SufficiencyVerdict:
    """What the check found on one walk of one access: a hazard with its reason, or why not."""

    walk: Walk
    hazard: TailHazard | None
    reason: str
    shape: str = ""  # "shift" or "axes", for a hazard
    shift: str = ""  # the loop key or PROGRAM the mask ignores (shape "shift")
    slices: tuple[str, str] = ("", "")  # the pointer's broadcast and the mask's (shape "axes")
    followed: tuple[Loop | None, ...] = ()  # shifts the bound moves with (None: the program id)


class MaskSufficiency:
    """TL104's reading of one kernel."""

    def __init__(self, kernel: KernelModel) -> None:
        self.kernel = kernel
        self.ev, self.flow, self.walker = kernel.ev, kernel.flow, kernel.walker
        self._moved_memo: dict[Access, frozenset[str]] = {}
        self._summand_memo: dict[tuple[int, int, Path], tuple[cst.BaseExpression,
                                                              list[tuple[cst.BaseExpression, frozenset[str]]]]] = {}
        self._subscript_memo: dict[tuple[int, int, Path], tuple[cst.BaseExpression,
                                                                list[tuple[str, frozenset[str]]] | None]] = {}
        self._broadcast_memo: dict[tuple[int, int], tuple[cst.BaseExpression, Access,
                                                          list[tuple[str, frozenset[str]]] | None]] = {}

    def hazards(self, kind: str) -> Iterator[TailHazard]:
        for access in self.kernel.accesses:
            if access.kind != kind or access.mask is None or access.boundary_check is not None:
                continue
            found = next((v.hazard for v in self.verdicts(access) if v.hazard is not None), None)
            if found is not None and self.kernel.hazards.hazard_of(access) is None:
                yield found

    def verdict_of(self, hazard: TailHazard) -> SufficiencyVerdict:
        """The verdict that made a hazard (the rule's message and fix read its shape)."""
        return next(v for v in self.verdicts(hazard.access) if v.hazard == hazard)

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
        moved_by = self._moved_by(access)
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
        # Axes can be confused only on a tile of two dimensions or more.
        axes = self._axes(access, dim) if sum(w.dim is not None for w in self.walker.walks(access)) > 1 else None
        if axes is not None:
            pointer_slice, mask_slice = axes
            evidence = (f"the pointer walks {label} along {_axis_words(pointer_slice)}, the mask bounds it "
                        f"along {_axis_words(mask_slice)}")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on every tile where the tile "
                                                       "is square, the partial last one included", evidence),
                                      evidence, "axes", slices=(pointer_slice, mask_slice))
        extents = [(small, large) for small, large in relevant if self.ev.runtime(large, 0)]
        followed = []
        for shift, moved in self._shifts(access, walk) if extents else ():
            if any(self._accounts(small, large, shift, access) for small, large in relevant):
                followed.append(moved)
                continue
            where = self._mover(moved)
            fact = full_tiles(self.kernel, access, walk)
            if fact is not None:
                return SufficiencyVerdict(walk, None, f"the mask ignores {where}, but {fact.reason}")
            bound = "; ".join(f"`{self._text(small)} < {self._text(large)}`" for small, large in relevant[:2])
            evidence = (f"the pointer's {label} is moved by {where}; the mask compares the in-tile offsets "
                        f"with the whole extent ({bound})")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the tile that ends past the "
                                                       "extent", evidence), evidence, "shift", shift)
        units = self._units(access, dim, relevant)
        if units is not None:
            (small, large), unpacked, other = units
            evidence = (f"`{self._text(small)} < {self._text(large)}` compares a tile of {size} with the bound the "
                        f"tl.{other.kind} at line {self.kernel.line_of(other.call)} gives a tile of {unpacked}: "
                        "one of them is in the other's units")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the tile that ends past the "
                                                       "extent in the pointer's units", evidence),
                                      evidence, "units", slices=(code_of(large), unpacked))
        group = self._group(access, dim, comparisons)
        if group is not None:
            block, groups = group
            evidence = (f"`{label[1:-1]}` spans tiles of {block}, launched as `next_power_of_2` of the group size "
                        f"({', '.join(f'`{g}`' for g in groups)}) the pointer steps by; no bound in the mask "
                        "reads the group size")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "not out of bounds: the padding lanes past the "
                                                       "group's end reach the next group's elements, inside the "
                                                       "allocation (wrong data, and a store overwrites them)",
                                                       evidence), evidence, "group", slices=(block, groups[0]))
        late = self._late_offset(access, relevant)
        if late is not None:
            shifted, compared, bound_text = late
            evidence = (f"the mask compares `{compared}`, but the pointer walks `{shifted}`, built from `{compared}` "
                        "plus an offset the comparison does not read")
            return SufficiencyVerdict(walk, TailHazard(access, walk, "reachable on the lanes the offset moves past "
                                                       "the extent", evidence), evidence, "late",
                                      slices=(shifted, bound_text))
        return SufficiencyVerdict(walk, None, f"the mask bounds {label} where the pointer puts it",
                                  followed=tuple(followed))

    # ------------------------------------------------------------------ groups and late offsets

    @cached_property
    def _padded_groups(self) -> dict[str, set[str]]:
        """Block-size parameter -> the parameters holding the group size a launch rounds it up
        from (`BLOCK=triton.next_power_of_2(group_size)`, directly or through a host name). The
        kernel's launches say it once: read on first use, after the engine has set them."""
        found: dict[str, set[str]] = {}
        for launch in self.kernel.launches:
            for param, text in launch.args.items():
                values = [text] + [value for value, _ in launch.allocations.get(param, ())]
                for value in values:
                    match = _NEXT_POW2.search(_spaceless_text(value))
                    if match is None:
                        continue
                    groups = {other for other, given in launch.args.items()
                              if other != param and _spaceless_text(given) == match.group(1)}
                    if groups:
                        found.setdefault(param, set()).update(groups)
        return found

    def _group(self, access: Access, dim: str,
               comparisons: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> tuple[str, list[str]] | None:
        """A tile of `next_power_of_2(group)` lanes whose pointer steps by the group size, masked
        without any comparison that reads the group size: the padding lanes reach the next group.
        `comparisons`: the mask's, ordered (`verdicts` reads them once per access)."""
        if not self.kernel.launches:
            return None
        size = _spaceless_text(self.ev.dim_size.get(dim, ""))
        groups = self._padded_groups.get(size) if size else None
        if not groups:
            return None
        read = groups & set(self.flow.chain(access.pointer, access))
        if not read:
            return None
        across = False  # some comparison bounds offsets measured across groups (`g * G + cols < n`)
        for sides in comparisons:
            if groups & self._reads(sides[1], access):
                return None  # a group bound (`cols < group_size`, `offs < (g + 1) * G`)
            across = across or (self._bounds(sides[0], dim, access) and bool(groups & self._reads(sides[0], access)))
        # Only in-group offsets compared (`offs < half_dim`): a bound of its own inside the group.
        return (size, sorted(read)) if across else None

    def _reads(self, node: cst.BaseExpression, access: Access) -> set[str]:
        """The names an expression is computed from, itself included."""
        return set(names_in(node)) | set(self.flow.build_chain(node, access.order, access.path, access.loops))

    def _late_offset(self, access: Access, relevant: list[tuple[cst.BaseExpression, cst.BaseExpression]]
                     ) -> tuple[str, str, str] | None:
        """`m_t = o_t < T` and a pointer walking `o_cs = o_t + seq_offset`: the compared offsets
        plus a run-time offset the comparison does not read. (shifted name, compared name, bound)"""
        chain = self.flow.chain(access.pointer, access)
        # Read only once a definition has the shape (most masks have none): the pointer's base
        # names and the names any comparison of the mask reads, and the names a bound is measured
        # from (`T = eos - bos`, `offset < swa_len`), which keep the shifted lanes in range.
        excluded: set[str] | None = None
        measured: set[str] = set()
        for small, large in relevant:
            base = _unbroadcast(small)
            if not isinstance(base, cst.Name) or not self.ev.runtime(large, 0):
                continue  # a constexpr bound is a page's width, not where the tensor ends
            for name, defs in chain.items():
                if name == base.value:
                    continue
                for d in defs:
                    added = self._added_scalars(d, base.value)
                    if added is None:
                        continue
                    if excluded is None:
                        excluded = self._roots(access.pointer, access) | {
                            n for comparison in self.flow.mask_comparisons(access) for n in names_in(comparison)}
                        measured = {n for _, bound in relevant for n in self._reads(bound, access)}
                    if name in excluded:
                        break
                    names = [t.value for t in added]
                    shift_names = set(names) | {n for t in added
                                                for n in self.flow.build_chain(t, d.order, d.path, d.loops)}
                    if shift_names & measured or not self._host_unmeasured(large, names):
                        continue
                    return name, base.value, self._text(large)
        return None

    def _added_scalars(self, d: Def, base: str) -> list[cst.Name] | None:
        """The run-time scalars `d` adds, as they are, to `base` (`seq_offset` of
        `o_cs = o_t + seq_offset`); None where it is no such sum."""
        if d.kind != "assign" or type(d.value) is not cst.BinaryOperation or type(d.value.operator) is not cst.Add:
            return None
        parts = terms(d.value)
        rest = [t for t in parts if not (isinstance(t, cst.Name) and t.value == base)]
        names = [t for t in rest if isinstance(t, cst.Name)]
        if len(rest) == len(parts) or not rest or len(names) != len(rest) or \
                any(self.ev.constexpr(n.value) for n in names):
            return None  # not `o_t + offset` with run-time scalars added as they are
        if any(self.ev.dims(t, d.order, d.path, d.loops) for t in names):
            return None  # another tile, or a loop or program index: not a scalar offset
        return names

    def _host_unmeasured(self, large: cst.BaseExpression, shifts: list[str]) -> bool:
        """Whether an offset and a bound the host passes are independent at every launch. Both
        parameters: the host may size the bound from the offset (a chunk of a longer sequence,
        `T=min(CH, n - t)` beside `T_OFFSET=t`), so without a launch in view nothing is said."""
        params = {d.name for d in self.kernel.defs.get(shifts[0], ()) if d.kind == "param"} if shifts else set()
        bound = code_of(large)
        if not params or type(large) is not cst.Name or \
                not any(d.kind == "param" for d in self.kernel.defs.get(bound, ())):
            return True  # an offset computed in the kernel: its reading there decides
        if not self.kernel.launches:
            return False
        for launch in self.kernel.launches:
            shift = launch.args.get(shifts[0])
            given = launch.args.get(bound)
            if shift is None or given is None:
                return False
            bound_words = _words(given) | {w for value, _ in launch.allocations.get(bound, ()) for w in _words(value)}
            shift_words = _words(shift) | {w for value, _ in launch.allocations.get(shifts[0], ()) for w in _words(value)}
            if bound_words & shift_words:
                return False
        return True

    def _roots(self, pointer: cst.BaseExpression, access: Access) -> set[str]:
        """The names along a pointer's leftmost terms (`ptrs`, `X` of `ptrs = X + offs`): the base,
        never an offset."""
        found: set[str] = set()
        pending = [pointer]
        while pending and len(found) < 16:
            node = pending.pop()
            while type(node) is cst.Subscript:
                node = node.value  # `ptrs[:, None]`
            while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
                node = node.left
            if type(node) is not cst.Name or node.value in found:
                continue
            found.add(node.value)
            pending += [d.value for d in self.flow.reaching(node.value, access.order, access.path, access.loops)
                        if d.value is not None and d.kind in ("assign", "advance")]
        return found

    def _mover(self, moved: Loop | None) -> str:
        """What moves a tile, for messages (a line number costs a position pass: only when said)."""
        return "the program's tile" if moved is None else f"the loop at line {self.kernel.line_of(moved.node)}"

    def reason(self, verdict: SufficiencyVerdict) -> str:
        """The verdict's reason as `--explain` prints it."""
        if not verdict.followed:
            return verdict.reason
        return f"{verdict.reason} (moved by {' and '.join(map(self._mover, verdict.followed))}, and so is the bound)"

    def _text(self, node: cst.BaseExpression) -> str:
        """An expression as written, on one line."""
        return " ".join(self.kernel.module.code_for_node(node).split())

    def _units(self, access: Access, dim: str, relevant: list[tuple[cst.BaseExpression, cst.BaseExpression]]
               ) -> tuple[tuple[cst.BaseExpression, cst.BaseExpression], str, Access] | None:
        """A packed tile (`tl.arange(0, BLOCK_K // 2)`) compared with the very bound the kernel gives
        its unpacked twin (`BLOCK_K`): `offs_kp < K - k` beside `offs_k < K - k`."""
        match = _PACKED.fullmatch(re.sub(r"\s", "", self.ev.dim_size.get(dim, "")))
        if match is None:
            return None
        unpacked = match.group(1)
        mine = {_spaceless(large): (small, large) for small, large in relevant
                if _pure(_unbroadcast(small), self.kernel, access)}
        if not mine:
            return None
        for other in self.kernel.accesses:
            if other is access or other.mask is None:
                continue
            for sides in map(ordered, self.flow.mask_comparisons(other)):
                if sides is None or _spaceless(sides[1]) not in mine:
                    continue
                keys = self.ev.dims(sides[0], other.order, other.path, other.loops)
                if any(_spaceless_text(self.ev.dim_size.get(key, "")) == unpacked for key in keys
                       if not key.startswith(LOOP_PREFIX)) and _pure(_unbroadcast(sides[0]), self.kernel, other):
                    return mine[_spaceless(sides[1])], unpacked, other
        return None

    def accounts_in(self, mask: str, dim: str, shift: str, access: Access) -> bool:
        """Whether a mask's text has a comparison bounding `dim` that moves with `shift`."""
        try:
            node = cst.parse_expression(mask)
        except cst.ParserSyntaxError:
            return False
        for comparison in nodes_under(node):
            if type(comparison) is not cst.Comparison or len(comparison.comparisons) != 1:
                continue
            sides = ordered(comparison)
            if sides is not None and self._bounds(sides[0], dim, access) and \
                    self._accounts(sides[0], sides[1], shift, access):
                return True
        return False

    def replace_ignoring(self, access: Access, dim: str, shift: str, bound: str) -> str | None:
        """The call's mask with each comparison of `dim` that ignores the shift, written in the call
        itself (`(offs_k[None, :] < K)`), replaced by `bound`; None when there is none there."""
        assert access.mask is not None
        text = _code(self.kernel, access.mask)
        replaced = text
        for node in nodes_under(access.mask):
            if type(node) is not cst.Comparison or len(node.comparisons) != 1:
                continue
            sides = ordered(node)
            if sides is None or not self._bounds(sides[0], dim, access) or \
                    self._accounts(sides[0], sides[1], shift, access):
                continue
            old = _code(self.kernel, node)
            new = f"({bound})" if node.lpar or node is not access.mask else bound
            if replaced.count(old) != 1:
                return None
            replaced = replaced.replace(old, new)
        return None if replaced == text else replaced

    # ------------------------------------------------------------------ shifts

    def _bounds(self, small: cst.BaseExpression, dim: str, access: Access) -> bool:
        # The dimension itself, or a part of its tile (`offs_k < K` for `k * BLOCK_K + offs_k`); a
        # tile built on a bare offset the pointer uses (`i_t * BT + o` beside a column `o`) is
        # another axis that happens to share the arange.
        keys = self.ev.dims(small, access.order, access.path, access.loops)
        return dim in keys or any(not key.startswith(LOOP_PREFIX) and key in self.ev.tile_parts.get(dim, ())
                                  for key in keys)

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
                        and self.ev.size_in(dim, code_of(d.value)):
                    return True
        if self._shift_term(access, dim, loop.key):
            return True
        if loop.tiles == "unknown" or not any(type(term) is cst.Name and term.value in loop.targets
                                              for term in self._sums_with(access, dim)):
            return False  # the loop's variable is no summand beside the offsets (`i_k = i_t - i_s // BS`)
        # By the step alone: `range(i_t * BT, ..., BS)` moves BS-tiles, not the BT rows it starts at.
        args = range_args(loop.node.iter) if isinstance(loop.node, cst.For) and \
            isinstance(loop.node.iter, cst.Call) else []
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

    # ------------------------------------------------------------------ axes

    def _axes(self, access: Access, dim: str) -> tuple[str, str] | None:
        """(pointer's broadcast, mask's) of `dim` when they put it on different axes."""
        mask = self._mask_slices(access, dim)
        if not mask or len(mask) != 1:
            return None
        (mask_slice,) = mask
        if mask_slice and self._pointer_writes(access, dim, mask_slice):
            return None  # the pointer puts it there too: the same axis, or more than one (not judged)
        pointer = self._slices(access.pointer, dim, access)
        if pointer is None or len(pointer) != 1:
            return None
        (pointer_slice,) = pointer
        if pointer_slice == "":
            return None  # a 1-D pointer: no axis to confuse
        if _from_right(mask_slice) == _from_right(pointer_slice):
            return None
        return pointer_slice, mask_slice

    def _pointer_writes(self, access: Access, dim: str, broadcast: str) -> bool:
        """Whether the pointer, or a definition it is built from, puts `dim` under `broadcast`:
        asked in the order the names are read, so the usual answer (yes, right there) is quick."""
        sources = [(access.pointer, access.order, access.path, access.loops)]
        sources += [(d.value, d.order, d.path, d.loops) for defs in self.flow.chain(access.pointer, access).values()
                    for d in defs if d.value is not None and d.kind in ("assign", "advance")]
        for value, order, path, loops in sources:
            found = self._subscripts(value, order, path, loops)
            if found is None:
                return True  # axes moved: not judged
            if any(text == broadcast and len(offsets) == 1 and self.ev.same_tile(next(iter(offsets)), dim)
                   for text, offsets in found):
                return True
        return False

    def axis_of(self, node: cst.BaseExpression, dim: str, access: Access) -> tuple[int, int] | None:
        """Where `dim` lies in the tile an expression builds: (its axis counted from the last, the
        tile's rank); None where that cannot be read (TL105 follows a load's lanes by it)."""
        broadcasts = self._broadcasts(node, access)
        slices = self._slices(node, dim, access)
        if broadcasts is None or slices is None or len(slices) != 1:
            return None
        text = next(iter(slices))
        if text == "":
            # A bare offset beside broadcast ones sits on an axis nothing here names.
            return None if any(written for written, _ in broadcasts) else (0, 1)
        right = _from_right(text)
        return None if right is None else (right, text.count(",") + 1)

    def _slices(self, node: cst.BaseExpression, dim: str, access: Access) -> set[str] | None:
        """The broadcasts (`[:, None]`) `dim` is put under in an expression and what it is built
        from; "" for none; None where an axis-moving call makes them unreadable."""
        broadcasts = self._broadcasts(node, access)
        if broadcasts is None:
            return None
        found = {text for text, offsets in broadcasts if len(offsets) == 1 and self.ev.same_tile(next(iter(offsets)), dim)}
        return found or {""}

    def _broadcasts(self, node: cst.BaseExpression, access: Access) -> list[tuple[str, frozenset[str]]] | None:
        """Every broadcast subscript in an expression and what it is built from, with the offsets
        under it; None where an axis-moving call makes them unreadable. Read once per expression:
        each walk of the access asks again."""
        key = (id(node), id(access))
        memo = self._broadcast_memo.get(key)
        if memo is not None and memo[0] is node and memo[1] is access:
            return memo[2]
        # Only definitions that carry tile offsets can broadcast them (most of a chain is scalars:
        # strides, sequence bounds, loaded indices).
        found: list[tuple[str, frozenset[str]]] | None = self._subscripts(node, access.order, access.path,
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
                more = self._subscripts(d.value, d.order, d.path, d.loops)
                found = None if more is None else found + more
        self._broadcast_memo[key] = (node, access, found)
        return found

    def _subscripts(self, value: cst.BaseExpression, order: int, path: Path,
                    loops: tuple[Loop, ...]) -> list[tuple[str, frozenset[str]]] | None:
        """The broadcasts written in one expression, read once per definition (see `_summands`)."""
        key = (id(value), order, path)
        memo = self._subscript_memo.get(key)
        if memo is not None and memo[0] is value:
            return memo[1]
        found: list[tuple[str, frozenset[str]]] | None = []
        for inner in nodes_under(value):
            if isinstance(inner, cst.Call) and self._moves_axes(inner):
                found = None
                break
            if isinstance(inner, cst.Subscript):
                text = _slice_text(inner)
                if _from_right(text) is None:
                    continue  # an index, not a broadcast
                keys = self.ev.dims(inner.value, order, path, loops)
                assert found is not None
                found.append((text, frozenset(key for key in keys if not key.startswith(LOOP_PREFIX))))
        self._subscript_memo[key] = (value, found)
        return found

    def _near_slices(self, node: cst.BaseExpression, dim: str, access: Access) -> set[str] | None:
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
            subscripts = self._subscripts(value, order, path, loops)
            if subscripts is None:
                return None
            found |= {text for text, offsets in subscripts
                      if len(offsets) == 1 and self.ev.same_tile(next(iter(offsets)), dim)}
        return found

    def _moves_axes(self, call: cst.Call) -> bool:
        """`tl.trans(x)`, `x.permute(...)`, `tl.reshape(...)`: the axes read under it are not the ones written."""
        if (self.kernel.qualify_tl(call.func) or "") in _AXIS_MOVES:
            return True
        return isinstance(call.func, cst.Attribute) and call.func.attr.value in _AXIS_MOVES

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
                inner = self._near_slices(sides[0], dim, access)
                if inner is None or not (inner or outer):
                    return None  # unreadable, or no broadcast written nearby: not judged
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
                if self._moves_axes(node):
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


def _unbroadcast(node: cst.BaseExpression) -> cst.BaseExpression:
    """`offs[:, None]` read as `offs`: a broadcast keeps the units."""
    return node.value if type(node) is cst.Subscript else node


def _words(text: str) -> set[str]:
    """The names a host expression reads, calls and numbers left out (`min`, `65536` say nothing of a
    relation)."""
    return set(re.findall(r"\b[A-Za-z_]\w*\b(?!\s*\()", text))


def _spaceless(node: cst.BaseExpression) -> str:
    return _spaceless_text(code_of(node))


def _spaceless_text(text: str) -> str:
    return re.sub(r"\s", "", text)


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


# ---------------------------------------------------------------------- fixes

def describe(kernel: KernelModel, hazard: TailHazard) -> str:
    """The finding's message, by the shape that made it."""
    verdict = MaskSufficiency(kernel).verdict_of(hazard)
    call = f"tl.{hazard.access.kind}"
    label = f"`{kernel.label(hazard.walk.dim or '')}`"
    if verdict.shape == "axes":
        return f"the mask of {call} bounds {label} on another axis than the pointer walks it"
    if verdict.shape == "units":
        return (f"the mask of {call} compares the packed tile {label} with a bound in unpacked units "
                f"({verdict.slices[1]} per tile)")
    if verdict.shape == "group":
        return (f"the mask of {call} bounds {label} by the tensor's end only, but the tile of "
                f"{verdict.slices[0]} lanes is wider than the group of `{verdict.slices[1]}` it walks")
    if verdict.shape == "late":
        return (f"the mask of {call} bounds {label} before an offset is added: the pointer walks "
                f"`{verdict.slices[0]}`")
    mover = "the program id" if verdict.shift == PROGRAM else "the loop"
    return (f"the mask of {call} bounds {label} as in-tile offsets against the whole extent, but {mover} "
            "moves the pointer's tile")


def sufficiency_fix(kernel: KernelModel, hazard: TailHazard) -> CallFix:
    """Add the missing bound: the same mask sources as TL101's fix, in the same order, keeping only a
    bound that moves with the shift the mask ignores; for swapped axes, the comparison re-broadcast."""
    checker = MaskSufficiency(kernel)
    verdict = checker.verdict_of(hazard)
    access = hazard.access
    if verdict.shape == "axes":
        return _axes_fix(kernel, hazard, verdict)
    if verdict.shape == "units":
        return _units_fix(kernel, hazard, verdict)
    if verdict.shape in ("group", "late"):
        return _bound_fix(kernel, hazard, verdict)
    sources = [_loop_mask(kernel, hazard)] if hazard.walk.loop is not None and verdict.shift != PROGRAM else []
    sources += [_sibling_mask(kernel, hazard), _comparison_mask(kernel, hazard)]
    for found in sources:
        if found is None or not checker.accounts_in(found[0], hazard.walk.dim or "", verdict.shift, access):
            continue
        mask, applicability, source = found
        replaced = checker.replace_ignoring(access, hazard.walk.dim or "", verdict.shift, mask)
        if replaced is not None:
            new_call = _with_arguments(kernel, access, {"mask": replaced})
            return CallFix(f"Bound the mask with `{mask}` ({source})", applicability, new_call)
        new_call = _with_arguments(kernel, access, {"mask": _combined_mask(kernel, access, mask, None)})
        return CallFix(f"Add the bound `{mask}` to the mask ({source})", applicability, new_call)
    return CallFix("no bound that moves with the tile can be derived: compare the tile's own offsets "
                   "(`start + offs < N`, or `offs < N - start`)", Applicability.DISPLAY_ONLY, None)


def _axes_fix(kernel: KernelModel, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
    """`offs[:, None] < M` written in the call beside a pointer's `offs[None, :]`: re-broadcast each
    dimension the mask puts on the wrong axis, all at once (a transposed store swaps both)."""
    access = hazard.access
    assert access.mask is not None
    text = swapped = _code(kernel, access.mask)
    checker = MaskSufficiency(kernel)
    labels = []
    for each in checker.verdicts(access):
        if each.shape != "axes" or each.walk.dim is None:
            continue
        pointer_slice, mask_slice = each.slices
        for node in nodes_under(access.mask):
            if type(node) is cst.Subscript and _slice_text(node) == mask_slice and \
                    checker._bounds(node.value, each.walk.dim, access):
                written = _code(kernel, node)
                if swapped.count(written) != 1:
                    return _axes_display_only(pointer_slice)
                swapped = swapped.replace(written, _code(kernel, node.value) + pointer_slice)
                labels.append(f"`{kernel.label(each.walk.dim)}{pointer_slice}`")
    if swapped == text:
        return _axes_display_only(verdict.slices[0])
    new_call = _with_arguments(kernel, access, {"mask": swapped})
    return CallFix(f"Broadcast the mask as the pointer walks: {', '.join(labels)}", Applicability.UNSAFE, new_call)


def _units_fix(kernel: KernelModel, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
    """`offs_kp < K - k` over a tile of `BLOCK_K // 2`: compare with the bound in packed units,
    rounded up (an odd K leaves a half-used last byte that must still be read)."""
    access = hazard.access
    assert access.mask is not None
    match = _PACKED.fullmatch(_spaceless_text(kernel.dim_size.get(hazard.walk.dim or "", "")))
    assert match is not None
    factor = _spaceless_text(kernel.dim_size.get(hazard.walk.dim or "", "")).split("//", 1)[1]
    text = replaced = _code(kernel, access.mask)
    for node in nodes_under(access.mask):
        if type(node) is not cst.Comparison or len(node.comparisons) != 1:
            continue
        sides = ordered(node)
        if sides is None or _spaceless(sides[1]) != _spaceless_text(verdict.slices[0]):
            continue
        written = _code(kernel, node)
        if replaced.count(written) != 1:
            break
        less = str(int(factor) - 1) if factor.isdigit() else f"{factor} - 1"
        bound = f"({_code(kernel, sides[1])} + {less}) // {factor}"
        new = f"{_code(kernel, sides[0])} < {bound}"
        replaced = replaced.replace(written, f"({new})" if node.lpar else new)
    if replaced == text:
        return CallFix("the comparison is built outside the call; divide its bound by the packing "
                       f"factor {factor}", Applicability.DISPLAY_ONLY, None)
    return CallFix(f"Compare in packed units (the bound divided by {factor}, rounded up)", Applicability.UNSAFE,
                   _with_arguments(kernel, access, {"mask": replaced}))


def _axes_display_only(pointer_slice: str) -> CallFix:
    return CallFix(f"the mask is built outside the call; broadcast it as the pointer does "
                   f"(`{pointer_slice}`)", Applicability.DISPLAY_ONLY, None)


def _bound_fix(kernel: KernelModel, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
    """Add the bound the mask misses, `&`-ed to it (the mask only narrows): the group bound on the
    named in-group offsets (`cols < group_size`), or the shifted offsets against the same bound
    (`o_cs < T`). Unsafe: the lanes switched off may be ones the kernel meant to keep."""
    access = hazard.access
    if verdict.shape == "late":
        found = _shifted_bound(kernel, access, verdict.slices[0])
        if found is None:
            return CallFix(f"no comparison of `{verdict.slices[0]}` says where the tensor it walks ends: compare "
                           f"the shifted offsets with its extent (`{verdict.slices[0]} < ...`)",
                           Applicability.DISPLAY_ONLY, None)
        bound, line = found
        source = f"the mask of the tl.{line}"
    else:
        offsets = _in_group_offsets(kernel, access, verdict.slices[0])
        if offsets is None:
            return CallFix(f"the in-group offsets have no name: bound the lanes by the group "
                           f"(`tl.arange(0, {verdict.slices[0]}) < {verdict.slices[1]}`)", Applicability.DISPLAY_ONLY,
                           None)
        bound = f"{offsets} < {verdict.slices[1]}"
        source = "the lanes of the group"
    new_call = _with_arguments(kernel, access, {"mask": _combined_mask(kernel, access, bound, None)})
    return CallFix(f"Add the bound `{bound}` to the mask ({source})", Applicability.UNSAFE, new_call)


def _in_group_offsets(kernel: KernelModel, access: Access, block: str) -> str | None:
    """The one name the pointer is built from that is `tl.arange(0, block)` itself."""
    found = set()
    for name, defs in kernel.chain(access.pointer, access).items():
        for d in defs:
            if d.kind == "assign" and type(d.value) is cst.Call and \
                    (kernel.qualify_tl(d.value.func) or "") == "arange" and len(d.value.args) == 2 and \
                    _spaceless(d.value.args[1].value) == block:
                found.add(name)
    return next(iter(found)) if len(found) == 1 else None


def _shifted_bound(kernel: KernelModel, access: Access, shifted: str) -> tuple[str, str] | None:
    """A comparison another access's mask makes of the shifted offsets themselves (`o_cs < N`),
    readable where this access is: the extent of what they walk, as the kernel says it."""
    for other in kernel.accesses:
        if other is access or other.mask is None:
            continue
        for sides in map(ordered, kernel.flow.mask_comparisons(other)):
            compared = None if sides is None else _unbroadcast(sides[0])
            if sides is None or not isinstance(compared, cst.Name) or compared.value != shifted or \
                    not _available(kernel, sides[1], access):
                continue
            return f"{shifted} < {_code(kernel, sides[1])}", f"{other.kind} at line {kernel.line_of(other.call)}"
    return None
