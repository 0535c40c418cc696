"""What an expression is worth on the first lane of the first program, on the first iteration of every
loop: program ids 0, each `tl.arange(a, b)` at `a`, each loop variable at its range's start.

Used by the start reading (start.py): offsets that are negative there, with the mask and the branches
letting that lane run, read or write before the tensor's start. The values are intervals over every
launch: a run-time scalar parameter (a size, a stride, an offset the host passes) is taken as at least 1,
anything else not fixed here (a constexpr, a loaded value) as unknown. An interval that is wholly
negative is negative at every launch; anything unsure widens to unknown, and nothing is reported.
"""

from __future__ import annotations

import math
from typing import Literal as OneOf

import libcst as cst

from tritonlint.semantic.ir import LOOP_PREFIX, Access, Def, Loop
from tritonlint.semantic.paths import Path
from tritonlint.source.syntax import loop_range, ordered, strip_casts

from .reading import Reading

Interval = tuple[float, float]
UNKNOWN: Interval = (-math.inf, math.inf)
# A mask or a test at the first lane: it holds, it does not, or it cannot be said.
Truth = OneOf["true", "false", "unknown"]
_DEPTH = 12  # definitions followed, nested; deeper is unknown
_SAME_VALUE = ("multiple_of", "max_contiguous")  # hints: the value passes through unchanged


def _product(a: Interval, b: Interval) -> Interval:
    if a == (0, 0) or b == (0, 0):
        return (0, 0)  # `pid * stride`: zero at the first program, whatever the stride
    corners = [x * y if x != 0 and y != 0 else 0.0 for x in a for y in b]
    return (min(corners), max(corners))


def _hull(values: list[Interval]) -> Interval:
    return (min(v[0] for v in values), max(v[1] for v in values)) if values else UNKNOWN


