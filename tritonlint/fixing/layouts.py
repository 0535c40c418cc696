"""Lane maps: where each loaded lane of a tile lands after a jit helper reshapes and permutes it.

A swizzled tensor is loaded as a flat tile and put back in order by a helper made of reshapes and
transposes (`unswizzle_scale(tl.load(P))`). A mask on the loaded tile must then compare the index a
lane has *after* the helper, not its position in memory: for the Hopper MXFP4 scale swizzle, lane j
of a K tile holds scale column `2 * (j // 64) + (j // 2) % 2`, not `j // 32`.

The helper is run symbolically. A tile axis is a list of digits, most significant first; a digit is
`(lane // stride) % size` of one axis of the loaded tile. A reshape splits and merges digits, a
transpose reorders axes; sizes are monomials over the kernel's constexpr names (`PACKED_MX_BLOCK /
64`), so one answer holds for every block size. Anything else in the helper (arithmetic on the tile,
a branch that is not decided by constant arguments, a reshape whose sizes cannot be matched) gives
no map, and the fixer keeps its plain rescaling.

The helper may live in another module of the package (`from pkg.layout import unswizzle`); it is
then read (never imported) from the nearest folder above the kernel's file that holds that module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import libcst as cst

from tritonlint.source.names import code_of, dotted


@dataclass(frozen=True)
class Size:
    """`coefficient * prod(symbol ** power)`: a tile extent over constexpr names."""

    coefficient: Fraction
    powers: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def of(value: int | str) -> Size:
        return Size(Fraction(value)) if isinstance(value, int) else Size(Fraction(1), ((value, 1),))

    def __mul__(self, other: Size) -> Size:
        powers = dict(self.powers)
        for symbol, power in other.powers:
            powers[symbol] = powers.get(symbol, 0) + power
        return Size(self.coefficient * other.coefficient, tuple(sorted((s, p) for s, p in powers.items() if p)))

    def __truediv__(self, other: Size) -> Size:
        return self * Size(1 / other.coefficient, tuple((s, -p) for s, p in other.powers))

    def whole(self) -> bool:
        """A positive whole multiple: an integer coefficient and no symbol in a denominator."""
        return self.coefficient.denominator == 1 and self.coefficient > 0 and all(p > 0 for _, p in self.powers)

    def constant(self) -> int | None:
        return int(self.coefficient) if not self.powers and self.coefficient.denominator == 1 else None

    def text(self) -> str | None:
        """Source text for the kernel (`PACKED_MX_BLOCK // 32`), or None if it needs a helper's name."""
        if any(symbol.startswith("$") or power < 0 for symbol, power in self.powers):
            return None
        factors = [symbol if symbol.isidentifier() else f"({symbol})"
                   for symbol, power in self.powers for _ in range(power)]
        numerator = self.coefficient.numerator
        if numerator != 1 or not factors:
            factors.insert(0, str(numerator))
        product = " * ".join(factors)
        if self.coefficient.denominator == 1:
            return product
        return f"{product if len(factors) == 1 else f'({product})'} // {self.coefficient.denominator}"


ONE = Size.of(1)


@dataclass(frozen=True)
class Digit:
    """`(lane // stride) % size` of axis `axis` of the loaded tile."""

    axis: int
    stride: Size
    size: Size


Tile = tuple[tuple[Digit, ...], ...]  # axes, each a tuple of digits, most significant first


@dataclass(frozen=True)
class LaneMap:
    """Lane `offs` of the loaded tile's axis is element `index(offs)` of an axis of `size` after the helper."""

    index: str  # with `{}` where the offset goes
    size: str
    helper: str
    source: Path | None  # the helper's module, when it is not the kernel's own file

    def apply(self, offsets: str) -> str:
        """The index for an offsets expression (an atom: a name, a call, a parenthesised sum)."""
        return self.index.replace("{}", offsets)


class _NoMap(Exception):
    """The helper does something the lane map cannot follow."""


