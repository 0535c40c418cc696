"""Path conditions: which constexpr facts (EVEN_K is True, ...) hold where a statement runs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import libcst as cst

from tritonlint.source.names import code_of


@dataclass(frozen=True)
class Literal:
    """`atom` (the normalised source of a condition) has truth value `value`."""

    atom: str
    value: bool

    def negated(self) -> Literal:
        return Literal(self.atom, not self.value)

    def describe(self) -> str:
        return f"{self.atom} is {self.value}"


Path = frozenset[Literal]
EMPTY: Path = frozenset()


@lru_cache(maxsize=1 << 16)
def compatible(path: Path, other: Path) -> bool:
    """True when no literal of one path contradicts the other.

    Cached: the model asks it of the same few paths over and over (paths hash once, frozensets
    keep their hash), and building each negated literal costs more than the lookup.
    """
    return not path or not other or not any(lit.negated() in other for lit in path)


class ConditionReader:
    """Turns a test expression into the literals that hold on each side of it.

    `aliases` maps constexpr locals (`HAS_TAIL: tl.constexpr = not EVEN_K`) to
    their defining expression, so a flag spelled through a local is still the flag.
    """

    def __init__(self, aliases: dict[str, cst.BaseExpression],
                 constants: dict[str, set[str]] | None = None) -> None:
        self.aliases = aliases
        # name -> the integers the kernel compares it with (`X_DIM == 1`, `X_DIM == 2`): a name
        # equal to one of them is unequal to the others.
        self.constants = constants or {}
        # A compound test (`start + BLOCK > N or D != D_PADDED`) is also an atom of its own, so
        # that the side it fixes nothing about still carries a literal; its parts' atoms, and
        # whether they are joined by `and` (else `or`):
        self.parts: dict[str, tuple[str, ...]] = {}
        self.conjunctions: set[str] = set()

    def when_true(self, test: cst.BaseExpression, depth: int = 0) -> Path:
        test = _bare(test)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.when_false(test.expression, depth)
        if _is_and(test):
            sides = self.when_true(test.left, depth) | self.when_true(test.right, depth)  # type: ignore[attr-defined]
            return sides | {self._compound(test, True)}
        if _is_or(test):  # `a or b` alone fixes neither side, only itself
            return frozenset({self._compound(test, True)})
        alias = self._alias(test, depth)
        if alias is not None:
            return self.when_true(alias, depth + 1) | {Literal(code_of(test), True)}
        return frozenset({Literal(code_of(test), True), *self._unequal(test)})

    def _unequal(self, test: cst.BaseExpression) -> list[Literal]:
        """`X == 2` holding makes `X == 1` false, for the other constants X is compared with; the
        same for strings (`BIAS_TYPE == "vector"` makes `BIAS_TYPE == "matrix"` false)."""
        if not (type(test) is cst.Comparison and len(test.comparisons) == 1 and type(test.left) is cst.Name
                and type(test.comparisons[0].operator) is cst.Equal
                and type(test.comparisons[0].comparator) in (cst.Integer, cst.SimpleString)):
            return []
        name, value = test.left.value, test.comparisons[0].comparator.value  # type: ignore[attr-defined]
        return [Literal(f"{name}=={other}", False) for other in sorted(self.constants.get(name, ())) if other != value]

    def when_false(self, test: cst.BaseExpression, depth: int = 0) -> Path:
        test = _bare(test)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self.when_true(test.expression, depth)
        if _is_or(test):
            sides = self.when_false(test.left, depth) | self.when_false(test.right, depth)  # type: ignore[attr-defined]
            return sides | {self._compound(test, False)}
        if _is_and(test):  # `not (a and b)` fixes neither side, only itself
            return frozenset({self._compound(test, False)})
        alias = self._alias(test, depth)
        if alias is not None:
            return self.when_false(alias, depth + 1) | {Literal(code_of(test), False)}
        return frozenset({Literal(code_of(test), False)})

    def sides(self, node: cst.IfExp) -> list[tuple[cst.BaseExpression, Path]]:
        """`a if c else b` as its live sides with what holds on each: [(a, c true), (b, c false)].
        A side a constant test never takes (`None if False else m`) is dead code and left out."""
        constant = _constant(node.test)
        found = []
        if constant is not False:
            found.append((node.body, self.when_true(node.test)))
        if constant is not True:
            found.append((node.orelse, self.when_false(node.test)))
        return found

    def closure(self, path: Path) -> Path:
        """`path` with the compound tests its literals decide: `EVEN_M` False makes `EVEN_M and
        EVEN_N` False (a mask set under `else:` of the pair holds when EVEN_M alone is False)."""
        if not self.parts:
            return path
        added = set()
        for atom, parts in self.parts.items():
            deciding = atom not in self.conjunctions  # `or`: one True part decides; `and`: one False
            if any(Literal(part, deciding) in path for part in parts):
                added.add(Literal(atom, deciding))
            elif all(Literal(part, not deciding) in path for part in parts):
                added.add(Literal(atom, not deciding))
        return path | added if added else path

    def _compound(self, test: cst.BaseExpression, value: bool) -> Literal:
        atom = _text(test)
        if atom not in self.parts:
            self.parts[atom] = tuple(_text(_bare(side)) for side in (test.left, test.right))  # type: ignore[attr-defined]
            if _is_and(test):
                self.conjunctions.add(atom)
        return Literal(atom, value)

    def _alias(self, test: cst.BaseExpression, depth: int) -> cst.BaseExpression | None:
        if depth < 8 and isinstance(test, cst.Name):
            return self.aliases.get(test.value)
        return None



def _text(test: cst.BaseExpression) -> str:
    """An atom's text: `code_of`, but with the spaces `and`, `or` and `not` need to stay code
    (a compound atom is printed in messages and in fixes: `None if EVEN_M and EVEN_N else m`)."""
    inner = _bare(test)
    if isinstance(inner, cst.BooleanOperation):
        text = f"{_text(inner.left)} {'and' if isinstance(inner.operator, cst.And) else 'or'} {_text(inner.right)}"
    elif isinstance(inner, cst.UnaryOperation) and isinstance(inner.operator, cst.Not):
        text = f"not {_text(inner.expression)}"
    else:
        return code_of(test)
    return f"({text})" if inner is not test else text


def _constant(test: cst.BaseExpression) -> bool | None:
    """The value of a test written as a constant (`True`, `not False`); None for anything else."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _constant(test.expression)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in ("True", "False"):
        return test.value == "True"
    return None


def _bare(test: cst.BaseExpression) -> cst.BaseExpression:
    """`(EVEN_M)` is `EVEN_M`: parentheses must not make another atom."""
    if getattr(test, "lpar", None):
        return test.with_changes(lpar=[], rpar=[])
    return test


def _is_and(test: cst.BaseExpression) -> bool:
    """`a and b`, or `a & b`, which kernels write for constexpr booleans too (`EVEN_M & EVEN_N`)."""
    return (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And)) or \
        (isinstance(test, cst.BinaryOperation) and isinstance(test.operator, cst.BitAnd))


def _is_or(test: cst.BaseExpression) -> bool:
    return (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or)) or \
        (isinstance(test, cst.BinaryOperation) and isinstance(test.operator, cst.BitOr))