class OriginReading(Reading):
    """The first lane's values, read through the kernel's definitions (a part of `MaskSufficiency`)."""

    def origin(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
               depth: int = 0) -> Interval:
        """The interval of `node`'s value at the first lane, read where `order` is."""
        node = strip_casts(node)
        if depth > _DEPTH:
            return UNKNOWN
        if type(node) is cst.Integer:
            value = int(node.value, 0)  # not `evaluated_value`: its `ast.literal_eval` leaves reference cycles
            return (value, value)
        if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
            low, high = self.origin(node.expression, order, path, loops, depth + 1)
            return (-high, -low)
        if type(node) is cst.Name:
            return self._name(node.value, order, path, loops, depth)
        if type(node) is cst.Subscript:  # `offs[:, None]`: a broadcast keeps the values
            return self.origin(node.value, order, path, loops, depth + 1)
        if type(node) is cst.Call:
            return self._call(node, order, path, loops, depth)
        if type(node) is cst.BinaryOperation:
            return self._binary(node, order, path, loops, depth)
        if type(node) is cst.IfExp:
            return _hull([self.origin(side, order, path, loops, depth + 1) for side in (node.body, node.orelse)])
        return UNKNOWN

    def _binary(self, node: cst.BinaryOperation, order: int, path: Path, loops: tuple[Loop, ...],
                depth: int) -> Interval:
        left = self.origin(node.left, order, path, loops, depth + 1)
        right = self.origin(node.right, order, path, loops, depth + 1)
        kind = type(node.operator)
        if kind is cst.Add:
            return (left[0] + right[0], left[1] + right[1])
        if kind is cst.Subtract:
            return (left[0] - right[1], left[1] - right[0])
        if kind is cst.Multiply:
            return _product(left, right)
        if kind in (cst.FloorDivide, cst.Modulo) and left[0] >= 0 and right[0] >= 1:
            # Non-negative over positive: stays in [0, left] (a remainder below the divisor too).
            high = left[1] if kind is cst.FloorDivide else min(left[1], right[1] - 1)
            return (0, high) if left != (0, 0) else (0, 0)
        return UNKNOWN

    def _call(self, node: cst.Call, order: int, path: Path, loops: tuple[Loop, ...], depth: int) -> Interval:
        member = self.kernel.qualify_tl(node.func)
        args = [arg.value for arg in node.args if arg.keyword is None]
        if member == "program_id":
            return (0, 0)
        if member == "num_programs":
            return (1, math.inf)
        if member == "arange" and args:
            return self.origin(args[0], order, path, loops, depth + 1)
        if member in _SAME_VALUE and args:
            return self.origin(args[0], order, path, loops, depth + 1)
        builtin = node.func.value if type(node.func) is cst.Name else None
        if (member in ("minimum", "maximum") or builtin in ("min", "max")) and len(args) == 2:
            a, b = (self.origin(arg, order, path, loops, depth + 1) for arg in args)
            pick = min if member == "minimum" or builtin == "min" else max
            return (pick(a[0], b[0]), pick(a[1], b[1]))
        return UNKNOWN

    def _name(self, name: str, order: int, path: Path, loops: tuple[Loop, ...], depth: int) -> Interval:
        # Memoized: names assigned on both sides of a branch, read by names assigned the same way,
        # would be read once per path through them.
        memo: dict[tuple[str, int, Path, tuple[Loop, ...], int], Interval] = self.__dict__.setdefault("_origin_memo", {})
        key = (name, order, path, loops, depth)
        if key not in memo:
            # Only what is written before the use: a later `x += step` in the loop comes round on
            # the second iteration, not the first.
            defs = [d for d in self.flow.reaching(name, order, path, loops) if d.order < order]
            memo[key] = _hull([self._def(d, depth) for d in defs]) if defs else UNKNOWN
        return memo[key]

    def _def(self, d: Def, depth: int) -> Interval:
        if d.kind == "param":
            return UNKNOWN if d.constexpr else (1, math.inf)
        if d.kind == "for":
            loop = d.loops[-1]
            args = loop_range(loop.iterable)
            if len(args) == 1:
                return (0, 0)
            if len(args) in (2, 3) and (len(args) == 2 or self._positive_step(args[2], d, depth)):
                return self.origin(args[0], d.order, d.path, d.loops[:-1], depth + 1)
            return UNKNOWN
        if d.kind == "advance" or d.value is None or d.index is not None:
            return UNKNOWN  # moved before the use in this very iteration, or one item of a tuple
        return self.origin(d.value, d.order, d.path, d.loops, depth + 1)

    def _positive_step(self, step: cst.BaseExpression, d: Def, depth: int) -> bool:
        """A loop counting up: its first value is its start (`range(n, 0, -1)` starts at the top)."""
        if type(step) is cst.Name and (self.ev.constexpr(step.value) or step.value in self.kernel.ir.block_sizes):
            return True  # a block size
        return self.origin(step, d.order, d.path, d.loops[:-1], depth + 1)[0] >= 1

    # ------------------------------------------------------------------ truth at the first lane

    def truth(self, node: cst.BaseExpression, access: Access, depth: int = 0) -> Truth:
        """Whether a mask or a branch test holds at the first lane. An upper bound on a run-time
        extent (`offs < n`, `pid < num_rows`) holds there at some launch: the extent is the host's."""
        if depth > _DEPTH:
            return "unknown"
        if type(node) is cst.Name:
            if node.value in ("True", "False"):
                return "true" if node.value == "True" else "false"
            defs = [d for d in self.flow.reaching(node.value, access.order, access.path, access.loops)
                    if d.order < access.order]
            if not defs or any(d.kind != "assign" or d.value is None or d.index is not None for d in defs):
                return "unknown"
            return _agree([self.truth(d.value, access, depth + 1) for d in defs if d.value is not None])
        if type(node) is cst.Subscript:  # `ok[:, None]`: a broadcast keeps the lanes' truth
            return self.truth(node.value, access, depth + 1)
        if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Not, cst.BitInvert):
            inner = self.truth(node.expression, access, depth + 1)
            return "unknown" if inner == "unknown" else ("false" if inner == "true" else "true")
        if type(node) in (cst.BinaryOperation, cst.BooleanOperation):
            both = type(node.operator) in (cst.BitAnd, cst.And)  # type: ignore[attr-defined]
            if not both and type(node.operator) not in (cst.BitOr, cst.Or):  # type: ignore[attr-defined]
                return "unknown"
            sides = [self.truth(side, access, depth + 1) for side in (node.left, node.right)]  # type: ignore[attr-defined]
            decided = "false" if both else "true"
            if decided in sides:
                return decided
            return "unknown" if "unknown" in sides else ("true" if both else "false")
        if type(node) is cst.Comparison and len(node.comparisons) == 1:
            return self._compared(node, access)
        return "unknown"

    def _compared(self, node: cst.Comparison, access: Access) -> Truth:
        sides = ordered(node)
        operator = type(node.comparisons[0].operator)
        here = (access.order, access.path, access.loops)
        if sides is None:
            if operator not in (cst.Equal, cst.NotEqual):
                return "unknown"
            a, b = self.origin(node.left, *here), self.origin(node.comparisons[0].comparator, *here)
            if a[0] == a[1] == b[0] == b[1]:
                return "true" if (a[0] == b[0]) == (operator is cst.Equal) else "false"
            if a[1] < b[0] or b[1] < a[0]:
                return "false" if operator is cst.Equal else "true"
            return "unknown"
        small, large = (self.origin(side, *here) for side in sides)
        strict = operator in (cst.LessThan, cst.GreaterThan)
        if (small[1] < large[0]) if strict else (small[1] <= large[0]):
            return "true"
        if (small[0] >= large[1]) if strict else (small[0] > large[1]):
            return "false"
        if math.isfinite(small[1]) and large[1] == math.inf and self.ev.runtime(sides[1], 0) and \
                not any(not key.startswith(LOOP_PREFIX) for key in self.ev.dims(sides[1], *here)):
            # An upper bound on the host's extent: some launch makes it large enough. Not a bound
            # that varies by lane (`pos >= 1` with `pos = offs - seg_start`): a lower bound on offsets.
            return "true"
        return "unknown"


def _agree(truths: list[Truth]) -> Truth:
    return truths[0] if truths and all(t == truths[0] for t in truths) else "unknown"
