"""TL104's fix, by the shape the finding carries: the bound that moves with the tile, the comparison
re-broadcast as the pointer walks, the bound in packed units, or the group's or shifted offsets' bound."""

from __future__ import annotations

import libcst as cst

from tritonlint.diagnostics import Applicability
from tritonlint.fixing.masks import (
    CallFix,
    available_at,
    code_in,
    combined_mask,
    comparison_mask,
    loop_bound_mask,
    sibling_mask,
    with_arguments,
)
from tritonlint.fixing.types import compares_pointer
from tritonlint.semantic.broadcasts import slice_text
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import PROGRAM, Access
from tritonlint.semantic.verdicts import TailHazard
from tritonlint.source.syntax import ordered
from tritonlint.source.tree import nodes_under

from .analysis import MaskSufficiency, SufficiencyVerdict
from .reading import PACKED, spaceless, spaceless_text, unbroadcast


def sufficiency_fix(checker: MaskSufficiency, verdict: SufficiencyVerdict,
                    verdicts: tuple[SufficiencyVerdict, ...]) -> CallFix:
    """Add the missing bound: the same mask sources as TL101's fix, in the same order, keeping only a
    bound that moves with the shift the mask ignores; for swapped axes, the comparison re-broadcast."""
    kernel, hazard = checker.kernel, verdict.hazard
    assert hazard is not None
    access = hazard.access
    if verdict.shape == "axes":
        return _axes_fix(kernel, hazard, verdict, checker, verdicts)
    if verdict.shape == "units":
        return _units_fix(kernel, hazard, verdict)
    if verdict.shape in ("group", "late"):
        return _bound_fix(kernel, hazard, verdict)
    if verdict.shape == "inclusive":
        return _exclusive_fix(kernel, hazard, verdict)
    if verdict.shape == "start":
        return _lower_bound_fix(kernel, hazard, verdict)
    sources = [loop_bound_mask(kernel, hazard)] if hazard.walk.loop is not None and verdict.shift != PROGRAM else []
    sources += [sibling_mask(kernel, hazard), comparison_mask(kernel, hazard)]
    for found in sources:
        if found is not None and found[1] is Applicability.DISPLAY_ONLY:
            return CallFix(found[2], Applicability.DISPLAY_ONLY, None)
        if found is None or compares_pointer(kernel, found[0]) or not checker.accounts_in(found[0], hazard.walk.dim or "", verdict.shift, access):
            continue
        mask, applicability, source = found
        replaced = checker.replace_ignoring(access, hazard.walk.dim or "", verdict.shift, mask)
        if replaced is not None:
            new_call = with_arguments(kernel, access, {"mask": replaced})
            return CallFix(f"Bound the mask with `{mask}` ({source})", applicability, new_call)
        new_call = with_arguments(kernel, access, {"mask": combined_mask(kernel, access, mask, None)})
        return CallFix(f"Add the bound `{mask}` to the mask ({source})", applicability, new_call)
    return CallFix("no bound that moves with the tile can be derived: compare the tile's own offsets "
                   "(`start + offs < N`, or `offs < N - start`)", Applicability.DISPLAY_ONLY, None)


def _axes_fix(kernel: KernelContext, hazard: TailHazard, verdict: SufficiencyVerdict, checker: MaskSufficiency,
              verdicts: tuple[SufficiencyVerdict, ...]) -> CallFix:
    """`offs[:, None] < M` written in the call beside a pointer's `offs[None, :]`: re-broadcast each
    dimension the mask puts on the wrong axis, all at once (a transposed store swaps both)."""
    access = hazard.access
    assert access.mask is not None
    text = swapped = code_in(kernel, access.mask)
    labels = []
    for each in verdicts:
        if each.shape != "axes" or each.walk.dim is None:
            continue
        pointer_slice, mask_slice = each.slices
        for node in nodes_under(access.mask):
            if type(node) is cst.Subscript and slice_text(node) == mask_slice and \
                    checker.broadcasts.bounds(node.value, each.walk.dim, access):
                written = code_in(kernel, node)
                if swapped.count(written) != 1:
                    return _axes_display_only(pointer_slice)
                swapped = swapped.replace(written, code_in(kernel, node.value) + pointer_slice)
                labels.append(f"`{kernel.label(each.walk.dim)}{pointer_slice}`")
    if swapped == text:
        return _axes_display_only(verdict.slices[0])
    new_call = with_arguments(kernel, access, {"mask": swapped})
    return CallFix(f"Broadcast the mask as the pointer walks: {', '.join(labels)}", Applicability.UNSAFE, new_call)


