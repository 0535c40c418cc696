"""A tile wider than its group: a launch passes `BLOCK=next_power_of_2(G)` beside `G`, the pointer steps
by `G`, and no bound of the mask reads `G`."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from tritonlint.semantic.host.launches import rounded_blocks
from tritonlint.semantic.ir import Access

from .reading import Reading, spaceless_text


class GroupReading(Reading):
    """TL104's reading of this shape (a part of `MaskSufficiency`)."""

    @cached_property
    def _padded_groups(self) -> dict[str, set[str]]:
        """Block-size parameter -> the parameters holding the group size a launch rounds it up
        from (`BLOCK=triton.next_power_of_2(group_size)`, directly or through a host name). The
        kernel's launches say it once: read on first use, after the engine has set them."""
        found: dict[str, set[str]] = {}
        for launch in self.kernel.launches:
            for param, groups in rounded_blocks(launch).items():
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
