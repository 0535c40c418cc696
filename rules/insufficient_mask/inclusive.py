"""An inclusive bound on an exclusive end: `offs <= n` where the kernel itself bounds the very same
offsets by `offs < n` at another access, so `n` is where the tensor ends and lane `n` is one past it."""

from __future__ import annotations

import libcst as cst

from tritonlint.semantic.ir import Access
from tritonlint.source.syntax import ordered

from .reading import Reading, spaceless, unbroadcast

INCLUSIVE = (cst.LessThanEqual, cst.GreaterThanEqual)
EXCLUSIVE = (cst.LessThan, cst.GreaterThan)


class InclusiveReading(Reading):
    """TL104's reading of this shape (a part of `MaskSufficiency`)."""

    def _inclusive(self, access: Access, dim: str) -> tuple[cst.Comparison, Access] | None:
        """The mask's `offs <= n` bounding `dim`, and the access whose mask says `offs < n`. Only the
        kernel's own word counts: without a twin, `offs <= last` may well be an inclusive index.

        Not judged: a bound read from memory (`write_pos = tl.load(...)`: a position in a buffer,
        not its end); a mask that also bounds `dim` exclusively (`(offs <= pos) & (offs < CAP)`:
        the other term stops at the end); and an inclusive comparison another access repeats (a
        load and a store of `rows <= batch`: the kernel's convention for an array of `batch + 1`
        entries, such as cumulative offsets)."""
        comparisons = list(self.flow.mask_comparisons(access))
        if not any(isinstance(node.comparisons[0].operator, INCLUSIVE) for node in comparisons):
            return None  # most masks: nothing inclusive to judge, no bound to read
        own = [(node, sides) for node in comparisons
               if (sides := ordered(node)) is not None and self.broadcasts.bounds(sides[0], dim, access)]
        if any(isinstance(node.comparisons[0].operator, EXCLUSIVE) for node, _ in own):
            return None
        for node, (small, large) in own:
            if not isinstance(node.comparisons[0].operator, INCLUSIVE) or self.flow.loaded_names(large, access):
                continue
            repeated, twins = self._other_accesses_comparing(access, small, large)
            if twins and not repeated:
                return node, twins[0]
        return None

    def _other_accesses_comparing(self, access: Access, small: cst.BaseExpression, large: cst.BaseExpression
                                  ) -> tuple[list[Access], list[Access]]:
        """The other accesses whose masks compare the same offsets with the same bound (by text: the
        same names, read where each access is): (inclusively, exclusively)."""
        mine = (spaceless(unbroadcast(small)), spaceless(large))
        inclusive: list[Access] = []
        exclusive: list[Access] = []
        for other in self.kernel.flags.accesses:  # helpers' accesses too, as their calls see them
            if other is access or other.mask is None:
                continue
            for node in self.flow.mask_comparisons(other):
                sides = ordered(node)
                if sides is None or (spaceless(unbroadcast(sides[0])), spaceless(sides[1])) != mine:
                    continue
                operator = node.comparisons[0].operator
                (inclusive if isinstance(operator, INCLUSIVE) else exclusive).append(other)
                break
        return inclusive, exclusive
