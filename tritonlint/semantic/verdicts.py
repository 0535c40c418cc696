"""Hazards: an access whose walk can meet a partial tile, with evidence, and nothing that bounds it.

Evidence that a tile can be partial: the tail side of an evenness flag, a sibling access that masks
the same dimension, or a loop whose last tile can be partial. What bounds a walk: the mask (read by
the evaluator, on the tail side of the flag), the even side of a flag, or a construction fact
(`facts/`). Every verdict keeps its reason (`Judgement`), for the messages and for `--explain`.
"""

from __future__ import annotations

import dataclasses
import re
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import libcst as cst

from tritonlint.semantic.block_tiles import BlockTile, block_tile, bounding_sibling, on_even_side
from tritonlint.semantic.dead_branches import uncompiled_branch
from tritonlint.semantic.facts import full_tile_loop, full_tiles
from tritonlint.semantic.host.flag_setters import loop_division
from tritonlint.semantic.host.launches import Launch, padded, padded_extent, rounded_blocks
from tritonlint.semantic.ir import (
    LOOP_PREFIX,
    PROGRAM,
    Access,
    AccessKind,
    Fact,
    HelperCall,
    Loop,
    Walk,
    share_a_dimension,
)
from tritonlint.semantic.paths import EMPTY, Literal, Path, compatible
from tritonlint.semantic.sibling_guard import sibling_guard
from tritonlint.semantic.stages import Stages
from tritonlint.source.names import code_of
from tritonlint.source.syntax import bound_arguments, loop_range, ordered
from tritonlint.source.tree import names_in, terms

# `tl.program_id(0)`, `tl.program_id(axis=1)`: the axis a program's tile index is read along.
_PROGRAM_AXIS = re.compile(r"program_id\(\s*(?:axis\s*=\s*)?(\d+)\s*\)")

if TYPE_CHECKING:
    from tritonlint.semantic.host.flag_setters import WeakPredicate


class Kernel(Stages, Protocol):
    """What the verdict stage asks of a jit function's context besides the stages: the file's other
    jit functions (their own verdicts judge a helper's accesses), the weak predicates, the walks'
    wording."""

    hazards: HazardFinder

    @property
    def helpers(self) -> Mapping[str, Kernel]: ...

    @property
    def weak_predicates(self) -> list[WeakPredicate]: ...

    def describe_walk(self, walk: Walk) -> str: ...


@dataclass(frozen=True)
class TailHazard:
    """An access that can run on a partial tile of `walk` without a mask bounding it."""

    access: Access
    walk: Walk
    condition: str  # "reachable when EVEN_K is False", or what makes the tail possible
    evidence: str  # why the kernel expects partial tiles there
    tail: Literal | None = None  # the flag literal of the tail side (EVEN_K is False), when a flag says so
    even: Literal | None = None  # its opposite: the side the fix must leave unmasked
    helper: Kernel | None = field(default=None, compare=False)  # the jit helper holding the access
    via: str = ""  # how a caller reaches it: "called from kernel K at line N"
    walked: str = ""  # the walk described by the caller (its loops are not the helper's)
    bound: str = ""  # the kernel parameter a launch's grid divides (`n_elements`), for the fix
    guard: str = ""  # the host line that keeps every launch from reaching the partial tile (TL111/TL112)
    when: Path = frozenset()  # the walk enters the pointer only where these hold (one side of an `if`)
    predicate: str = ""  # the weak predicate (TL103) that lets the access run unmasked: fixed there, not here
    weak: WeakPredicate | None = field(default=None, compare=False)  # that predicate, for the witness's facts
    # `bound` is the size a launch rounds the block up from (`BLOCK=next_power_of_2(n)`): the tile
    # itself, from 0, is bounded by it, with no program's offset needed.
    rounded: bool = False


@dataclass(frozen=True)
class Judgement:
    """The verdict on one walk of one access, with its reasons (what `--explain` prints)."""

    walk: Walk
    hazard: TailHazard | None  # None: no partial tile reaches this access unbounded
    reason: str  # why: the hazard's evidence, or what bounds the walk / why no tile is partial
    fact: Fact | None = None  # the construction fact that cleared a hazard, if one did



