"""The mask sources every fix shares, and the call rewritten with them (as a kernel engineer would).

TL101/TL102's fix (rules/tail_tile/fix.py) takes the mask, in order of preference, from
1. a sibling access in the same scope whose pointer spans the same dimensions: its mask, verbatim
   (safe: the kernel already trusts it for this shape);
2. a comparison the kernel already makes on this dimension (`offs_k < k`), re-broadcast to this
   pointer, or rescaled to the pointer's own units when it walks the same loop in other units
   (`offs_k_scale * BLOCK_K // PACKED_MX_BLOCK < k`), through the lane order of a jit helper that
   unswizzles the loaded tile (layouts.py) (unsafe: inferred);
3. the loop bound (`offs < K - k * BLOCK_K` under `range(tl.cdiv(K, BLOCK_K))`) (unsafe).
On the side of an evenness flag that guarantees full tiles the access stays unmasked
(`mask=None if EVEN_K else ...`), so the even specialization compiles to the same code.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from tritonlint.diagnostics import Applicability
from tritonlint.fixing.arguments import appended, keyword_argument
from tritonlint.fixing.layouts import LaneMap, lane_map
from tritonlint.fixing.parentheses import spaced, without_redundant_parentheses
from tritonlint.fixing.types import is_pointer, reads_pointer
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import LOOP_PREFIX, Access
from tritonlint.semantic.paths import Literal, compatible
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.imports import imported_helper, module_constants
from tritonlint.source.names import code_of
from tritonlint.source.syntax import range_args, strip_casts
from tritonlint.source.tree import expressions_in, names_in, nodes_under, terms


@dataclass(frozen=True)
class CallFix:
    """New text for the flagged call, or the reason there is none (display-only)."""

    title: str
    applicability: Applicability
    new_call: cst.Call | None


def combined_mask(model: KernelContext, access: Access, mask: str, even: Literal | None) -> str:
    """The new `mask=`: the old mask and the derived one, switched off on the even side."""
    old = access.mask
    if isinstance(old, cst.IfExp):
        # `None if F else m` already switches: add the bound inside each side, never `None & x`.
        sides = []
        for side, literals in ((old.body, model.reader.when_true(old.test)),
                               (old.orelse, model.reader.when_false(old.test))):
            is_none = isinstance(side, cst.Name) and side.value == "None"
            if is_none and even is not None and even in literals:
                sides.append("None")
            elif is_none:
                sides.append(mask)
            else:
                sides.append(_and(code_in(model, side), mask))
        return f"{sides[0]} if {code_in(model, old.test)} else {sides[1]}"
    old_text = code_in(model, old) if old is not None else None
    tail = _and(old_text, mask) if old_text else mask
    if old_text and _may_be_none(model, access, old, even):
        # `mask = None` on some path to the call: `None & x` fails to compile there. `is None` on a
        # constexpr None is decided at compile time, so each specialization keeps one side.
        tail = f"{mask} if {old_text} is None else {tail}"
    if even is None:
        return tail
    return f"{old_text or 'None'} if {condition_text(even)} else {tail}"


def _may_be_none(model: KernelContext, access: Access, old: cst.BaseExpression | None, even: Literal | None) -> bool:
    """Whether a mask variable can be `None` where the new bound applies: on the tail side of the
    flag when there is one (`if EVEN: mask = None` is the even side's business), else anywhere."""
    if not isinstance(old, cst.Name):
        return False
    path = access.path | {even.negated()} if even is not None else access.path
    return any(isinstance(d.value, cst.Name) and d.value.value == "None"
               for d in model.reaching(old.value, access.order, path, access.loops))


def _and(old: str, new: str) -> str:
    if re.sub(r"\s", "", old) in re.sub(r"\s", "", new):
        return new  # the new mask already says what the old one did
    return f"({old}) & ({new})"


# Python's own functions (`float(x)`, `min(a, b)`): not helpers that could reorder a tile.
_BUILTINS = frozenset(dir(builtins))


# ---------------------------------------------------------------------- mask sources

def sibling_mask(model: KernelContext, hazard: TailHazard) -> tuple[str, Applicability, str] | None:
    access = hazard.access
    hypothesis = frozenset({hazard.tail}) if hazard.tail else frozenset()
    mine = _offset_dims(model, access)
    layout = offset_of(model, access, hazard.walk.dim) if hazard.walk.dim else None
    for other in model.accesses:
        if other is access or other.mask is None or other.loops != access.loops:
            continue
        if not compatible(other.path, access.path | hypothesis):
            continue
        bounded = model.mask_dims(other, hypothesis)
        if not bounded or not bounded & hazard.walk.keys or _offset_dims(model, other) != mine:
            continue
        theirs = offset_of(model, other, hazard.walk.dim) if hazard.walk.dim else None
        if (layout is None) != (theirs is None) or (layout and theirs and layout[1] != theirs[1]):
            continue  # the same dimension broadcast another way: its mask has another shape
        if layout and layout[1] and other.mask is not None and not _carries(model, other, other.mask, layout[1]):
            continue  # a 1-D mask beside a `[:, None]` pointer broadcasts to a square: not this shape
        # A mask that is itself a `None if FLAG else m` switch is not reused verbatim.
        if isinstance(other.mask, cst.IfExp):
            continue
        mask_text = _terms_on(model, other, hazard, mine)
        if mask_text is not None:
            # Within one tile the sibling's mask is the kernel's own bound for this shape; across a
            # loop another tensor may run to another length (n counts beside n + 1 totals).
            certain = hazard.walk.loop is None or code_of(other.pointer) == code_of(access.pointer)
            return (mask_text, Applicability.SAFE if certain else Applicability.UNSAFE,
                    f"the mask of the {other.call_name} at line {model.line_of(other.call)}")
    return None


def _conjuncts(model: KernelContext, node: cst.BaseExpression, other: Access, depth: int = 0
               ) -> list[cst.BaseExpression]:
    """The `&`-ed terms of a mask, through a local it names (`mask = (a < M) & (b < N)`)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
        return _conjuncts(model, node.left, other, depth) + _conjuncts(model, node.right, other, depth)
    if isinstance(node, cst.Name) and depth < 4:
        defs = [d for d in model.reaching(node.value, other.order, other.path, other.loops)]
        if len(defs) == 1 and defs[0].kind == "assign" and isinstance(defs[0].value, cst.BinaryOperation) and \
                isinstance(defs[0].value.operator, cst.BitAnd):
            return _conjuncts(model, defs[0].value, other, depth + 1)
    return [node]


def _terms_on(model: KernelContext, other: Access, hazard: TailHazard, mine: frozenset[str]) -> str | None:
    """The sibling's mask, kept to its terms over the dimensions of this access that its hazards
    walk: a term guarding something else (`idx_k > 0`, a flag) or bounding another dimension
    (`offs_m < M` beside a pointer over `offs_n`) changes what the kernel computes, or bounds the
    wrong axis. The whole mask, as written, when every term is kept; None when none is, or a kept
    term reads a name not defined where the access is."""
    assert other.mask is not None
    terms_ = _conjuncts(model, other.mask, other)
    # The dimensions this access leaves unbounded, all of them: one sibling mask bounding two of
    # them is taken once, as written.
    walked = frozenset(hazard.walk.keys).union(*(h.walk.keys for h in model.hazards_of(hazard.access)))
    kept = []
    for term in terms_:
        dims = {d for d in model.dims(term, other.order, other.path, other.loops) if not d.startswith(LOOP_PREFIX)}
        if dims and dims <= mine and dims & walked and not _no_upper_bound(model, term, other, walked) \
                and not _bound_spanned_past(model, term, other, hazard.access):
            kept.append(term)
    if not kept:
        return None
    if len(kept) == len(terms_) and available_at(model, other.mask, access=hazard.access):
        return code_in(model, other.mask)
    if not all(available_at(model, term, hazard.access) for term in kept):
        return None
    if len(kept) == 1:
        return _unparenthesized_text(model, kept[0])
    return " & ".join(atom_of(_unparenthesized_text(model, term)) for term in kept)


def _comparison_of(model: KernelContext, term: cst.BaseExpression, other: Access, depth: int = 0
                   ) -> cst.Comparison | None:
    """The one comparison a mask term is, read through a broadcast and the local it names."""
    node = term
    while isinstance(node, cst.Subscript):  # `is_rope[:, None]`: the comparison broadcast
        node = node.value
    node = _unparenthesized(node)
    if isinstance(node, cst.Name) and depth < 4:
        defs = model.reaching(node.value, other.order, other.path, other.loops)
        if len(defs) == 1 and defs[0].kind == "assign" and defs[0].value is not None:
            return _comparison_of(model, defs[0].value, other, depth + 1)
        return None
    return node if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 else None


def _bound_spanned_past(model: KernelContext, term: cst.BaseExpression, other: Access, access: Access) -> bool:
    """Whether the term compares with a bound that this access's pointer lays its tensor out past."""
    node = _comparison_of(model, term, other)
    return node is not None and any(_spans_past(model, access.pointer, code_in(model, side))
                                    for side in (node.left, node.comparisons[0].comparator))


def _no_upper_bound(model: KernelContext, term: cst.BaseExpression, other: Access, walked: frozenset[str]) -> bool:
    """Whether a mask term, read through the local it names, is one comparison that bounds the walked
    offset only from below or not at all (`head_d >= NOPE`, `idx == j`): it selects lanes for another
    purpose, and a tail tile runs past the *upper* end, so it bounds nothing there. Forms it cannot
    read (a call, an `|`) are not judged here."""
    node = _comparison_of(model, term, other)
    if node is None:
        return False
    op = node.comparisons[0].operator
    on_left = bool({d for d in model.dims(node.left, other.order, other.path, other.loops)} & walked)
    on_right = bool({d for d in model.dims(node.comparisons[0].comparator, other.order, other.path, other.loops)}
                    & walked)
    if on_left == on_right:
        return False  # the offset on both sides, or on neither: not a bound this reads
    if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        return not on_left
    if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        return not on_right
    return isinstance(op, (cst.Equal, cst.NotEqual))


def _unparenthesized_text(model: KernelContext, node: cst.BaseExpression) -> str:
    text = code_in(model, node)
    return text[1:-1] if _wrapped(text) else text


def _carries(model: KernelContext, access: Access, mask: cst.BaseExpression, broadcast: str) -> bool:
    """Whether a mask spells the pointer's broadcast (`[:, None]`) itself, or through the names it reads."""
    want = re.sub(r"\s", "", broadcast)
    pending, seen = [mask], 0
    while pending and seen < 16:
        node = pending.pop()
        seen += 1
        if want in re.sub(r"\s", "", code_in(model, node)):
            return True
        for name in names_in(node):
            pending.extend(d.value for d in model.reaching(name, access.order, access.path, access.loops)
                           if d.kind == "assign" and d.value is not None)
    return False


def available_at(model: KernelContext, node: cst.CSTNode, access: Access) -> bool:
    """Every local the expression reads is defined before the access (on a compatible path). A loop's
    variable counts only inside its loop: after it, `k` holds the last tile's start, not this one's."""
    for name in set(names_in(node)):
        defs = model.defs.get(name)
        if defs and not any(d.order < access.order and compatible(d.path, access.path)
                            and (d.kind != "for" or d.loops[-1] in access.loops) for d in defs):
            return False
        # `k += BLOCK_K` in a `while` loop the access is not in: after the loop `k` is past the
        # end, and a mask of the tile it counted (`k + offs < K`) switches every lane off.
        if defs and any(d.kind == "advance" and d.order < access.order and d.loops and
                        d.loops[-1] not in access.loops for d in defs):
            return False
    return True


def comparison_mask(model: KernelContext, hazard: TailHazard) -> tuple[str, Applicability, str] | None:
    access, walk = hazard.access, hazard.walk
    hypothesis = frozenset({hazard.tail}) if hazard.tail else frozenset()
    mine = offset_of(model, access, walk.dim) if walk.dim else None
    candidates: list[tuple[int, str, Applicability, str]] = []
    unreadable: str | None = None
    for comparison, where, other in comparisons_of(model, access, hypothesis, same_loop=walk.loop is not None):
        target = comparison.comparisons[0]
        left, bound = comparison.left, target.comparator
        operator = "<" if isinstance(target.operator, cst.LessThan) else "<="
        left_inner = left.value if isinstance(left, cst.Subscript) else left
        if reads_pointer(model, left_inner):
            continue  # a pointer compared (`t_ptrs < N`): not an offset, and it does not compile
        restated = not available_at(model, left_inner, access)
        if restated:  # its dimensions as seen where it is compared
            left_dims = model.dims(left_inner, other.order, other.path, other.loops)
        else:
            left_dims = model.dims(left_inner, access.order, access.path | hypothesis, access.loops)
        offsets = [d for d in left_dims if not d.startswith(LOOP_PREFIX)]
        if len(offsets) != 1:
            continue
        theirs = offsets[0]
        if permutes_lanes(model, left_inner, other, theirs):
            continue  # `row = (slot // 32) * 32 + (slot % 4) * 8 + ...` bounds lanes in another order
        bound_text = code_in(model, bound)
        if not available_at(model, bound, access):
            continue  # built after the access: the fix would read a name not yet defined
        if _spans_past(model, access.pointer, bound_text):
            continue  # the pointer's own layout runs this tensor past that bound: it is another's
        if restated:
            if not (isinstance(left_inner, cst.Name) and mine is not None and walk.dim == theirs
                    and available_at(model, mine[2], access)):
                continue  # built after the access: the fix would read a name not yet defined
            # `offs_cm` restated after the loop, spelled like this pointer's `offs_am`: the same
            # dimension, so the fix compares the pointer's own offsets.
            left_inner = mine[2]
        inner_slices = {code_in(model, node)[len(code_in(model, node.value)):]
                        for node in nodes_under(left_inner) if isinstance(node, cst.Subscript)}
        if inner_slices and (mine is None or inner_slices != {mine[1]}):
            continue  # broadcast inside the comparison another way than this pointer's
        broadcast = "" if inner_slices else (mine[1] if mine else "")
        same_tile = (walk.loop is not None and walk.dim is not None and bool(access.loops)
                     and access.loops[-1] is walk.loop
                     and model.dim_size.get(walk.dim) == model.dim_size.get(theirs)
                     and walk.loop.key in left_dims | _loop_keys_of(model, bound, access))
        if (walk.dim == theirs or same_tile) and mine is not None:
            # The kernel's own comparison for this dimension, broadcast the way this pointer is.
            text = f"{atom_of(code_in(model, left_inner))}{broadcast} {operator} {bound_text}"
            candidates.append((0, text, Applicability.UNSAFE, f"the comparison at line {where}"))
        elif (mine is not None and walk.loop is not None and access.loops and access.loops[-1] is walk.loop
              and walk.loop.key in left_dims | _loop_keys_of(model, bound, access)):
            # Same loop, other units: the pointer moves `size` of its elements per `their size` of K.
            ours_size, their_size = model.dim_size.get(walk.dim or ""), model.dim_size.get(theirs)
            if not ours_size or not their_size:
                continue
            if _relative(model, mine[2], access) != _relative(model, left_inner, access):
                continue  # one is an absolute offset, the other relative to the tile: not comparable
            scaled, source = atom_of(mine[0]), f"rescaled from the comparison at line {where}"
            lanes = _lane_map(model, access, walk.dim or "", mine[1])
            if isinstance(lanes, str):
                unreadable = lanes  # a mask in memory order could drop real lanes: no guess
                continue
            if lanes is not None:  # a helper reorders the lanes: compare the index each lane ends up at
                scaled, ours_size = lanes.apply(scaled), lanes.size
                source += f", in the lane order `{lanes.helper}` puts the tile in"
            text = f"{scaled}{mine[1]} * {atom_of(their_size)} // {atom_of(ours_size)} {operator} {bound_text}"
            candidates.append((1, text, Applicability.UNSAFE, source))
    if not candidates and unreadable is not None:
        return unreadable, Applicability.DISPLAY_ONLY, unreadable
    if not candidates:
        return None
    candidates.sort(key=lambda item: item[0])
    _, text, applicability, source = candidates[0]
    return text, applicability, source


def _spans_past(model: KernelContext, pointer: cst.BaseExpression, bound: str) -> bool:
    """Whether the pointer's own layout says its tensor runs past `bound`: the bound is one summand of a
    sum the pointer multiplies by (`... * (V + K) * K + rows * K`: a block of `V + K` rows, so
    `rows < V` bounds some other tensor's rows, or selects lanes, and is no extent of this one)."""
    want = re.sub(r"\s", "", bound)
    for node in nodes_under(pointer):
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
            continue
        for side in (node.left, node.right):
            inner = _unparenthesized(strip_casts(side))
            if isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Add):
                summands = {re.sub(r"\s", "", code_in(model, t)) for t in terms(inner)}
                if want in summands and len(summands) > 1:
                    return True
    return False