def _units_fix(kernel: KernelContext, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
    """`offs_kp < K - k` over a tile of `BLOCK_K // 2`: compare with the bound in packed units,
    rounded up (an odd K leaves a half-used last byte that must still be read)."""
    access = hazard.access
    assert access.mask is not None
    match = PACKED.fullmatch(spaceless_text(kernel.dim_size.get(hazard.walk.dim or "", "")))
    assert match is not None
    factor = spaceless_text(kernel.dim_size.get(hazard.walk.dim or "", "")).split("//", 1)[1]
    text = replaced = code_in(kernel, access.mask)
    for node in nodes_under(access.mask):
        if type(node) is not cst.Comparison or len(node.comparisons) != 1:
            continue
        sides = ordered(node)
        if sides is None or spaceless(sides[1]) != spaceless_text(verdict.slices[0]):
            continue
        written = code_in(kernel, node)
        if replaced.count(written) != 1:
            break
        less = str(int(factor) - 1) if factor.isdigit() else f"{factor} - 1"
        bound = f"({code_in(kernel, sides[1])} + {less}) // {factor}"
        new = f"{code_in(kernel, sides[0])} < {bound}"
        replaced = replaced.replace(written, f"({new})" if node.lpar else new)
    if replaced == text:
        return CallFix("the comparison is built outside the call; divide its bound by the packing "
                       f"factor {factor}", Applicability.DISPLAY_ONLY, None)
    return CallFix(f"Compare in packed units (the bound divided by {factor}, rounded up)", Applicability.UNSAFE,
                   with_arguments(kernel, access, {"mask": replaced}))


def _exclusive_fix(kernel: KernelContext, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
    """`offs <= n` written in the call made `offs < n`, as its twin at line `slices[1]` says it. Unsafe:
    the lane switched off may be one the kernel meant to keep, if the twin is the one that is wrong."""
    access = hazard.access
    assert access.mask is not None
    text = code_in(kernel, access.mask)
    for node in nodes_under(access.mask):
        if type(node) is not cst.Comparison or len(node.comparisons) != 1 or \
                " ".join(code_in(kernel, node).split()) != verdict.slices[0]:
            continue
        written = code_in(kernel, node)
        target = node.comparisons[0]
        old = target.operator
        assert isinstance(old, (cst.LessThanEqual, cst.GreaterThanEqual))
        operator: cst.BaseCompOp = (cst.LessThan if isinstance(old, cst.LessThanEqual) else cst.GreaterThan)(
            whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after)
        new = kernel.module.code_for_node(node.with_changes(comparisons=[target.with_changes(operator=operator)]))
        if text.count(written) != 1:
            break
        exclusive = text.replace(written, new)
        return CallFix(f"Bound the mask exclusively: `{' '.join(new.split())}` (as line {verdict.slices[1]} does)",
                       Applicability.UNSAFE, with_arguments(kernel, access, {"mask": exclusive}))
    return CallFix(f"the comparison is built outside the call; make `{verdict.slices[0]}` exclusive, as line "
                   f"{verdict.slices[1]} does", Applicability.DISPLAY_ONLY, None)


def _lower_bound_fix(kernel: KernelContext, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
    """`mask & (offs >= 1)` for a pointer at `offs - 1`: the lower bound the shift asks for, `&`-ed to the
    mask. Unsafe, as every narrowing: the lanes switched off get `other`, where they read before the start."""
    bound = verdict.slices[1]
    new_call = with_arguments(kernel, hazard.access, {"mask": combined_mask(kernel, hazard.access, bound, None)})
    return CallFix(f"Add the bound `{bound}` to the mask (the shift below the start)", Applicability.UNSAFE, new_call)


def _axes_display_only(pointer_slice: str) -> CallFix:
    return CallFix(f"the mask is built outside the call; broadcast it as the pointer does "
                   f"(`{pointer_slice}`)", Applicability.DISPLAY_ONLY, None)


def _bound_fix(kernel: KernelContext, hazard: TailHazard, verdict: SufficiencyVerdict) -> CallFix:
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
        lands = _broadcasts_of(kernel, access, offsets)
        if lands is None:
            return CallFix(f"`{offsets}` is broadcast more than one way in the pointer: bound its lanes by the "
                           f"group as the pointer broadcasts them (`{offsets} < {verdict.slices[1]}`)",
                           Applicability.DISPLAY_ONLY, None)
        # A 2-D tile's in-group offsets (`ch[:, None] * W + col[None, :]`): the bound lands on their axis,
        # not on the last one a bare 1-D comparison broadcasts to.
        bound = f"({offsets} < {verdict.slices[1]}){lands}" if lands else f"{offsets} < {verdict.slices[1]}"
        source = "the lanes of the group"
    new_call = with_arguments(kernel, access, {"mask": combined_mask(kernel, access, bound, None)})
    return CallFix(f"Add the bound `{bound}` to the mask ({source})", Applicability.UNSAFE, new_call)


def _in_group_offsets(kernel: KernelContext, access: Access, block: str) -> str | None:
    """The one name the pointer is built from that is `tl.arange(0, block)` itself."""
    found = set()
    for name, defs in kernel.chain(access.pointer, access).items():
        for d in defs:
            if d.kind == "assign" and type(d.value) is cst.Call and \
                    (kernel.qualify_tl(d.value.func) or "") == "arange" and len(d.value.args) == 2 and \
                    spaceless(d.value.args[1].value) == block:
                found.add(name)
    return next(iter(found)) if len(found) == 1 else None


def _broadcasts_of(kernel: KernelContext, access: Access, offsets: str) -> str | None:
    """How the pointer broadcasts the in-group offsets or a name made from them (`chan[:, None]` with
    `chan = g * G + ch`): `[:, None]`, or "" where it uses them bare; None where it does so more than one way."""
    chain = kernel.chain(access.pointer, access)
    values = {name: [d.value for d in defs if d.kind == "assign" and d.value is not None]
              for name, defs in chain.items()}
    made = {offsets}  # the offsets and every name of the chain computed from them
    grew = True
    while grew:
        grew = False
        for name, exprs in values.items():
            if name not in made and any(isinstance(n, cst.Name) and n.value in made
                                        for e in exprs for n in nodes_under(e)):
                made.add(name)
                grew = True
    seen: set[str] = set()
    for root in [access.pointer, *(e for exprs in values.values() for e in exprs)]:
        for node in nodes_under(root):
            if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in made:
                seen.add(slice_text(node))
    if len(seen) > 1:
        return None
    return next(iter(seen), "")


def _shifted_bound(kernel: KernelContext, access: Access, shifted: str) -> tuple[str, str] | None:
    """A comparison another access's mask makes of the shifted offsets themselves (`o_cs < N`),
    readable where this access is: the extent of what they walk, as the kernel says it."""
    for other in kernel.accesses:
        if other is access or other.mask is None:
            continue
        for sides in map(ordered, kernel.flow.mask_comparisons(other)):
            compared = None if sides is None else unbroadcast(sides[0])
            if sides is None or not isinstance(compared, cst.Name) or compared.value != shifted or \
                    not available_at(kernel, sides[1], access):
                continue
            return f"{shifted} < {code_in(kernel, sides[1])}", f"{other.kind} at line {kernel.line_of(other.call)}"
    return None
