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
from typing import Literal as OneOf

import libcst as cst

from tritonlint.fixing.masks import (  # TL101's mask sources and call rewriting, reused as they are
    code_in,
    is_pure,
)
from tritonlint.semantic.broadcasts import Broadcasts, from_right
from tritonlint.semantic.facts import full_tiles
from tritonlint.semantic.ir import LOOP_PREFIX, PROGRAM, Access, AccessKind, Def, Loop, Walk
from tritonlint.semantic.paths import Path
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.names import code_of
from tritonlint.source.syntax import ordered, range_args, strip_casts
from tritonlint.source.tree import names_in, nodes_under, terms

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext

# A packed tile's block size: `BLOCK_K // 2`, `BLOCK_N // PACK`.
PACKED = re.compile(r"\(?(\w+)\)?//\(?\w+\)?")
# A block size rounded up from a group's size, as the host spells it (squashed).
_NEXT_POW2 = re.compile(r"next_power_of_2\((.+)\)$")
# Calls that move a tensor's axes: a broadcast read through them is not the one written.
AXIS_MOVES = {"trans", "permute", "reshape", "view", "ravel", "expand_dims", "join", "split", "interleave"}


# How a mask misses an axis ("" for no hazard): a shift it ignores, swapped axes, packed units, a
# tile wider than its group, an offset added after the mask was formed.
Shape = OneOf["", "shift", "axes", "units", "group", "late"]


@dataclass(frozen=True)
class SufficiencyVerdict:
    """What the check found on one walk of one access: a hazard with its reason, or why not."""

    walk: Walk
    hazard: TailHazard | None
    reason: str
    shape: Shape = ""
    shift: str = ""  # the loop key or PROGRAM the mask ignores (shape "shift")
    # Shape "axes": the pointer's broadcast and the mask's; "units": the bound and the unpacked tile;
    # "group": the block and the group size; "late": the shifted offsets.
    slices: tuple[str, str] = ("", "")
    followed: tuple[Loop | None, ...] = ()  # shifts the bound moves with (None: the program id)


class MaskSufficiency:
    """TL104's reading of one kernel."""

    def __init__(self, kernel: KernelContext) -> None:
        self.kernel = kernel
        self.ev, self.flow, self.walker = kernel.ev, kernel.flow, kernel.walker
        self._moved_memo: dict[Access, frozenset[str]] = {}
        self._summand_memo: dict[tuple[int, int, Path], tuple[cst.BaseExpression,
                                                              list[tuple[cst.BaseExpression, frozenset[str]]]]] = {}
        self.broadcasts = Broadcasts(kernel.ir, kernel.flow, kernel.ev)

    def findings(self, kind: AccessKind) -> Iterator[tuple[SufficiencyVerdict, tuple[SufficiencyVerdict, ...]]]:
        """Each `kind` access whose mask misses an axis (and that TL101/TL102 do not report): the
        first verdict that says so, and every verdict on the access."""
        for access in self.kernel.accesses:
            if access.kind != kind or access.mask is None or access.boundary_check is not None:
                continue
            found = next((v for v in self.verdicts(access) if v.hazard is not None), None)
            if found is not None and self.kernel.hazards.hazard_of(access) is None:
                yield found, tuple(self.verdicts(access))

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
        relevant = [(small, large) for small, large in comparisons if self.broadcasts.bounds(small, dim, access)]
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
                    match = _NEXT_POW2.search(spaceless_text(value))
                    if match is None:
                        continue
                    groups = {other for other, given in launch.args.items()
                              if other != param and spaceless_text(given) == match.group(1)}
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
        size = spaceless_text(self.ev.dim_size.get(dim, ""))
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
            across = across or (self.broadcasts.bounds(sides[0], dim, access) and bool(groups & self._reads(sides[0], access)))
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
            base = unbroadcast(small)
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
        match = PACKED.fullmatch(re.sub(r"\s", "", self.ev.dim_size.get(dim, "")))
        if match is None:
            return None
        unpacked = match.group(1)
        mine = {spaceless(large): (small, large) for small, large in relevant
                if is_pure(unbroadcast(small), self.kernel, access)}
        if not mine:
            return None
        for other in self.kernel.accesses:
            if other is access or other.mask is None:
                continue
            for sides in map(ordered, self.flow.mask_comparisons(other)):
                if sides is None or spaceless(sides[1]) not in mine:
                    continue
                keys = self.ev.dims(sides[0], other.order, other.path, other.loops)
                if any(spaceless_text(self.ev.dim_size.get(key, "")) == unpacked for key in keys
                       if not key.startswith(LOOP_PREFIX)) and is_pure(unbroadcast(sides[0]), self.kernel, other):
                    return mine[spaceless(sides[1])], unpacked, other
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
            if sides is not None and self.broadcasts.bounds(sides[0], dim, access) and \
                    self._accounts(sides[0], sides[1], shift, access):
                return True
        return False

    def replace_ignoring(self, access: Access, dim: str, shift: str, bound: str) -> str | None:
        """The call's mask with each comparison of `dim` that ignores the shift, written in the call
        itself (`(offs_k[None, :] < K)`), replaced by `bound`; None when there is none there."""
        assert access.mask is not None
        text = code_in(self.kernel, access.mask)
        replaced = text
        for node in nodes_under(access.mask):
            if type(node) is not cst.Comparison or len(node.comparisons) != 1:
                continue
            sides = ordered(node)
            if sides is None or not self.broadcasts.bounds(sides[0], dim, access) or \
                    self._accounts(sides[0], sides[1], shift, access):
                continue
            old = code_in(self.kernel, node)
            new = f"({bound})" if node.lpar or node is not access.mask else bound
            if replaced.count(old) != 1:
                return None
            replaced = replaced.replace(old, new)
        return None if replaced == text else replaced

    # ------------------------------------------------------------------ shifts


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
        mask = self.broadcasts.mask_slices(access, dim)
        if not mask or len(mask) != 1:
            return None
        (mask_slice,) = mask
        if mask_slice and self.broadcasts.pointer_writes(access, dim, mask_slice):
            return None  # the pointer puts it there too: the same axis, or more than one (not judged)
        pointer = self.broadcasts.slices(access.pointer, dim, access)
        if pointer is None or len(pointer) != 1:
            return None
        (pointer_slice,) = pointer
        if pointer_slice == "":
            return None  # a 1-D pointer: no axis to confuse
        if from_right(mask_slice) == from_right(pointer_slice):
            return None
        return pointer_slice, mask_slice









def unbroadcast(node: cst.BaseExpression) -> cst.BaseExpression:
    """`offs[:, None]` read as `offs`: a broadcast keeps the units."""
    return node.value if type(node) is cst.Subscript else node


def _words(text: str) -> set[str]:
    """The names a host expression reads, calls and numbers left out (`min`, `65536` say nothing of a
    relation)."""
    return set(re.findall(r"\b[A-Za-z_]\w*\b(?!\s*\()", text))


def spaceless(node: cst.BaseExpression) -> str:
    return spaceless_text(code_of(node))


def spaceless_text(text: str) -> str:
    return re.sub(r"\s", "", text)




def _axis_words(broadcast: str) -> str:
    axis = from_right(broadcast)
    if broadcast == "":
        return "the last axis (no broadcast)"
    return f"`{broadcast}`" + ("" if axis is None else f" (axis {axis} from the last)")