def permutes_lanes(model: KernelContext, node: cst.BaseExpression, where: Access, dim: str, depth: int = 0) -> bool:
    """Whether an expression indexes `dim` in another lane order than the dimension's own offsets:
    more than one of its summands (through the locals it is built from) varies along `dim`
    (`(slot // 32) * 32 + (slot % 4) * 8 + (slot // 4) % 8` mixes the bits of `slot`). A bound on
    such an index holds for a scattered set of lanes, not for the first ones: it cannot be moved
    onto another access's offsets, nor read as the bound of this dimension."""
    if depth > 4:
        return False
    node = strip_casts(node)
    while isinstance(node, cst.Subscript):
        node = strip_casts(node.value)
    # A summand varies along `dim` when a name it reads does: `(slot % 4) * 8` is bounded, yet its
    # value still follows the lane.
    varying = [term for term in terms(node)
               if any(dim in model.dims(part, where.order, where.path, where.loops)
                      for part in (term, *(n for n in nodes_under(term) if isinstance(n, cst.Name))))]
    if len(varying) > 1:
        return True
    if len(varying) == 1 and isinstance(_unparenthesized(strip_casts(varying[0])), cst.Name):
        name = _unparenthesized(strip_casts(varying[0]))
        assert isinstance(name, cst.Name)
        defs = [d for d in model.reaching(name.value, where.order, where.path, where.loops)
                if d.kind == "assign" and d.value is not None]
        return any(permutes_lanes(model, d.value, where, dim, depth + 1) for d in defs if d.value is not None)
    return False


