"""Host tests that keep a size a multiple of a value Python does not hold: `assert b.size(0) %
get_alignment() == 0`, where `get_alignment` comes from a compiled extension (or any call or name
the host reads no literal for).

The divisor is unknown, but the divisibility is still a stated fact. Only a call with no argument counts
as such a divisor (one value for the process); a divisor the caller picks (`n % group_size == 0`) does not. Two readings, both before the
launch, in the launching function's own body (`facts_at`: asserts, `if ...: raise`, `if`s around it):

* **A size argument** whose host text is the tested one (`K` of `K, N = b.shape`, tested as
  `b.size(0)`): the kernel's `K` is a multiple of the divisor.
* **A tensor argument's leading dimension** (`b` passed as `b_ptr`, tested as `b.size(0)` or
  `b.shape[0]`): the rows of `b_ptr` are. An equality the host asserts between leading dimensions
  (`k_indices.size(0) == b.size(0)`) carries the fact to the other tensor.

These are witness-only (`Launch.unknown_multiples`): `check` cannot drop a finding on a divisor whose
value it does not know. The witness marks a confirmation at rows that are no multiple of the tile
`latent if <divisor> is a multiple of <tile>`, which is exactly what the test says.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence

from tritonlint.semantic.host.host_guards import Body, Fact, aliases, compact_text

# (kernel parameter, divisor text) -> the host test that states it, for notes. A pointer parameter
# stands for its tensor's leading dimension; a size parameter for itself.
UnknownMultiples = dict[tuple[str, str], str]

_LEADING = re.compile(r"(?P<t>[^\W\d][\w.]*)\.(?:size\(0\)|shape\[0\])")


def _leading(text: str) -> str | None:
    """The tensor whose leading dimension `text` reads (`b` of `b.size(0)` / `b.shape[0]`)."""
    found = _LEADING.fullmatch(text)
    return found.group("t") if found else None


# A call with no argument (`get_alignment()`, `_C.alignment()`): one value for the whole process, which
# Python does not state. A divisor the caller chooses (`group_size`, `ngroups`) is no such constant:
# "latent if ngroups is a multiple of BLOCK" would excuse every shape the caller may pick.
_FIXED_UNKNOWN = re.compile(r"[^\W\d][\w.]*\(\)")


def _is_fixed_unknown(text: str, args: Mapping[str, str], constants: Mapping[str, int]) -> bool:
    """A divisor whose value is fixed but not stated: a call with no argument, not a kernel argument."""
    return _FIXED_UNKNOWN.fullmatch(text) is not None and text not in args.values() and text not in constants


def _equal_leading(body: Body, line: int) -> list[tuple[str, str, str]]:
    """(tensor, tensor, where) for the leading dimensions an `assert` before `line` says are equal."""
    pairs: list[tuple[str, str, str]] = []
    for node in body.checks:
        if not isinstance(node, ast.Assert) or node.lineno >= line:
            continue
        test = node.test
        conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        for conjunct in conjuncts:
            if isinstance(conjunct, ast.Compare) and len(conjunct.ops) == 1 and isinstance(conjunct.ops[0], ast.Eq):
                left, right = _leading(compact_text(conjunct.left)), _leading(compact_text(conjunct.comparators[0]))
                if left and right and left != right:
                    pairs.append((left, right, f"`{ast.unparse(conjunct)}` at line {node.lineno}"))
    return pairs


def unknown_multiples(args: Mapping[str, str], facts: Sequence[Fact], body: Body, line: int,
                      constants: Mapping[str, int]) -> UnknownMultiples:
    """(parameter, divisor) for each kernel argument the host facts keep a multiple of a divisor
    whose value it does not state (see the module's docstring); {} when none."""
    wanted = [(left, right, where) for left, right, where in facts if _is_fixed_unknown(right, args, constants)]
    if not wanted:
        return {}
    # The tensors whose leading dimension each fact keeps, equalities followed.
    rows: dict[str, dict[str, str]] = {}  # tensor -> divisor -> where
    for left, right, where in wanted:
        tensor = _leading(left)
        if tensor is not None:
            rows.setdefault(tensor, {}).setdefault(right, where)
    for _ in range(2):  # a chain of two equalities at most (`c == b`, `b == a`)
        for a, b, equal in _equal_leading(body, line):
            for x, y in ((a, b), (b, a)):
                for divisor, where in list(rows.get(y, {}).items()):
                    rows.setdefault(x, {}).setdefault(divisor, f"{where}, with {equal}")
    found: UnknownMultiples = {}
    for param, text in args.items():
        for divisor, where in rows.get(text, {}).items():  # a tensor passed by name: its rows
            found.setdefault((param, divisor), where)
        if not re.fullmatch(r"[^\W\d]\w*", text):
            continue
        names = aliases(text, body, line)
        for left, right, where in wanted:
            if left in names:
                found.setdefault((param, right), where)
    return found
