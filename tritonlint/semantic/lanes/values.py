"""The value algebra of TL105: sample lanes, what a reduction, a broadcast or an operation makes
of them, and the identities each reduction needs. Pure: no kernel is read here, except the reduced
operands and axis of a reduction call."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.ir import Reduction
from tritonlint.source.names import code_of
from tritonlint.source.syntax import keyword

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext

# Sample lanes. Untracked data is taken to be positive (a scale, a running max of real scores):
# `-inf * scale` stays -inf, as it does in every kernel that scales masked scores. The tracked
# load's own valid lanes take both signs (`tl.max(tl.abs(x))` is nonnegative, `tl.max(x)` is not).
DATA = (0.5, 3.0, 0.75, 2.0)
# A finite stand-in for -inf in a max (`other=-1e30`, `-FLT_MAX`, `-10000` before a softmax).
SENTINEL = 1e4
SIGNED = (-3.0, -0.5, 0.5, 3.0)
WIDTH = len(DATA)
# The identity each reduction needs in the lanes it folds.
IDENTITY = {"sum": 0.0, "dot": 0.0, "dot_scaled": 0.0, "max": -math.inf, "argmax": -math.inf,
             "min": math.inf, "argmin": math.inf}
IDENTITY_TEXT = {0.0: "0.0", -math.inf: 'float("-inf")', math.inf: 'float("inf")'}


@dataclass(frozen=True)
class Lanes:
    """The switched-off lanes of one tracked load, as they reach an expression."""

    samples: tuple[float, ...]  # what the lanes add to the result, on a few sample lanes
    exact: bool  # computed from constants only (not from data the kernel loaded or was given)
    right: int  # the axis they lie along, counted from the last
    ndim: int | None  # how many axes the value has, when known
    steps: tuple[cst.Call, ...] = ()  # calls that changed the value on the way (`tl.exp`)
    # How much of a legitimate tile value the lanes also hold: an accumulator carried around the
    # loop (`acc + x`), another tile loaded along the same axis (`x * w`). A lane holding
    # `1 * acc + 0` adds nothing of its own; `samples` is the part that is the lanes' own.
    legit: tuple[float, ...] = (0.0,) * 4
    # Whether the tracked load itself is in the value, not only other loads masked on the same
    # lanes (their padding sits in the same places: `maximum + tl.log(accumulate)`, both masked by
    # `offs < n`, is `0 + log(0)` there). A reduction is judged for the load only if it is.
    mine: bool = True


UNKNOWN = "unknown"  # the reading stopped: nothing is said
CARRIED = "carried"  # a name whose value comes around the loop from itself: legitimate tile data
NO_LEGIT = (0.0,) * 4
ALL_LEGIT = (1.0,) * 4





# ---------------------------------------------------------------------- reductions


def reduced_operands(reduction: Reduction, kernel: KernelContext) -> list[tuple[str, cst.BaseExpression, int | None]]:
    """(what it is, the operand, the axis it is reduced along counted from the last; None: read from
    `axis=`) for each operand a reduction folds."""
    found: list[tuple[str, cst.BaseExpression, int | None]]
    call = reduction.call
    method = kernel.qualify_tl(call.func) is None and type(call.func) is cst.Attribute
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if method:
        receiver: cst.BaseExpression = call.func.value  # type: ignore[attr-defined]
        positional = [receiver, *positional]
    if reduction.kind == "dot":
        found = [("the first operand", positional[0], 0)] if positional else []
        second = keyword(call, "other", 1) if not method else (positional[1] if len(positional) > 1 else None)
        return found + ([("the second operand", second, 1)] if second is not None else [])
    if reduction.kind == "dot_scaled":
        names = [("the first operand", "lhs", 0, 0), ("the scale of the first operand", "lhs_scale", 1, 0),
                 ("the second operand", "rhs", 3, 1), ("the scale of the second operand", "rhs_scale", 4, 0)]
        found = []
        for words, name, position, right in names:
            node = keyword(call, name, position)
            if node is not None and not (type(node) is cst.Name and node.value == "None"):
                found.append((words, node, right))
        return found
    operand = keyword(call, "input", 0) if not method else positional[0]
    return [("", operand, None)] if operand is not None else []


def axis_argument(reduction: Reduction, kernel: KernelContext) -> cst.BaseExpression | None:
    call = reduction.call
    method = kernel.qualify_tl(call.func) is None and type(call.func) is cst.Attribute
    return keyword(call, "axis", 0 if method else 1)


def reduced_axis(reduction: Reduction, lanes: Lanes, kernel: KernelContext) -> int | None:
    """The axis a `tl.sum`-like reduction folds, counted from the last; -1 for all of them; None when
    it cannot be told (an axis counted from the front of a value of unknown rank)."""
    axis = axis_argument(reduction, kernel)
    if axis is None or (type(axis) is cst.Name and axis.value == "None"):
        return -1
    if type(axis) is cst.UnaryOperation and type(axis.operator) is cst.Minus and type(axis.expression) is cst.Integer:
        return int(axis.expression.value) - 1
    if type(axis) is not cst.Integer:
        return None
    if lanes.ndim is None:
        return None
    return lanes.ndim - 1 - int(axis.value)


def after_reduction(reduction: Reduction, lanes: Lanes, right: int) -> Lanes:
    """The lanes after a reduction along another axis than theirs: the same values, one axis fewer
    (a dot keeps the first operand's rows and the second's columns)."""
    if reduction.kind in ("dot", "dot_scaled"):
        return replace(lanes, ndim=2, steps=lanes.steps)
    kept = keyword(reduction.call, "keep_dims", 99)
    if kept is not None and code_of(kept) == "True":
        return lanes
    ndim = None if lanes.ndim is None else lanes.ndim - 1
    return replace(lanes, right=lanes.right - (1 if right < lanes.right else 0), ndim=ndim)


def broadcast_lanes(node: cst.Subscript, lanes: Lanes) -> Lanes | str:
    """`x[:, None]`: new axes around the old ones; the tracked axis keeps its place from the right
    unless a new axis is added after it. An index (`x[0]`) is not read."""
    parts = []
    for element in node.slice:
        if type(element.slice) is cst.Index and type(element.slice.value) is cst.Name and \
                element.slice.value.value == "None":
            parts.append("None")
        elif type(element.slice) is cst.Slice and element.slice.lower is None and element.slice.upper is None:
            parts.append(":")
        else:
            return UNKNOWN
    kept = [i for i, part in enumerate(parts) if part == ":"]
    if lanes.ndim is not None and len(kept) != lanes.ndim:
        return UNKNOWN
    left = (len(kept) - 1 - lanes.right) if lanes.ndim is not None else None
    if left is None or not 0 <= left < len(kept):
        return UNKNOWN
    return replace(lanes, right=len(parts) - 1 - kept[left], ndim=len(parts))


def join(found: list[Lanes | str | None]) -> Lanes | str | None:
    """Several definitions reach a use: the lanes agree, or nothing is said."""
    tracked = [each for each in found if is_tracked(each)]
    if not tracked:
        return None
    if any(each == UNKNOWN for each in tracked):
        return UNKNOWN
    lanes = [each for each in tracked if isinstance(each, Lanes)]
    # A path where only other loads' padding arrives says nothing of this load's: the reduction is
    # judged for it on the paths it reaches.
    mine = any(each.mine for each in lanes)
    lanes = [each for each in lanes if each.mine] or lanes
    first = lanes[0]
    if all(each.samples == first.samples and each.legit == first.legit and each.right == first.right
           for each in lanes):
        return replace(first, mine=mine)
    if len(lanes) <= WIDTH and all(each.right == first.right and each.exact for each in lanes):
        # Constant lanes that differ by path (`if scoring_func == 1:` turns -inf into 0): each
        # sample lane follows one path, so a reduction sees every path's value, and the lanes are
        # the identity only if they are on every path.
        pick = [lanes[i % len(lanes)] for i in range(WIDTH)]
        return Lanes(tuple(each.samples[i] for i, each in enumerate(pick)), True, first.right, first.ndim,
                     tuple(step for each in lanes for step in each.steps),
                     tuple(each.legit[i] for i, each in enumerate(pick)), mine)
    return UNKNOWN


def is_tracked(found: Lanes | str | None) -> bool:
    """The tracked lanes reach this value (or the reading stopped on the way to it)."""
    return found is not None and found != CARRIED


def lanewise(operation: str, first: tuple[tuple[float, ...], tuple[float, ...]],
              second: tuple[tuple[float, ...], tuple[float, ...]]) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """`(a1*L + b1) op (a2*L + b2)` as (legit, own), lane by lane; None where it is no such sum
    (legitimate data times legitimate data, divided by it, or compared with the lanes' own part)."""
    (a1, b1), (a2, b2) = first, second
    if operation in ("add", "sub"):
        sign = 1.0 if operation == "add" else -1.0
        return (tuple(safe(lambda x, y: x + sign * y, x, y) for x, y in zip(a1, a2)),
                tuple(safe(lambda x, y: x + sign * y, x, y) for x, y in zip(b1, b2)))
    if operation == "mul":
        if any(a1) and any(a2):
            return None
        return (tuple(safe(legit_product, *v) for v in zip(a1, b1, a2, b2)),
                tuple(safe(own_product, *v) for v in zip(a1, b1, a2, b2)))
    if operation == "div":
        if any(a2):
            return None
        return (tuple(safe(lambda x, y: 0.0 if x == 0 else x / y, x, y) for x, y in zip(a1, b2)),
                tuple(safe(lambda x, y: x / y, x, y) for x, y in zip(b1, b2)))
    pick = max if operation == "maximum" else min
    neutral = -math.inf if operation == "maximum" else math.inf
    if not any(a1) and not any(a2):
        return NO_LEGIT, tuple(pick(x, y) for x, y in zip(b1, b2))
    # Legitimate data against the lanes' own part: the data wins only over the neutral element.
    own, legit = ((a1, b1), (a2, b2)) if not any(a1) else ((a2, b2), (a1, b1))
    if all(value == neutral for value in own[1]):
        return legit
    return NO_LEGIT, own[1]


def is_integer(node: cst.BaseExpression | None) -> bool:
    """`0`, `-1`: an integer literal (not `0.0`)."""
    if type(node) is cst.UnaryOperation:
        node = node.expression
    return type(node) is cst.Integer


def call_name(node: cst.CSTNode, kernel: KernelContext) -> str:
    if type(node) is cst.Call:
        member = kernel.qualify_tl(node.func)
        if member is not None:
            return f"tl.{member}"
        return code_of(node.func)
    return code_of(node)


def value_words(samples: tuple[float, ...], exact: bool = False) -> str:
    if any(math.isnan(value) for value in samples):
        return "NaN"
    if exact and len(set(samples)) > 1:  # constants that differ by path
        return " or ".join(value_words((value,)) for value in dict.fromkeys(samples)) + " (by path)"
    if len(set(samples)) == 1:
        value = samples[0]
        return {math.inf: "+inf", -math.inf: "-inf"}.get(value, f"{value:g}")
    return "nonzero data"


# ---------------------------------------------------------------------- arithmetic on samples


def legit_product(a1: float, b1: float, a2: float, b2: float) -> float:
    """The legitimate part of `(a1*L + b1) * (a2*L + b2)` (one of a1, a2 is 0): a lane's own
    finite value scales the other side's legitimate data; an infinite one is no longer data."""
    return sum(scaled(a, b) for a, b in ((a1, b2), (a2, b1)) if not math.isinf(b))


def own_product(a1: float, b1: float, a2: float, b2: float) -> float:
    """The lanes' own part of the same product: `-inf` times legitimate data (taken positive, as
    all data here) stays `-inf`, it is not `-inf * 0`."""
    for own, other_legit in ((b1, a2), (b2, a1)):
        if math.isinf(own) and other_legit:
            return own * (1.0 if other_legit > 0 else -1.0)
    return b1 * b2


def scaled(coefficient: float, value: float) -> float:
    """A legitimate part's coefficient times a value: no legitimate part stays none (0 * inf is not NaN here)."""
    return 0.0 if coefficient == 0 else coefficient * value


def safe(operation: Callable[..., float], *values: float) -> float:
    a = values[0]
    try:
        return operation(*values)
    except ZeroDivisionError:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    except OverflowError:
        return math.inf


def safe_unary(operation: Callable[[float], float], value: float) -> float:
    try:
        return operation(value)
    except OverflowError:
        return math.inf
    except ZeroDivisionError:
        return math.inf
    except ValueError:
        return -math.inf if value == 0 else math.nan


def safe_exp(value: float) -> float:
    return 0.0 if value == -math.inf else math.exp(value)


def safe_sigmoid(value: float) -> float:
    return 1.0 / (1.0 + safe_exp(-value)) if value != -math.inf else 0.0


OPERATIONS: dict[type, str] = {cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "div"}
UNARY: dict[str, Callable[[float], float]] = {
    "exp": safe_exp, "exp2": lambda v: 0.0 if v == -math.inf else 2.0 ** v, "log": math.log, "log2": math.log2,
    "sqrt": math.sqrt, "sqrt_rn": math.sqrt, "rsqrt": lambda v: 1 / math.sqrt(v), "abs": abs, "tanh": math.tanh,
    "sigmoid": safe_sigmoid, "erf": math.erf, "log1p": math.log1p, "expm1": math.expm1, "fabs": abs,
}
NAMED_INFINITIES = {
    'float("inf")': math.inf, 'float("-inf")': -math.inf, "math.inf": math.inf, "np.inf": math.inf,
    "numpy.inf": math.inf, "torch.inf": math.inf, 'float("+inf")': math.inf, 'float("nan")': math.nan,
}