def lane_map(call: cst.Call, argument: int, shape: Sequence[str | None], axis: int,
             function: cst.FunctionDef, source: Path | None = None,
             constants: dict[str, int] | None = None) -> LaneMap | None:
    """Where lanes of axis `axis` of the tile passed as argument `argument` of `call` end up.

    `shape` is the tile's extent per axis as kernel source text (None: unknown); `constants` the
    integer constants of the helper's module (`SWIZZLE_SIZE_OUTER = 128`), which its defaults may
    name. None when the helper cannot be followed, or when the lanes stay in order (the plain
    offsets already are the index).
    """
    sizes = [Size.of(extent) if extent else Size.of(f"$axis{i}") for i, extent in enumerate(shape)]
    tile: Tile = tuple((Digit(i, ONE, size),) for i, size in enumerate(sizes))
    try:
        env = _bind(call, function, constants or {})
        parameter = function.params.params[argument].name.value
        env[parameter] = tile
        result = _run(function, env, parameter)
    except (_NoMap, IndexError, ZeroDivisionError):
        return None
    full = sizes[axis]
    candidates = [digits for digits in result
                  if digits and all(d.axis == axis for d in digits)
                  and any(d.stride * d.size == full for d in digits)]
    if len(candidates) != 1:
        return None  # the top of the walked axis mixed into another axis: no index of its own
    digits = candidates[0]
    if len(digits) == 1 and digits[0].stride == ONE:
        return None  # lanes in order: nothing to remap
    terms: list[str] = []
    multiplier = ONE
    for digit in reversed(digits):
        value = "{}"
        stride = digit.stride.constant()
        size = digit.size.constant()
        if stride is None:
            return None
        if stride != 1:
            value = f"({value} // {stride})"
        if digit.stride * digit.size != full:  # the top digit keeps counting past one tile
            if size is None:
                return None
            value = f"{value} % {size}"
        scale = multiplier.constant()
        if scale is None:
            return None
        terms.append(value if scale == 1 else f"{scale} * ({value})" if "%" in value else f"{scale} * {value}")
        multiplier = multiplier * digit.size
    size_text = multiplier.text()
    if size_text is None:
        return None
    index = "(" + " + ".join(reversed(terms)) + ")"
    return LaneMap(index, size_text, function.name.value, source)


# ---------------------------------------------------------------------- running the helper

_Value = Tile | int | Size | str | None


def _bind(call: cst.Call, function: cst.FunctionDef, constants: dict[str, int]) -> dict[str, _Value]:
    """The helper's parameters from the call: literal integers as such, names as symbols."""
    params = list(function.params.params)
    env: dict[str, _Value] = {}
    for param in params:
        if isinstance(param.default, cst.Name) and param.default.value in constants:
            env[param.name.value] = constants[param.default.value]
        elif param.default is not None:
            env[param.name.value] = _literal(param.default)
    for position, arg in enumerate(call.args):
        if arg.star:
            raise _NoMap
        if arg.keyword is not None:
            env[arg.keyword.value] = _literal(arg.value)
        elif position < len(params):
            env[params[position].name.value] = _literal(arg.value)
    return env


def _literal(node: cst.BaseExpression) -> _Value:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return int(node.value == "True")
    if isinstance(node, cst.Name) and node.value == "None":
        return None
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call)):
        return Size.of(code_of(node))  # a kernel expression: a symbol with its text
    raise _NoMap


def _run(function: cst.FunctionDef, env: dict[str, _Value], tile_name: str) -> Tile:
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            raise _NoMap  # a branch or a loop on the tile
        for small in statement.body:
            if isinstance(small, cst.Expr):
                if isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue  # docstring
                if isinstance(small.value, cst.Call) and (dotted(small.value.func) or "").endswith("static_assert"):
                    continue
                raise _NoMap
            if isinstance(small, cst.Return):
                if small.value is None:
                    raise _NoMap
                result = _eval(small.value, env)
                if not isinstance(result, tuple):
                    raise _NoMap
                return result
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if small.value is None or not all(isinstance(t, cst.Name) for t in targets):
                    raise _NoMap
                value = _eval(small.value, env)
                for target in targets:
                    env[target.value] = value  # type: ignore[attr-defined]
                continue
            raise _NoMap
    raise _NoMap


