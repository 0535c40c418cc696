"""Offsets shifted below the tensor's start: `tl.load(cu + offs - 1, mask=offs < n)` bounds `offs` from
above only, so lane 0 of the first program, active, reads `cu[-1]` (a `tl.where(offs == 0, 0, ...)`
around the load does not help: a select runs both arms)."""

from __future__ import annotations

import libcst as cst

from tritonlint.semantic.ir import Access, Loop, Walk
from tritonlint.semantic.paths import Path
from tritonlint.source.syntax import strip_casts
from tritonlint.source.tree import names_in

from .origin import Interval, OriginReading

# A summand of the pointer's index: its sign, the expression, and where it is read (order, path, loops).
Term = tuple[int, cst.BaseExpression, tuple[int, Path, tuple[Loop, ...]]]


class StartReading(OriginReading):
    """TL104's reading of this shape (a part of `MaskSufficiency`)."""

    def _before_start(self, access: Access, walk: Walk) -> tuple[str, str, Interval] | None:
        """(the shifted offsets as written, the lower bound that keeps them in the tensor, their value at
        the first lane) when the pointer's index is negative on the first lane of the first program, the
        shift is on `walk`'s offsets, and the mask and the branches around the access let that lane run."""
        dim = walk.dim
        terms = self._index_terms(access.pointer, (access.order, access.path, access.loops), 0)
        if not terms or dim is None:
            return None
        values = [self._signed_origin(term) for term in terms]
        if sum(v[1] for v in values) >= 0:
            return None
        walked = [i for i, (_, node, place) in enumerate(terms) if dim in self.ev.dims(node, *place)]
        if not walked or any(terms[i][0] < 0 for i in walked):
            return None  # no offsets of this walk, or walked downwards (`last - offs`): another reading
        found = self._shifted(terms, values, walked, dim)
        if found is None or access.mask is None or self.truth(access.mask, access) != "true":
            return None  # the mask keeps the first lane out (`offs >= 1`), or cannot be read there
        return found if self._reached_first(access) else None

    def _shifted(self, terms: list[Term], values: list[Interval], walked: list[int], dim: str
                 ) -> tuple[str, str, Interval] | None:
        """The offsets and the shift that makes them negative: a walked summand negative itself
        (`(offs - 1) * stride`, `prev` with `prev = offs - 1`), else the walked summands with the
        constants subtracted beside them (`cu + offs - 1`)."""
        for i in walked:
            if values[i][1] < 0:
                return self._inner(terms[i][1], terms[i][2], dim)
        constants = [i for i, (_, node, place) in enumerate(terms) if i not in walked and not self.ev.dims(node, *place)]
        low = sum(values[i][1] for i in walked + constants)
        if not constants or low >= 0:
            return None  # the index is negative through another axis's summand: not this walk's shift
        offsets = " + ".join(self._text(terms[i][1]) for i in walked)
        return offsets, _bound(offsets, [terms[i] for i in constants]), \
            (sum(values[i][0] for i in walked + constants), low)

    def _inner(self, node: cst.BaseExpression, place: tuple[int, Path, tuple[Loop, ...]], dim: str
               ) -> tuple[str, str, Interval] | None:
        """Into a product for the factor that is negative (`(offs - 1) * stride` -> `offs - 1`)."""
        node = strip_casts(node)
        while type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
            negative = [side for side in (node.left, node.right)
                        if dim in self.ev.dims(side, *place) and self.origin(side, *place)[1] < 0]
            if len(negative) != 1:
                return None
            node = strip_casts(negative[0])
        value = self.origin(node, *place)
        if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract):
            parts = _signed(node, 1, place)
            walked = [p for p in parts if dim in self.ev.dims(p[1], *place)]
            constants = [p for p in parts if not self.ev.dims(p[1], *place)]
            if walked and len(walked) + len(constants) == len(parts) and all(p[0] > 0 for p in walked):
                offsets = " + ".join(self._text(p[1]) for p in walked)
                return offsets, _bound(offsets, constants), value
        text = self._text(node)
        return text, f"{text} >= 0", value

    def _index_terms(self, pointer: cst.BaseExpression, place: tuple[int, Path, tuple[Loop, ...]],
                     depth: int) -> list[Term] | None:
        """The summands a pointer adds to its tensor's start, through the locals it is built from
        (`p = cu + offs - 1`); None where the start is not plain (a pointer chosen by a select, a
        base moved in a loop before the access)."""
        node = strip_casts(pointer)
        if depth > 8:
            return None
        if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract):
            if self.ev._pointer_sum(node.left, 0) or self._is_base(node.left, place):
                inner = self._index_terms(node.left, place, depth + 1)
                sign = 1 if type(node.operator) is cst.Add else -1
                return None if inner is None else inner + _signed(node.right, sign, place)
            if type(node.operator) is cst.Add and (self.ev._pointer_sum(node.right, 0) or self._is_base(node.right, place)):
                inner = self._index_terms(node.right, place, depth + 1)
                return None if inner is None else _signed(node.left, 1, place) + inner
            return None
        if type(node) is not cst.Name:
            return None
        defs = [d for d in self.flow.reaching(node.value, *place) if d.order < place[0]]
        if defs and all(d.kind == "param" and not d.constexpr for d in defs):
            return []  # the tensor's start itself
        if len(defs) != 1 or defs[0].kind != "assign" or defs[0].value is None or defs[0].index is not None:
            return None
        d = defs[0]
        return self._index_terms(d.value, (d.order, d.path, d.loops), depth + 1) if d.value is not None else None

    def _is_base(self, node: cst.BaseExpression, place: tuple[int, Path, tuple[Loop, ...]]) -> bool:
        node = strip_casts(node)
        return type(node) is cst.Name and any(d.kind == "param" and not d.constexpr
                                              for d in self.flow.reaching(node.value, *place))

    def _signed_origin(self, term: Term) -> Interval:
        sign, node, place = term
        low, high = self.origin(node, *place)
        return (low, high) if sign > 0 else (-high, -low)

    def _reached_first(self, access: Access) -> bool:
        """Whether every branch around the access lets the first lane of the first program through:
        `if pid > 0:`, `... if i > 0 else 0` or an early `if pid == 0: return` keep it out; a test of
        run-time values the first lane's values cannot decide is taken as keeping it out too. A test
        of constexprs alone is a specialization some launch takes."""
        for literal in access.path:
            try:
                test = cst.parse_expression(literal.atom)
            except cst.ParserSyntaxError:
                return False
            truth = self.truth(test, access)
            if truth == "unknown":
                if any(not self.ev.constexpr(name) for name in names_in(test)):
                    return False
            elif (truth == "true") != literal.value:
                return False
        return True


def _signed(node: cst.BaseExpression, sign: int, place: tuple[int, Path, tuple[Loop, ...]]) -> list[Term]:
    """`a - (b + c)` as (+a, -b, -c): a sum's summands with their signs, parentheses opened."""
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract):
        right = sign if type(node.operator) is cst.Add else -sign
        return _signed(node.left, sign, place) + _signed(node.right, right, place)
    return [(sign, node, place)]


def _bound(offsets: str, constants: list[Term]) -> str:
    """`offs >= 1` for `offs - 1`: the walked offsets against the constants moved to the other side."""
    subtracted = [_code(node) for sign, node, _ in constants if sign < 0]
    added = [_code(node) for sign, node, _ in constants if sign > 0]
    right = " + ".join(subtracted) or "0"
    if added:
        right += "".join(f" - {text}" for text in added)
    return f"{offsets} >= {right}"


def _code(node: cst.BaseExpression) -> str:
    text = cst.Module([]).code_for_node(node)
    return text if type(node) in (cst.Name, cst.Integer, cst.Attribute, cst.Call, cst.Subscript) else f"({text})"