def _lane_map(model: KernelContext, access: Access, dim: str, broadcast: str) -> LaneMap | str | None:
    """How a jit helper that receives the loaded tile directly (`unswizzle(tl.load(P))`) reorders the
    lanes of `dim`, or None (no such helper, or lanes kept in order), or why the helper it names
    cannot be read (imported from a module not found beside the kernel): a mask in memory order
    through a helper that may permute the lanes is a guess."""
    if access.kind != "load":
        return None
    axes = [part.strip() for part in broadcast.strip("[]").split(",")] if broadcast else [":"]
    if axes.count(":") != 1 or any(a not in (":", "None") for a in axes):
        return None
    shape: list[str | None] = [model.dim_size.get(dim) if a == ":" else None for a in axes]
    for helper_call in model.ir.calls:
        position = next((i for i, arg in enumerate(helper_call.call.args) if arg.value is access.call), None)
        if position is None or helper_call.call.args[position].keyword is not None:
            continue
        helper = model.helpers.get(helper_call.name)
        text = model.origin[1] if model.origin is not None else ""
        found: tuple[cst.FunctionDef, Path | None, dict[str, int]] | None = None
        if helper is not None:
            found = (helper.function, None, module_constants(text))
        elif model.origin is not None:
            found = imported_helper(helper_call.name, text, model.origin[0])
        if found is None:
            if helper_call.name in _BUILTINS:
                return None
            return (f"no mask can be derived: the loaded tile goes through `{helper_call.name}`, which the "
                    "fixer cannot read (not defined in this file, nor found where it is imported from), so "
                    "the order its lanes end up in is unknown")
        lanes = lane_map(helper_call.call, position, shape, axes.index(":"), *found)
        if lanes is not None and lanes.source is not None:
            model.depends.add(str(lanes.source))
        return lanes
    return None


