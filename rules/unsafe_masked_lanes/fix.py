"""TL105's fix: `other=` set to the identity of the reductions the lanes reach, checked by following
the lanes again with it; display-only where no single value serves them all."""

from __future__ import annotations

import math

from tritonlint.diagnostics import Applicability
from tritonlint.fixing.masks import CallFix, with_arguments
from tritonlint.fixing.types import ZERO, element_type
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.lanes.masked import LaneVerdict, MaskedLanes
from tritonlint.semantic.lanes.values import IDENTITY_TEXT
from tritonlint.semantic.verdicts import TailHazard


def lanes_fix(kernel: KernelContext, hazard: TailHazard, everything: tuple[LaneVerdict, ...]) -> CallFix:
    """`other=` set to the identity of the reductions the lanes reach, when that alone makes every
    one of them see its identity; display-only where a `tl.where` is needed."""
    access = hazard.access
    bad = [verdict for verdict in everything if verdict.problem]
    first = bad[0]
    where = f"`tl.{first.reduction.kind}` at line {kernel.line_of(first.reduction.call)}"
    # The first reduction's identity first; `other=-inf` can serve a max and the sum of its exp.
    # The reached reductions' identities first; then the others: `-inf` serves a sum of `exp(x)`.
    # `-inf` is a value of float types only: on an integer load (or one whose type the kernel does
    # not say) the infinities are not offered, and `0` is spelled as an integer.
    element = element_type(kernel, access)
    for identity in dict.fromkeys([verdict.identity for verdict in bad] + [v.identity for v in everything]
                                  + list(IDENTITY_TEXT)):
        text = IDENTITY_TEXT[identity]
        if math.isinf(identity) and element != "float":
            continue
        if element == "int":
            text = ZERO
        if any(verdict.problem for verdict in MaskedLanes(kernel, {access: text}).verdicts(access)):
            continue
        direct = identity == 0.0 and not any(verdict.lanes.steps for verdict in bad)
        return CallFix(f"Set `other={text}`: the lanes then reach {where} as its identity",
                       Applicability.SAFE if direct else Applicability.UNSAFE,
                       with_arguments(kernel, access, {"other": text}))
    identity_text = IDENTITY_TEXT[first.identity]
    if math.isinf(first.identity) and element != "float":
        what = "an integer load" if element == "int" else "a load whose element type the kernel does not say"
        return CallFix(f"`other={identity_text}` is the identity {where} needs, but this is {what} and "
                       f"infinity is a value of float types only: clean the lanes with `tl.where` before it "
                       "(the least value of the element type for a max)", Applicability.DISPLAY_ONLY, None)
    return CallFix(f"no `other=` makes the lanes the identity of every reduction they reach ({where} among "
                   f"them): clean them with `tl.where(mask, x, {identity_text})` before it",
                   Applicability.DISPLAY_ONLY, None)
