"""An offset added after the mask was formed: `m = o < T`, then `o_cs = o + shift`, and the access walks
`o_cs` under `m`."""

from __future__ import annotations

import libcst as cst

from tritonlint.semantic.ir import Access, Def
from tritonlint.source.names import code_of
from tritonlint.source.tree import names_in, terms

from .reading import Reading, unbroadcast, words


class LateReading(Reading):
    """TL104's reading of this shape (a part of `MaskSufficiency`)."""

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
            bound_words = words(given) | {w for value, _ in launch.allocations.get(bound, ()) for w in words(value)}
            shift_words = words(shift) | {w for value, _ in launch.allocations.get(shifts[0], ()) for w in words(value)}
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