def loop_bound_mask(model: KernelContext, hazard: TailHazard) -> tuple[str, Applicability, str] | None:
    """`for k in range(tl.cdiv(K, BLOCK_K))` with a pointer advanced per tile: `offs < K - k * BLOCK_K`."""
    access, walk = hazard.access, hazard.walk
    if walk.loop is None or walk.dim is None or not isinstance(walk.loop.node, cst.For):
        return None
    mine = offset_of(model, access, walk.dim)
    loop = walk.loop.node
    if mine is None or not isinstance(loop.iter, cst.Call) or not isinstance(loop.target, cst.Name):
        return None
    args = range_args(loop.iter)
    variable = loop.target.value
    relative = _relative(model, mine[2], access)
    size = model.dim_size.get(walk.dim, "")
    if not is_pure(mine[2], model, access):
        return None  # `ks // GROUP` is in other units than the loop's bound
    shifted = shifted_tile(model, hazard)
    stop_node = args[-1] if len(args) in (1, 2) else args[1] if len(args) == 3 else None
    if isinstance(stop_node, cst.Call) and model.qualify_tl(stop_node.func) == "cdiv" and stop_node.args:
        stop_node = stop_node.args[0].value
    if stop_node is not None and not reads_extent(model, stop_node, access):
        # `range(0, (start_m + 1) * BLOCK_M, BLOCK_N)`: the bound of a causal loop, made of the
        # program's tile only; it bounds the loop, not the tensor (its last tile runs past N).
        return None
    if stop_node is not None and rounded_up(model, stop_node, access):
        # `range(0, tl.cdiv(N, BLOCK) * BLOCK, BLOCK)`: N rounded up to whole tiles, so the loop's
        # last tile runs past N to that bound; a mask from it switches nothing off.
        return None
    if len(args) == 1 or (len(args) == 2 and code_in(model, args[0]) == "0"):
        stop = args[-1]
        if isinstance(stop, cst.Call) and model.qualify_tl(stop.func) == "cdiv" and len(stop.args) == 2 and relative:
            total_text, block_text = (code_in(model, arg.value) for arg in stop.args)
            if code_of(stop.args[1].value) != size:
                return None  # the pointer moves in other units than the loop's tiles
            start = _subtrahend(shifted) if shifted else f"{variable} * {atom_of(block_text)}"
            text = f"{atom_of(mine[0])}{mine[1]} < {atom_of(total_text)} - {start}"
            return text, Applicability.UNSAFE, "derived from the loop bound" + (
                f" and the tile `{shifted}` this access reads" if shifted else "")
    if len(args) == 3 and not code_in(model, args[2]).startswith("-"):
        if code_of(args[2]) != size:
            return None  # the pointer moves in other units than the loop's steps
        stop_text = code_in(model, args[1])
        if relative:
            text = f"{atom_of(mine[0])}{mine[1]} < {atom_of(stop_text)} - {_subtrahend(shifted) if shifted else variable}"
        else:
            text = f"{atom_of(mine[0])}{mine[1]} < {stop_text}"
        return text, Applicability.UNSAFE, "derived from the loop bound"
    return None


