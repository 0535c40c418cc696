"""The records the analysis stages hand forward: loops, definitions, accesses, walks, flags, facts.

Each stage reads the records of the stages before it and adds its own; none of them changes a
record once made. A dimension is a string key: an offset's `arange(0,BLOCK_K)` or the variable that
names a tile (`offs_k`), a block pointer's `bp[1]`, or a loop's `loop:N` (the program id is the
loop `loop:program_id`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal as OneOf

import libcst as cst

from tritonlint.semantic.paths import ConditionReader, Path
from tritonlint.source.names import ImportMap

# The small closed sets of words the records use, typed so that a misspelt one is a type error.
AccessKind = OneOf["load", "store"]
DefKind = OneOf["param", "assign", "advance", "for"]
Tiles = OneOf["partial", "full", "unknown"]
FlagSource = OneOf["usage", "heuristics", "name", "config"]
ReductionKind = OneOf["sum", "max", "min", "argmax", "argmin", "dot", "dot_scaled"]

LOOP_PREFIX = "loop:"
# The program id is a tile index like a loop's: offsets built from it are tiled. Spelled as a
# loop key so everything that separates offsets from loops treats it as a loop.
PROGRAM = LOOP_PREFIX + "program_id"


@dataclass(eq=False)
class Loop:
    node: cst.For | cst.While = field(repr=False)
    key: str
    targets: frozenset[str]
    tiles: Tiles  # "partial" (the last tile can be partial), "full" (`K // BLOCK_K` bound) or "unknown"
    text: str  # the range expression, for messages
    why: str = ""  # why its tiles are "full" or "partial", for messages and --explain
    # The `range(...)` the loop walks: a `for`'s iterable, or for a `while` tile loop (`k = a`,
    # `while k < b:`, `k += s`) the `range(a, b, s)` it is; None for any other `while`.
    iterable: cst.BaseExpression | None = field(default=None, repr=False)

    @property
    def header(self) -> str:
        """The loop as messages name it: `for ... in range(0,K,BLOCK_K)`, or a `while` tile loop as
        `while ... (range(0,K,BLOCK_K))`."""
        if isinstance(self.node, cst.While):
            return f"while ... ({self.text})" if self.iterable is not None else f"while {self.text}"
        return f"for ... in {self.text}"


@dataclass(eq=False)
class Def:
    """One assignment to a local name (a parameter counts as the first)."""

    name: str
    value: cst.BaseExpression | None = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]
    kind: DefKind  # "param", "assign", "advance" (x += ... or x = f(x, ...) in a loop), "for"
    constexpr: bool = False
    # `a, b = f(...)`: the place of the name in the unpacked tuple (`value` is then the whole call).
    index: int | None = None


@dataclass(eq=False)
class Access:
    """A `tl.load` or `tl.store` call, or a read-modify-write atomic (`tl.atomic_add`, ...), which
    writes the lanes it reaches as a store does and is judged as one (kind "store")."""

    kind: AccessKind  # "load" or "store"
    call: cst.Call = field(repr=False)
    pointer: cst.BaseExpression = field(repr=False)
    mask: cst.BaseExpression | None = field(repr=False)
    boundary_check: cst.BaseExpression | None = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]
    other: cst.BaseExpression | None = field(default=None, repr=False)  # a load's `other=` (None: absent or `None`)
    # The tl member called, where it is not `kind` itself: "atomic_add", "atomic_cas", ...
    member: str | None = None

    @property
    def call_name(self) -> str:
        """The call as messages name it: `tl.load`, `tl.store`, `tl.atomic_add`, ..."""
        return f"tl.{self.member or self.kind}"

    @property
    def maskable(self) -> bool:
        """Whether the call takes a `mask=`: every access but `tl.atomic_cas`."""
        return self.member != "atomic_cas"


@dataclass(eq=False)
class HelperCall:
    """A call `helper(...)` in the kernel; the engine matches it to the helper's model."""

    name: str
    call: cst.Call = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]


@dataclass(eq=False)
class Reduction:
    """A call that folds lanes together (`tl.sum`, `tl.max`, `tl.dot`, ...): where a masked load's
    switched-off lanes stop being its own business (rule TL105)."""

    kind: ReductionKind  # the tl member: "sum", "max", "min", "argmax", "argmin", "dot", "dot_scaled"
    call: cst.Call = field(repr=False)
    order: int
    path: Path
    loops: tuple[Loop, ...]


@dataclass(frozen=True)
class Walk:
    """A tiled dimension an access's pointer walks: an offset variable, the loop advancing it, or both."""

    dim: str | None
    loop: Loop | None

    @property
    def keys(self) -> frozenset[str]:
        keys = {self.dim} if self.dim else set()
        if self.loop is not None:
            keys.add(self.loop.key)
        return frozenset(keys)


@dataclass(frozen=True)
class Flag:
    """`atom` being `even` guarantees full tiles along `dims`."""

    atom: str
    even: bool
    dims: frozenset[str]
    source: FlagSource  # "usage", "heuristics", "name", or "config" (declared in the configuration)


@dataclass(frozen=True)
class Fact:
    """Something the kernel's own construction guarantees about one walk of an access: its tiles
    are all full there, or the access stays inside the tensor. Made by one provider in `facts/`."""

    idiom: str  # the provider's name: "full-tile-loop", "peeled-tail", ...
    reason: str  # said to the user: "the loop `range(K // BLOCK_K)` visits full tiles only"
    node: cst.CSTNode | None = field(default=None, compare=False, repr=False)  # where it is written


@dataclass(frozen=True)
class KernelIR:
    """What the binder read in one walk over a jit function; complete before any stage asks."""

    module: cst.Module
    function: cst.FunctionDef
    imports: ImportMap
    qualify_tl: Callable[[cst.BaseExpression], str | None]
    defs: dict[str, list[Def]]
    accesses: list[Access]
    calls: list[HelperCall]
    loops: list[Loop]
    # (K, BLOCK_K) from a `tl.static_assert(K % BLOCK_K == 0)` that holds everywhere (top level)
    divisible: set[tuple[str, str]]
    reader: ConditionReader
    block_sizes: set[str]  # names spanned by `tl.arange(0, BLOCK)` or a block pointer's `block_shape`
    extra_flags: frozenset[str]  # names the configuration declares to be evenness flags
    reductions: list[Reduction] = field(default_factory=list)
    # The decorators applied to it, outermost first: its own (`@triton.heuristics(...)`), then those
    # applied as calls where it is jitted by assignment (`f = triton.heuristics(...)(triton.jit(f))`).
    decorators: tuple[cst.BaseExpression, ...] = ()


def share_a_dimension(theirs: frozenset[str], keys: frozenset[str]) -> bool:
    """Two sets of dimension keys have a tile dimension in common, or both walk a loop alone
    (`ptrs += BLOCK_K` with no offsets): a common loop alone is not a common dimension."""
    common = theirs & keys
    if any(not key.startswith(LOOP_PREFIX) for key in common):
        return True
    return bool(common) and all(key.startswith(LOOP_PREFIX) for key in keys)


def offset_count(keys: frozenset[str]) -> int:
    """How many tile offsets (not loops) a set of dimension keys holds."""
    return sum(not key.startswith(LOOP_PREFIX) for key in keys)