class HazardFinder:
    """The tail hazards of one kernel, its jit helpers' accesses judged at each call site."""

    def __init__(self, kernel: Kernel) -> None:
        # A back-reference to the model that owns this finder: weak, so that a checked file's
        # trees are freed by reference counting, with no cycle for the collector to find.
        self.kernel: Kernel = weakref.proxy(kernel)
        self.ir, self.flow, self.ev = kernel.ir, kernel.flow, kernel.ev
        self.walker, self.flags = kernel.walker, kernel.flags
        # Per launch, the blocks it rounds up from a size it also passes: read once, on first use
        # (the engine sets the launches after the model is built).
        self._rounded: list[tuple[Launch, dict[str, set[str]]]] | None = None
        self._views: dict[tuple[int, int], list[tuple[Kernel, Access, Access]]] = {}  # helper accesses by call site

    def tail_hazards(self, kind: AccessKind) -> Iterator[TailHazard]:
        """Each `kind` access ("load" or "store") that can touch a partial tail tile unbounded; one per access.

        Accesses inside the jit helpers this kernel calls (`helpers`, set by the engine) are
        judged at each call site with the caller's offsets and flags.
        """
        for access in self.ir.accesses:
            if access.kind != kind:
                continue
            hazard = self.hazard_of(access)
            if hazard is not None:
                yield hazard
        for site, helper, inner, view in self.helper_accesses(kind):
            hazard = self.hazard_of(view)
            if hazard is not None:
                yield self.in_helper(hazard, site, helper, inner)

    def helper_accesses(self, kind: AccessKind | None = None) -> Iterator[tuple[HelperCall, Kernel, Access, Access]]:
        """The accesses of the jit helpers this kernel calls that are judged at the call (site,
        helper, the helper's access, the caller's view of it): not those the helper's own verdicts
        report, nor those on the even side of the helper's own flag (`if EVEN: tl.load(ptrs)`)."""
        for site in self.ir.calls:
            helper = self.kernel.helpers.get(site.name)
            if helper is None or helper.hazards is self:
                continue
            for owner, inner, view in self.owned_views(site, helper):
                if kind is not None and inner.kind != kind:
                    continue
                if owner.hazards.hazard_of(inner) is not None:
                    continue  # reported in the helper itself already
                if any(owner.flags.on_side(flag.atom, flag.even, inner.path) for flag in owner.flags.flags):
                    continue
                yield site, owner, inner, view

    def in_helper(self, hazard: TailHazard, site: HelperCall, helper: Kernel, inner: Access) -> TailHazard:
        """A hazard found on the caller's view of a helper's access, placed at the helper's access."""
        return dataclasses.replace(hazard, access=inner, helper=helper, walked=self.kernel.describe_walk(hazard.walk),
                                   via=f"called from kernel {self.ir.function.name.value} at line "
                                       f"{self.kernel.line_of(site.call)}")

    def hazards_of(self, access: Access) -> list[TailHazard]:
        """One hazard per dimension the access leaves unbounded (a fix must bound them all)."""
        return [j.hazard for j in self.judgements(access) if j.hazard is not None]

    def inline(self, site: HelperCall, helper: Kernel) -> Iterator[tuple[Access, Access]]:
        """The helper's accesses as this caller sees them at `site`: (helper access, caller view).

        Parameters are replaced by the arguments, flags renamed (`EVEN=EVEN_K`) or decided
        (`EVEN=True`). Only accesses built from parameters alone are inlined: a helper local
        would be resolved against the caller's variables of the same name. Made once per call
        site: the verdicts, the siblings and the rules see the same view.
        """
        return iter([(inner, view) for _, inner, view in self.owned_views(site, helper)])

    def owned_views(self, site: HelperCall, helper: Kernel) -> list[tuple[Kernel, Access, Access]]:
        """`inline`'s pairs, each with the jit function that holds the access (a helper's helper)."""
        key = (id(site.call), id(helper.ir))
        if key not in self._views:
            self._views[key] = []  # a helper reached again while its views are made (recursion): none
            self._views[key] = list(self._inline(site, helper))
        return self._views[key]

    def _inline(self, site: HelperCall, helper: Kernel) -> Iterator[tuple[Kernel, Access, Access]]:
        """(the jit function holding the access, the access, the caller's view): the helper's own
        accesses, and those of the helpers it calls as it sees them (`load_scale(p)` calling
        `load(p)`), seen through both calls."""
        bound = bound_arguments(helper.ir.function, site.call)
        if bound is None:
            return
        own: list[tuple[Kernel, Access, Access]] = [(helper, access, access) for access in helper.ir.accesses]
        for inner_site in helper.ir.calls:
            callee = helper.helpers.get(inner_site.name)
            if callee is None or callee.hazards is helper.hazards or callee.hazards is self:
                continue
            own += helper.hazards.owned_views(inner_site, callee)
        for owner, held, access in own:
            names = set(names_in(access.pointer)) | set(names_in(access.mask))
            if not names <= set(bound) | {"tl", "triton"}:
                continue
            path = site.path
            contradicted = False
            for literal in access.path:
                value = bound.get(literal.atom)
                if value is None:
                    continue
                text = code_of(value)
                if text in ("True", "False"):
                    contradicted |= (text == "True") != literal.value
                else:
                    path = path | {Literal(text, literal.value)}
            if contradicted or not compatible(path, site.path):
                continue
            replace = _Substitute(bound)
            pointer = access.pointer.visit(replace)
            mask = access.mask.visit(replace) if access.mask is not None else None
            other = access.other.visit(replace) if access.other is not None else None
            if isinstance(other, cst.BaseExpression) and other.lpar:
                other = other.with_changes(lpar=[], rpar=[])  # `other=p` bound to `float("-inf")`: read bare
            assert isinstance(pointer, cst.BaseExpression)
            view = Access(access.kind, access.call, pointer, mask if isinstance(mask, cst.BaseExpression) else None,
                          access.boundary_check, site.order, frozenset(path), site.loops,
                          other if isinstance(other, cst.BaseExpression) else None)
            yield owner, held, view

    def hazard_of(self, access: Access) -> TailHazard | None:
        """The first tail hazard of one access (also a helper's access seen from a caller), if any."""
        return next((j.hazard for j in self.judgements(access) if j.hazard is not None), None)

    def judgements(self, access: Access) -> Iterator[Judgement]:
        """The verdict on each walk of the access, with its reason. Lazy: asking for the first
        hazard judges no more walks than it needs."""
        walks = self.walker.walks(access)
        if not walks:
            return
        moved_by = self.walker.pointer_loops(access)
        own = self.ev.mask_dims(access, own=True)
        for walk in walks:
            judged = self._judge_walk(access, walk, own, moved_by)
            when = self.walker.only_when(access, walk.dim) if judged.hazard is not None and walk.dim is not None else EMPTY
            if when:  # again, with the mask as it reads where this dimension is in the pointer at all
                judged = self._judge_walk(access, walk, self.ev.mask_dims(access, when, own=True), moved_by)
                if judged.hazard is not None:
                    judged = dataclasses.replace(judged, hazard=dataclasses.replace(judged.hazard, when=when))
            if judged.hazard is not None:
                # The construction facts are asked last: most walks are bounded by a mask already.
                fact = full_tiles(self.kernel, access, walk)
                if fact is not None:
                    judged = Judgement(walk, None, f"{judged.hazard.evidence}, but {fact.reason}", fact)
            if judged.hazard is not None and not judged.hazard.guard:
                dead = uncompiled_branch(self.kernel, access)
                if dead:
                    judged = dataclasses.replace(judged, hazard=dataclasses.replace(judged.hazard, guard=dead),
                                                 reason=f"{judged.reason}; {dead}")
            yield judged

    def _judge_walk(self, access: Access, walk: Walk, own: frozenset[str] | None,
                    moved_by: frozenset[str]) -> Judgement:
        """Whether this walk can meet a partial tile the access does not bound, and why."""
        keys = walk.keys
        covering = [flag for flag in self.flags.flags if flag.dims & keys]
        even_side = next((flag for flag in covering if self.flags.on_side(flag.atom, flag.even, access.path)), None)
        if even_side is not None:
            weak = next((p for p in self.kernel.weak_predicates if p.flag == even_side.atom and p.keys & keys), None)
            if weak is None:
                return Judgement(walk, None, f"runs only when {Literal(even_side.atom, even_side.even).describe()}: "
                                 "full tiles there")
            if own is not None and self.ev.covers(own, keys, moved_by):
                return Judgement(walk, None, "the mask bounds it")
            side = Literal(even_side.atom, even_side.even)
            evidence = f"{weak.flag} is set by `{weak.text}` at {weak.where}, which does not imply {weak.needs}"
            return Judgement(walk, TailHazard(access, walk, f"reachable when {side.describe()}, on a partial tile "
                                              f"of {weak.tile}", evidence, predicate=f"`{weak.needs}` at {weak.where}", weak=weak), evidence)
        evidence_flags = [flag for flag in covering if flag.source != "name" and self.flags.atom_applies(flag.atom, access)]
        for flag in evidence_flags:
            tail = Literal(flag.atom, not flag.even)
            if not compatible(access.path, self.flags.flag_side(flag.atom, not flag.even)):
                continue  # `FULL_K: tl.constexpr = EVEN_K`: its tail side contradicts `EVEN_K is False`
            # The mask as it reads on the tail side (a mask name may be defined on one side only).
            bounded = self.ev.mask_dims(access, frozenset({tail}), own=True)
            if bounded is not None and not self.ev.covers(bounded, keys, moved_by):
                how = {"usage": "by how the kernel uses it", "heuristics": "by its @triton.heuristics",
                       "config": "by the configuration"}[flag.source]
                return Judgement(walk, TailHazard(
                    access, walk, f"reachable when {tail.describe()}",
                    f"{flag.atom} is an evenness flag for this dimension ({how})", tail, tail.negated()),
                    f"{flag.atom} is an evenness flag for this dimension ({how}) and the mask does not bound "
                    f"it when {tail.describe()}")
        if evidence_flags:
            names = ", ".join(sorted({flag.atom for flag in evidence_flags}))
            return Judgement(walk, None, f"the mask bounds it on the tail side of {names}")
        if own is None:
            return Judgement(walk, None, "the mask comes from a parameter or a helper and cannot be read: trusted")
        if self.ev.covers(own, keys, moved_by):
            return Judgement(walk, None, "the mask bounds it")
        sibling = self._masked_sibling(access, keys, walk.loop)
        if sibling is not None and walk.loop is None and walk.dim is not None and PROGRAM in moved_by:
            exact = self._exact_grids(access, walk.dim)
            if exact:
                return Judgement(walk, None, exact)
        if sibling is not None and walk.loop is None and walk.dim is not None and walk.dim.startswith("arange(") \
                and not self._runtime_bound(sibling, walk.dim, moved_by):
            # `cols = tl.arange(0, D)` spans a whole constexpr extent; a sibling's `cols < 2 * HALF`
            # selects part of it. Only a bound known at run time (`cols < head_dim`) says the
            # block is padded past the data.
            sibling = None
        if sibling is not None:
            evidence = f"the {sibling.call_name} at line {self.kernel.line_of(sibling.call)} masks the same dimension"
            guarded = self._loop_guarded(walk.loop, Judgement(walk, TailHazard(
                access, walk, "reachable on every tile, the partial last one included", evidence), evidence))
            hazard = guarded.hazard
            guard = sibling_guard(self.kernel, access, walk, sibling) if hazard is not None and not hazard.guard else ""
            if hazard is not None and guard:
                guarded = dataclasses.replace(guarded, hazard=dataclasses.replace(hazard, guard=guard),
                                              reason=f"{guarded.reason}; {guard}")
            return guarded
        if walk.loop is not None and walk.loop.tiles == "partial":
            evidence = f"the last tile of `{walk.loop.header}` can be partial"
            return self._loop_guarded(walk.loop, Judgement(walk, TailHazard(
                access, walk, "reachable on the loop's last iteration", evidence), evidence))
        if walk.loop is not None and walk.loop.tiles == "full":
            fact = full_tile_loop.fact(self.kernel, access, walk)
            if fact is not None:
                return Judgement(walk, None, fact.reason, fact)
        if walk.loop is None and walk.dim is not None and PROGRAM in moved_by and self.kernel.launches:
            launched = self._launch_evidence(access, walk)
            if launched is not None:
                return launched
        tile = block_tile(self.kernel, access, walk.dim) if walk.loop is None and walk.dim is not None else None
        if tile is not None:
            judged = self._block_tile_evidence(access, walk, tile)
            if judged is not None:
                return judged
        if walk.loop is None and walk.dim is not None and access.mask is None and self.kernel.launches:
            # Only for an access with no mask at all: a mask the evaluator cannot read through
            # (`tl.where(cols < D, 1, 0)`) may well bound the tile, and would be blamed for it.
            rounded = self._rounded_block_evidence(access, walk)
            if rounded is not None:
                return rounded
        return Judgement(walk, None, "no evidence that a tile can be partial (no evenness flag, masked sibling "
                         "or partial loop speaks of it)")

    def _loop_guarded(self, loop: Loop | None, judged: Judgement) -> Judgement:
        """The hazard, guarded (TL111/TL112) when every launch keeps the loop's extent a multiple
        of its step: `for k in range(0, tl.cdiv(K, BLOCK_K))` with `assert K % 128 == 0` before
        each launch that passes `BLOCK_K=128`. The loop's last tile is then whole."""
        if loop is None or judged.hazard is None or not self.kernel.launches:
            return judged
        pair = self._loop_extent(loop)
        if pair is None:
            return judged
        params = sorted(name for name in self.flow.chain(judged.hazard.access.pointer, judged.hazard.access)
                        if any(d.kind == "param" for d in self.ir.defs.get(name, ())))
        guards = {launch.multiples.get(pair, "")
                  or next(filter(None, (padded_extent(launch, *pair, param) for param in params)), "")
                  for launch in self.kernel.launches}
        if "" in guards:
            return judged
        kept = "last tile in bounds" if any("is padded" in guard for guard in guards) else "tiles whole"
        guard = f"every launch keeps the loop's {kept}: {', '.join(sorted(guards))}"
        return dataclasses.replace(judged, hazard=dataclasses.replace(judged.hazard, guard=guard),
                                   reason=f"{judged.reason}; {guard}")

    def _loop_extent(self, loop: Loop) -> tuple[str, str] | None:
        """(extent, step) as kernel parameters of a tile loop from 0 (or counted down to 0), as the
        weak-predicate reading divides it (`range(0, K, BLOCK_K)`, `range(tl.cdiv(K, BLOCK_K))`, a
        count named once before the loop): its tiles are all whole when the extent is a multiple of
        the step. A loop from elsewhere needs its start to be a multiple too: not read."""
        args = loop_range(loop.iterable)
        if len(args) == 3 and code_of(args[0]) != "0" and code_of(args[1]) != "0":
            return None
        divided = loop_division(self.kernel, loop.iterable)
        if divided is None:
            return None
        extent, step = (self._param_named(text) for text in divided)
        return (extent, step) if extent and step else None

    def _param_named(self, text: str) -> str:
        """The kernel parameter `text` names, directly or through a local assigned it once; or ""."""
        defs = self.ir.defs.get(text, ())
        if len(defs) == 1 and defs[0].kind == "assign" and type(defs[0].value) is cst.Name:
            text = defs[0].value.value
            defs = self.ir.defs.get(text, ())
        return text if defs and all(d.kind == "param" for d in defs) else ""

    def _rounded_block_evidence(self, access: Access, walk: Walk) -> Judgement | None:
        """A tile of BLOCK lanes where a launch passes `BLOCK=next_power_of_2(n)` beside `N=n`: the
        kernel is told the size and its tile is wider unless `n` is a power of two. Guarded when
        that launch allocates the accessed tensor from the rounded block (`torch.empty(BLOCK)`)."""
        assert walk.dim is not None
        size = self.ev.dim_size.get(walk.dim)
        if size is None:
            return None
        if self._rounded is None:
            self._rounded = [(launch, rounded_blocks(launch)) for launch in self.kernel.launches]
        launches = [(launch, blocks.get(size, set()), dict(launch.covers.get(size, ())))
                    for launch, blocks in self._rounded]
        launches = [(launch, rounded, covered) for launch, rounded, covered in launches if rounded or covered]
        if not launches:
            return None
        params = {name for name in self.flow.chain(access.pointer, access)
                  if any(d.kind == "param" for d in self.ir.defs.get(name, ()))}
        for launch, rounded, covered in launches:
            block = launch.args.get(size, "")
            if any(block and block in text for param in params for text, _ in launch.allocations.get(param, ())):
                continue
            if rounded:
                told = min(rounded)
                evidence = (f"launched at {launch.where} with {size} = `{block}` rounded up from the size it also "
                            f"passes as {told}")
                unless = f"{told} is a power of two"
            else:
                # The host tests that the size fits in the block (`n_cols <= BLOCK_SIZE`) and passes
                # both: a block wider than the data it is told of, when the kernel itself bounds
                # this dimension by that size elsewhere (`cols < n_cols`). Without such a sibling
                # the size may name a part of the tile (`rope_dim <= D`), not its extent.
                covered = {told: where for told, where in covered.items()
                           if self._sized_by(access, walk.dim, told)}
                if not covered:
                    continue
                told = min(covered)
                evidence = (f"launched at {launch.where} under {covered[told]}, which keeps the size it passes "
                            f"as {told} within {size} = `{block}`")
                unless = f"{told} equals {size}"
            return Judgement(walk, TailHazard(access, walk, f"reachable unless {unless}, on the "
                                              f"lanes of the tile past it", evidence, bound=told, rounded=True),
                             evidence)
        return None

    def _block_tile_evidence(self, access: Access, walk: Walk, tile: BlockTile) -> Judgement | None:
        """A block pointer's program tile (no `boundary_check` on it, or it would be bounded) with
        the evidence its raw-pointer twin would have: a sibling bounding the same tile, or a launch
        whose grid rounds the extent up by the tile. Not on the even side of a flag for that tile."""
        if on_even_side(self.kernel, access, tile) is not None:
            return None
        sibling = bounding_sibling(self.kernel, access, tile)
        if sibling is not None:
            evidence = f"the {sibling.call_name} at line {self.kernel.line_of(sibling.call)} bounds the same tile " \
                       f"of {tile.size} by {tile.extent}"
            return Judgement(walk, TailHazard(access, walk, "reachable on every tile, the partial last one included",
                                              evidence), evidence)
        if not self.kernel.launches:
            return None
        axis = self._axis_read([tile.start], tile.order, tile.path, tile.loops)
        return self._launch_evidence(access, walk, tile.size, axis)

    def _launch_evidence(self, access: Access, walk: Walk, size: str | None = None,
                         axis: int | None = None) -> Judgement | None:
        """A program-id tile (`pid * BLOCK + tl.arange(0, BLOCK)`) on an axis that a launch's grid
        rounds up by the same BLOCK (`triton.cdiv(n, BLOCK)`): the last program's tile can be
        partial. Guarded when every such launch has a host test keeping `n` a multiple of BLOCK,
        or sizes the accessed tensor in whole tiles (`torch.empty(blocks * BLOCK)`). A block
        pointer's tile comes with its size and axis."""
        assert walk.dim is not None
        if size is None:
            size = self.ev.dim_size.get(walk.dim)
            axis = self._program_axis(access, walk.dim)
        if size is None or axis is None:
            return None
        rounded = [(launch, launch.grid[axis]) for launch in self.kernel.launches
                   if axis < len(launch.grid) and launch.grid[axis].kind == "partial"
                   and size in launch.sizes(launch.grid[axis])]
        if not rounded:
            return None
        stop = next((literal for literal in access.path if f"*{size}" in literal.atom
                     and any(op in literal.atom for op in ("<", ">"))), None)
        if stop is not None:
            # `if pid_m * BLOCK_M >= num_post: return`: the kernel bounds its programs itself, by
            # something other than the grid (the MoE kernels' padded token count).
            return Judgement(walk, None, f"launched on rounded-up grids, but the program stops unless "
                             f"{stop.describe()}")
        params = {name for name in self.flow.chain(access.pointer, access)
                  if any(d.kind == "param" for d in self.ir.defs.get(name, ()))}
        guarded = []
        for launch, grid in rounded:
            guard = grid.guard or next(filter(None, (padded(launch, grid, param, frozenset({size}))
                                                      for param in sorted(params))), "")
            guarded.append((launch, grid, guard))
        launch, grid, _ = next((item for item in guarded if not item[2]), guarded[0])
        param = next((param for param, text in launch.args.items() if text == grid.extent), "")
        extent = param or grid.extent
        evidence = f"launched at {launch.where} on `{grid.text}` programs"
        condition = f"reachable on the last program along axis {axis}, whose tile is partial unless " \
                    f"{extent} is a multiple of {size}"
        if any(not guard for _, _, guard in guarded):
            return Judgement(walk, TailHazard(access, walk, condition, evidence, bound=param), evidence)
        guard = f"every launch keeps it in bounds: {', '.join(sorted({guard for _, _, guard in guarded}))}"
        return Judgement(walk, TailHazard(access, walk, condition, evidence, bound=param, guard=guard),
                         f"{evidence}; {guard}")

    def _exact_grids(self, access: Access, dim: str) -> str:
        """Why no program's tile of `dim` is partial, when every launch's grid along its axis is an
        exact division by the tile's own block (`grid = (..., packed // block_rows)` with
        `BM=block_rows`): the programs cover whole tiles only, whatever a sibling's mask selects
        within them. "" when some launch rounds up, or says nothing of the axis."""
        size = self.ev.dim_size.get(dim)
        axis = self._program_axis(access, dim)
        if size is None or axis is None or not self.kernel.launches:
            return ""
        for launch in self.kernel.launches:
            if axis >= len(launch.grid):
                return ""
            grid = launch.grid[axis]
            if grid.kind != "exact" or size not in launch.sizes(grid):
                return ""
        where = ", ".join(sorted({launch.where for launch in self.kernel.launches}))
        return f"every launch divides the grid along axis {axis} exactly by {size} ({where}): no program's tile is partial"

    def _program_axis(self, access: Access, dim: str) -> int | None:
        """The program axis of the tile `dim`, when the access places it by the program id alone
        (`offs = pid * BLOCK + tl.arange(0, BLOCK)`): an expression the pointer is built from that
        varies along `dim` and the program id and nothing else; its `tl.program_id(axis)`."""
        named: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]] = \
            [(cst.Name(dim), access.order, access.path, access.loops)] if dim in self.ir.defs else []
        candidates = named + [(access.pointer, access.order, access.path, access.loops)] + [
            (d.value, d.order, d.path, d.loops) for defs in self.flow.chain(access.pointer, access).values()
            for d in defs if d.value is not None and d.kind == "assign"]
        for value, order, path, loops in candidates:
            keys = self.ev.dims(value, order, path, loops)
            if PROGRAM not in keys or {key for key in keys if key != PROGRAM} != {dim}:
                continue
            return self._axis_read([value], order, path, loops)
        # `out + tok * stride + pid * BLOCK + offs` inside a loop over `tok`: no one expression is
        # the tile alone, but the terms of a sum that vary along the tile or the program id vary
        # along nothing else, and the rest of the sum (the loop's rows) along neither.
        for value, order, path, loops in candidates:
            summands = terms(value)
            term_keys = [self.ev.dims(term, order, path, loops) for term in summands]
            tile = [(term, k) for term, k in zip(summands, term_keys) if k & {PROGRAM, dim}]
            if len(summands) < 2 or any(not k <= {PROGRAM, dim} for _, k in tile) \
                    or frozenset().union(*(k for _, k in tile)) != {PROGRAM, dim}:
                continue
            return self._axis_read([term for term, _ in tile], order, path, loops)
        return None

    def _axis_read(self, nodes: list[cst.BaseExpression], order: int, path: Path, loops: tuple[Loop, ...]
                   ) -> int | None:
        """The one `tl.program_id(axis)` the expressions are built from, through their definitions."""
        texts = []
        for node in nodes:
            chain = self.flow.build_chain(node, order, path, loops)
            texts += [code_of(node)] + [code_of(d.value) for defs in chain.values() for d in defs
                                        if d.value is not None]
        axes = {int(axis) for text in texts for axis in _PROGRAM_AXIS.findall(text)}
        return axes.pop() if len(axes) == 1 else None

    def _runtime_bound(self, access: Access, dim: str, moved_by: frozenset[str]) -> bool:
        """Whether the access's mask compares `dim`, shifted by the same loops and program id as
        the pointer in question (`moved_by`), with a value only known at run time. `offs < n`
        bounds `X + offs`; `i_t + offs < T` bounds a tile of a loop, not `X + offs`, and so does
        `offs < T - i_t` (the shift on the other side)."""
        for sides in map(ordered, self.flow.mask_comparisons(access)):
            if sides is None:
                continue  # `offs == i` selects lanes: no bound
            small, large = sides
            small_dims = self.ev.dims(small, access.order, access.path, access.loops)
            if dim not in small_dims or not self.ev.runtime(large, 0):
                continue
            large_dims = self.ev.dims(large, access.order, access.path, access.loops)
            if frozenset(k for k in small_dims | large_dims if k.startswith(LOOP_PREFIX)) <= moved_by:
                return True
        return False

    def _sized_by(self, access: Access, dim: str, size: str) -> bool:
        """Whether another access on the same side masks `dim` by the parameter `size` itself
        (`cols < n_cols`): the kernel takes `size` for the extent of that dimension."""
        for other in self.flags.accesses:
            if other is access or not compatible(other.path, access.path):
                continue
            for sides in map(ordered, self.flow.mask_comparisons(other)):
                if sides is None or not (isinstance(sides[1], cst.Name) and sides[1].value == size):
                    continue
                if dim in self.ev.dims(sides[0], other.order, other.path, other.loops):
                    return True
        return False

    def _masked_sibling(self, access: Access, keys: frozenset[str], loop: Loop | None) -> Access | None:
        """A masked access of the same dimension (in the same loop, for a dimension the loop walks)."""
        for other in self.flags.accesses:  # helpers' accesses too, as their calls see them
            if other is access or not compatible(other.path, access.path):
                continue
            if loop is not None and loop not in other.loops:
                continue
            bounded = self.ev.evidence_dims(other)
            if not bounded or not self.ev.covers(bounded, keys, loop_alone=False):
                continue
            if self._placed_elsewhere(other, access, keys):
                continue
            if any(not key.startswith(LOOP_PREFIX) and key in bounded for key in keys):
                return other  # its mask names this very dimension (`seq_offset < max_len`)
            if any(share_a_dimension(walk.keys, keys) for walk in self.walker.walks(other)):
                return other
        return None

    def _placed_elsewhere(self, sibling: Access, access: Access, keys: frozenset[str]) -> bool:
        """The sibling bounds `seq_start + offs < seq_end` or `ids * B + t < length`: a window
        placed at a position read from memory (a ragged segment, a gathered block). Its bound
        says where that segment ends, not where this access's tensor does, unless the access
        is placed at the same position (its pointer is built from that loaded value too)."""
        chain = self.flow.chain(access.pointer, access).keys()
        placements = []
        for sides in map(ordered, self.flow.mask_comparisons(sibling)):
            if sides is None:
                continue
            small = sides[0]
            if not self.ev.dims(small, sibling.order, sibling.path, sibling.loops) & keys:
                continue
            placements.append(self.flow.loaded_names(small, sibling))
        return bool(placements) and all(loaded - chain for loaded in placements)


class _Substitute(cst.CSTTransformer):
    """Replace parameter names by the caller's argument expressions."""

    def __init__(self, bound: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.bound = bound

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.bound.get(original.value)
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
            if value is not None and not isinstance(value, cst.Name) else (value or updated)