def rounded_up(model: KernelContext, node: cst.BaseExpression, access: Access, depth: int = 0) -> bool:
    """Whether a bound is an extent rounded up to whole tiles: a product with a `cdiv(...)` factor
    (`tl.cdiv(N, BLOCK) * BLOCK`), directly or through the locals it is built from. Such a bound
    reads an extent, yet is none: the last tile up to it is the partial one."""
    node = _unparenthesized(node)
    if isinstance(node, cst.Name) and depth < 4:
        defs = [d for d in model.defs.get(node.value, ()) if d.kind == "assign" and d.value is not None]
        return bool(defs) and all(rounded_up(model, d.value, access, depth + 1) for d in defs if d.value is not None)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return any(_is_cdiv(model, side, depth) for side in (node.left, node.right))
    return False


def _is_cdiv(model: KernelContext, node: cst.BaseExpression, depth: int) -> bool:
    node = _unparenthesized(node)
    if isinstance(node, cst.Call):
        return model.qualify_tl(node.func) == "cdiv"
    if isinstance(node, cst.Name) and depth < 4:
        defs = [d for d in model.defs.get(node.value, ()) if d.kind == "assign" and d.value is not None]
        return bool(defs) and all(_is_cdiv(model, d.value, depth + 1) for d in defs if d.value is not None)
    return False