def _eval(node: cst.BaseExpression, env: dict[str, _Value]) -> _Value:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.Name):
        if node.value not in env:
            raise _NoMap
        return env[node.value]
    if isinstance(node, cst.IfExp):
        test = _eval(node.test, env)
        if not isinstance(test, int):
            raise _NoMap  # not decided by the constant arguments
        return _eval(node.body if test else node.orelse, env)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        left, right = _eval(node.left, env), _eval(node.comparisons[0].comparator, env)
        operator = node.comparisons[0].operator
        if isinstance(left, (int, str)) and isinstance(right, (int, str)):
            if isinstance(operator, cst.Equal):
                return int(left == right)
            if isinstance(operator, cst.NotEqual):
                return int(left != right)
        raise _NoMap
    if isinstance(node, cst.BinaryOperation):
        left, right = _size(_eval(node.left, env)), _size(_eval(node.right, env))
        if isinstance(node.operator, cst.Multiply):
            return left * right
        if isinstance(node.operator, cst.FloorDivide):
            return left / right  # exact: the reshape that uses it would not compile otherwise
        raise _NoMap
    if isinstance(node, cst.Subscript):  # x.shape[i]
        if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" and len(node.slice) == 1:
            tile = _eval(node.value.value, env)
            index = node.slice[0].slice
            if isinstance(tile, tuple) and isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                return _extent(tile[int(index.value.value)])
        raise _NoMap
    if isinstance(node, cst.Call):
        return _call(node, env)
    raise _NoMap


def _size(value: _Value) -> Size:
    if isinstance(value, int):
        return Size.of(value)
    if isinstance(value, Size):
        return value
    raise _NoMap


def _call(node: cst.Call, env: dict[str, _Value]) -> Tile:
    func = node.func
    args = [arg.value for arg in node.args if arg.keyword is None]
    if isinstance(func, cst.Attribute) and isinstance(_eval_or_none(func.value, env), tuple):
        tile = _eval(func.value, env)  # x.reshape(...), x.trans(...), x.permute(...)
        method, rest = func.attr.value, args
    elif isinstance(func, cst.Attribute) and dotted(func.value) in ("tl", "triton.language") and args:
        tile = _eval(args[0], env)  # tl.reshape(x, ...), tl.trans(x, ...), tl.permute(x, ...)
        method, rest = func.attr.value, args[1:]
    else:
        raise _NoMap
    if not isinstance(tile, tuple):
        raise _NoMap
    if len(rest) == 1 and isinstance(rest[0], (cst.Tuple, cst.List)):
        rest = [element.value for element in rest[0].elements]
    if method == "reshape":
        return _reshape(tile, [_size(_eval(arg, env)) for arg in rest])
    if method in ("trans", "permute"):
        order = [_eval(arg, env) for arg in rest] or list(reversed(range(len(tile))))
        if any(type(axis) is not int for axis in order):
            raise _NoMap  # an axis not decided by the constant arguments (a kernel name, None)
        if sorted(order) != list(range(len(tile))):  # type: ignore[type-var]
            raise _NoMap
        return tuple(tile[i] for i in order)  # type: ignore[index]
    raise _NoMap


def _eval_or_none(node: cst.BaseExpression, env: dict[str, _Value]) -> _Value:
    try:
        return _eval(node, env)
    except _NoMap:
        return None


def _extent(digits: tuple[Digit, ...]) -> Size:
    size = ONE
    for digit in digits:
        size = size * digit.size
    return size


def _reshape(tile: Tile, sizes: list[Size]) -> Tile:
    """Row-major reshape: the flat run of digits regrouped (split where needed) into `sizes`."""
    flat = [digit for axis in tile for digit in axis]
    axes: list[tuple[Digit, ...]] = []
    for wanted in sizes:
        taken: list[Digit] = []
        remaining = wanted
        while remaining != ONE:
            if not flat:
                raise _NoMap
            digit = flat.pop(0)
            ratio = digit.size / remaining
            if ratio == ONE:
                taken.append(digit)
                remaining = ONE
            elif ratio.whole():  # the digit is larger: its top part fills this axis
                taken.append(Digit(digit.axis, digit.stride * ratio, remaining))
                flat.insert(0, Digit(digit.axis, digit.stride, ratio))
                remaining = ONE
            elif (remaining / digit.size).whole():  # the digit is smaller: take it whole
                taken.append(digit)
                remaining = remaining / digit.size
            else:
                raise _NoMap
        axes.append(tuple(taken))
    if flat:
        raise _NoMap
    return tuple(axes)