def reads_extent(model: KernelContext, node: cst.BaseExpression, access: Access, depth: int = 0) -> bool:
    """Whether a bound is built from a size the kernel is given or reads (a parameter that is not a
    constexpr nor a pointer, a loaded value), through the locals it is built from: the extent of a
    tensor, or a bound clamped to one (`tl.minimum(hi, N)`). `(start_m + 1) * BLOCK_M` (program ids
    and block sizes only) is no extent."""
    if any(isinstance(n, cst.Call) and model.qualify_tl(n.func) == "load" for n in nodes_under(node)):
        return True
    for name in set(names_in(node)):
        for d in model.defs.get(name, ()):
            if d.kind == "param" and not d.constexpr and not is_pointer(model, cst.Name(name)):
                return True
            if d.kind in ("assign", "advance") and d.value is not None and depth < 6 and \
                    reads_extent(model, d.value, access, depth + 1):
                return True
    return False


def shifted_tile(model: KernelContext, hazard: TailHazard) -> str | None:
    """`(k + 1) * BLOCK_K` when the pointer reads another tile than the current one of a
    `for k in range(tl.cdiv(K, BLOCK_K))` loop (a prefetch of the next tile): the one summand of the
    pointer (or of the definitions it is built from) that is `(k ± c) * BLOCK_K`. None otherwise."""
    loop = hazard.walk.loop
    if loop is None or not isinstance(loop.node, cst.For) or not isinstance(loop.node.target, cst.Name):
        return None
    args = range_args(loop.node.iter) if isinstance(loop.node.iter, cst.Call) else []
    stop = args[-1] if len(args) in (1, 2) else None  # whatever the start, `k` counts BLOCK_K tiles
    if not (isinstance(stop, cst.Call) and model.qualify_tl(stop.func) == "cdiv" and len(stop.args) == 2):
        return None
    variable, block = loop.node.target.value, code_of(stop.args[1].value)
    access = hazard.access
    roots = [access.pointer]
    for defs in model.chain(access.pointer, access).values():
        roots.extend(d.value for d in defs if d.value is not None and d.kind != "advance")
    found = {code_in(model, term): term for root in roots for term in terms(strip_casts(root))
             if variable in names_in(term)}
    if len(found) != 1:
        return None
    (text, term), = found.items()
    term = _unparenthesized(term)
    if not (isinstance(term, cst.BinaryOperation) and isinstance(term.operator, cst.Multiply)):
        return None
    for tile, size in ((term.left, term.right), (term.right, term.left)):
        tile = _unparenthesized(tile)
        if (code_of(size) == block and isinstance(tile, cst.BinaryOperation)
                and isinstance(tile.operator, (cst.Add, cst.Subtract))
                and any(isinstance(side, cst.Name) and side.value == variable for side in (tile.left, tile.right))):
            return text
    return None


def _subtrahend(text: str) -> str:
    """`text` as the right side of `-`: parenthesised only when it is itself a sum."""
    node = cst.parse_expression(text)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
        return f"({text})"
    return text


def _unparenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=(), rpar=()) if getattr(node, "lpar", ()) else node


# ---------------------------------------------------------------------- helpers

def _offset_dims(model: KernelContext, access: Access) -> frozenset[str]:
    dims = model.dims(access.pointer, access.order, access.path, access.loops)
    return frozenset(d for d in dims if not d.startswith(LOOP_PREFIX))


def offset_of(model: KernelContext, access: Access, dim: str) -> tuple[str, str, cst.BaseExpression] | None:
    """The expression a pointer uses for one dimension and how it is broadcast: ("offs_k", "[None, :]", node).

    Searched in the pointer and the definitions it is built from: the smallest sub-expression
    whose value varies along `dim` only, under a `[None, :]`-style subscript when there is one.
    """
    roots: list[tuple[cst.BaseExpression, int]] = [(access.pointer, access.order)]
    for defs in model.chain(access.pointer, access).values():
        roots.extend((d.value, d.order) for d in defs if d.value is not None and d.kind != "advance")
    for root, order in roots:
        for node in nodes_under(root):
            if not isinstance(node, cst.Subscript):
                continue
            inner = node.value
            inner_dims = model.dims(inner, order, access.path, access.loops)
            offsets = {d for d in inner_dims if not d.startswith(LOOP_PREFIX)}
            if offsets == {dim}:
                inner = strip_casts(inner)
                return code_in(model, inner), code_in(model, node)[len(code_in(model, node.value)):], inner
    for root, order in roots:
        for node in nodes_under(root):
            if isinstance(node, cst.Name):
                offsets = {d for d in model.dims(node, order, access.path, access.loops) if not d.startswith(LOOP_PREFIX)}
                # The access's own pointer (`m_ptrs` of `tl.store(m_ptrs, ...)`) varies along the
                # dimension too, but it is an address: `m_ptrs < N` would compare a pointer with a size.
                if offsets == {dim} and node is not access.pointer and \
                        not _is_pointer_name(model, node.value, access) and not is_pointer(model, node):
                    return node.value, "", node
            if isinstance(node, cst.Call) and model.qualify_tl(node.func) == "arange":
                # `T + pid * BLOCK + tl.arange(0, BLOCK)`: the offsets are what the pointer adds to
                # its base, not the arange alone (the tile's start is part of them).
                rest = _offset_part(model, root, order, access, dim)
                if rest is not None:
                    return code_in(model, rest), "", rest
                return code_in(model, node), "", node
    return None


def _offset_part(model: KernelContext, root: cst.BaseExpression, order: int, access: Access,
                 dim: str) -> cst.BaseExpression | None:
    """`pid * BLOCK + tl.arange(0, BLOCK)` out of `T + pid * BLOCK + tl.arange(0, BLOCK)`: the
    summands after the pointer, when they are all added, are offsets in elements (no stride) and
    vary along `dim` only. None otherwise."""
    node = strip_casts(root)
    summands = terms(node)
    if len(summands) < 2 or not is_pointer(model, summands[0]) or \
            any(reads_pointer(model, term) for term in summands[1:]):
        return None
    chain = node
    while isinstance(chain, cst.BinaryOperation) and isinstance(chain.operator, (cst.Add, cst.Subtract)):
        if isinstance(chain.operator, cst.Subtract):
            return None  # a subtraction among the offsets: keep the plain arange
        chain = chain.left
    rest = summands[1]
    for term in summands[2:]:
        rest = cst.BinaryOperation(left=rest, operator=cst.Add(), right=term)
    offsets = {d for d in model.dims(rest, order, access.path, access.loops) if not d.startswith(LOOP_PREFIX)}
    if offsets != {dim} or not is_pure(rest, model, access) and not _tile_start(rest):
        return None
    return rest


def _tile_start(node: cst.BaseExpression) -> bool:
    """`pid * BLOCK + tl.arange(0, BLOCK)`: a scalar tile start times a block, plus the arange."""
    for term in terms(node):
        if isinstance(term, cst.Call):
            continue
        if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, cst.Multiply) and \
                all(isinstance(side, cst.Name) for side in (term.left, term.right)):
            continue
        if isinstance(term, (cst.Name, cst.Integer)):
            continue
        return False
    return True


def is_pure(node: cst.BaseExpression, model: KernelContext | None = None, access: Access | None = None,
          depth: int = 0) -> bool:
    """Offsets made of names, aranges and `+`/`-` only: in the units of the dimension itself.
    Given the model, a name counts by its definitions (`blocks = tokens // PAGE` is not)."""
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, (cst.Add, cst.Subtract)) and \
            is_pure(node.left, model, access, depth) and is_pure(node.right, model, access, depth)
    if isinstance(node, cst.Call):
        return True  # tl.arange(...)
    if isinstance(node, cst.Name) and model is not None and access is not None and depth < 8:
        return all(is_pure(d.value, model, access, depth + 1)
                   for d in model.reaching(node.value, access.order, access.path, access.loops)
                   if d.kind == "assign" and d.value is not None)
    return isinstance(node, (cst.Name, cst.Integer))


def _is_pointer_name(model: KernelContext, name: str, access: Access) -> bool:
    return name in names_in(access.pointer) and any(d.kind == "advance" for d in model.defs.get(name, ()))


def _relative(model: KernelContext, node: cst.BaseExpression, access: Access) -> bool:
    """Offsets relative to the current tile (the pointer is advanced) rather than absolute in K."""
    dims = model.dims(node, access.order, access.path, access.loops)
    return not any(d.startswith(LOOP_PREFIX) for d in dims)


def _loop_keys_of(model: KernelContext, node: cst.BaseExpression, access: Access) -> frozenset[str]:
    return frozenset(d for d in model.dims(node, access.order, access.path, access.loops) if d.startswith(LOOP_PREFIX))


def comparisons_of(model: KernelContext, access: Access, hypothesis: frozenset[Literal],  # type: ignore[no-untyped-def]
                 same_loop: bool):
    """`x < bound` comparisons in the masks of other accesses on a compatible path (in the same
    loop, for a dimension the loop walks)."""
    seen: dict[int, int] = {}  # node -> the least depth it was read at
    path = access.path | hypothesis
    for other in model.accesses:
        if other.mask is None or (same_loop and other.loops[:len(access.loops)] != access.loops):
            continue
        if not compatible(other.path, path):
            continue
        pending: list[tuple[cst.BaseExpression, int]] = [(other.mask, 0)]
        while pending:
            node, depth = pending.pop()
            # Read again when reached by a shorter way: a node first met at the depth limit had the
            # definitions of its names cut off (a long chain of aliases reached it before a short one).
            if depth > 6 or seen.get(id(node), depth + 1) <= depth:
                continue
            again, seen[id(node)] = id(node) in seen, depth
            if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and \
                    isinstance(node.comparisons[0].operator, (cst.LessThan, cst.LessThanEqual)):
                if not again:  # yielded when first met
                    yield node, model.line_of(node) if _in_module(model, node) else model.line_of(other.call), other
                continue
            if isinstance(node, cst.Name):
                for d in model.reaching(node.value, other.order, path, other.loops):
                    if d.value is not None and d.kind == "assign" and compatible(d.path, path):
                        pending.append((d.value, depth + 1))
                continue
            pending.extend((child, depth) for child in expressions_in(node))
    # A bound kept in a local but never given to an access here (`tile_mask = seq_offset < n`,
    # passed to a helper instead): the kernel's own comparison all the same.
    given = {name for other in model.accesses if other.mask is not None for name in names_in(other.mask)}
    for name, defs in model.defs.items():
        if name in given:
            continue  # read through the accesses that use it, on their paths
        for d in defs:
            value = d.value
            if (d.kind != "assign" or type(value) is not cst.Comparison or id(value) in seen
                    or d.order > access.order or not compatible(d.path, path)
                    or (same_loop and d.loops[:len(access.loops)] != access.loops)):
                continue
            if len(value.comparisons) == 1 and isinstance(value.comparisons[0].operator, (cst.LessThan, cst.LessThanEqual)):
                seen[id(value)] = 0
                yield value, model.line_of(value) if _in_module(model, value) else model.line_of(access.call), d


def _in_module(model: KernelContext, node: cst.CSTNode) -> bool:
    try:
        model.span_of(node)
        return True
    except KeyError:
        return False


def code_in(model: KernelContext, node: cst.CSTNode) -> str:
    """The node's source as written (comments inside kept), on one logical piece."""
    return model.module.code_for_node(node).strip()


def atom_of(text: str) -> str:
    """Parenthesize an expression unless it is a name, call, subscript, literal or already wrapped."""
    if re.fullmatch(r"[\w.]+(\(.*\)|\[.*\])?", text, flags=re.DOTALL) or _wrapped(text):
        return text
    return f"({text})"


def _wrapped(text: str) -> bool:
    """`(a + b)` is wrapped; `(a) + (b)` is not."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(text) - 1:
            return False
    return True


def decided_at_run_time(model: KernelContext, atom: str) -> bool:
    """Whether a condition reads a value known only at run time (a loop index, a tensor's length)."""
    try:
        node = cst.parse_expression(atom)
    except cst.ParserSyntaxError:
        return False
    return model.ev.runtime(node, 0)


def condition_text(literal: Literal) -> str:
    return literal.atom if literal.value else f"not {atom_of(literal.atom)}"


def call_argument(call: cst.Call, name: str, position: int) -> cst.Arg | None:
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return positional[position] if position < len(positional) else None


def with_arguments(model: KernelContext, access: Access, arguments: dict[str, str]) -> cst.Call:
    """The call with `arguments` set (replacing an existing positional or keyword one), each new one
    laid out as the call's others (fixing/arguments.py), with no parentheses precedence does not need."""
    call = access.call
    positions = {"load": {"mask": 1, "other": 2, "boundary_check": 3, "padding_option": 4},
                 "store": {"mask": 2, "boundary_check": 3}}[access.kind]
    for name, text in arguments.items():
        try:
            value = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            # A mask copied from a multi-line call continues lines inside that call's parentheses
            # (and inside this call's, once the pair is dropped below).
            value = cst.parse_expression(f"({text})")
        value = spaced(without_redundant_parentheses(value))
        existing = call_argument(call, name, positions.get(name, 99))
        if existing is not None:
            call = call.with_changes(args=[arg.with_changes(value=value) if arg is existing else arg
                                           for arg in call.args])
        else:
            call = appended(call, keyword_argument(name, value))
    return call
