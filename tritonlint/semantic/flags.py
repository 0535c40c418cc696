"""Evenness flags: conditions that promise full tiles, learnt from how the kernel uses them.

A condition is a flag for a dimension when one side of it drops a mask on that dimension that the
other side keeps (`if EVEN_K: load(p) else: load(p, mask=offs_k < K)`, `mask=None if EVEN_K else
...`), when a `@triton.heuristics` lambda defines it as `K % BLOCK_K == 0`, when the configuration
names it, or, as a last hint for suppression only, when its name says so (`EVEN_K`, `DIVISIBLE_N`).
This is the one recogniser: `verify` asks it too, to know which specializations have full tiles.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property

import libcst as cst

from tritonlint.semantic.binder import DIVISIBLE
from tritonlint.semantic.dataflow import Dataflow
from tritonlint.semantic.evaluator import PASS_FIRST, Evaluator
from tritonlint.semantic.ir import LOOP_PREFIX, Access, Flag, KernelIR
from tritonlint.semantic.paths import Literal, Path
from tritonlint.source.names import code_of
from tritonlint.source.syntax import string_keys

EVEN_NAME = re.compile(r"^(IS_)?(EVEN|DIVISIBLE|ALIGNED|NO_MASK|NO_TAIL)(_[A-Z0-9_]+)?$|_(DIVISIBLE|EVEN)$")
_VARIANT_TEST = re.compile(r"""==\s*['"]|['"]\s*==|!=\s*['"]|\bis(not)?None\b|isnotNone|isNone|[=!]=-?\d+$|^-?\d+[=!]=""")
# "The row fits in one block" switches: their other side loops over full blocks first.
_ONE_BLOCK = re.compile(r"ONE_TILE|ONE_BLOCK|SINGLE_(TILE|BLOCK)|NEED_LOOP|USE_LOOP|NO_LOOP|MULTI_(TILE|BLOCK)")
_TILE_FITS = re.compile(r"\(?\w+[+-]\w+\)?(<|<=|>|>=)\w+|\w+(<|<=|>|>=)\(?\w+[+-]\w+\)?")


class FlagRecognizer:
    """The evenness flags of one kernel, and which side of each a path lies on."""

    def __init__(self, ir: KernelIR, flow: Dataflow, ev: Evaluator,
                 helper_views: Callable[[], list[Access]] | None = None) -> None:
        self.ir = ir
        self.flow = flow
        self.ev = ev
        # The accesses of the jit helpers the kernel calls, as each call sees them: an `if EVEN_K:`
        # choosing between `load_tile(p)` and `load_tile_masked(p, m)` is a flag like one choosing
        # between the loads themselves. Asked once, when the flags are first read.
        self._helper_views = helper_views
        self._flag_sides: dict[tuple[str, bool], Path] = {}

    @cached_property
    def accesses(self) -> list[Access]:
        """The kernel's accesses, then its jit helpers' as each call sees them (the caller's order,
        path and loops): the siblings an access has, wherever they are written."""
        return list(self.ir.accesses) + (self._helper_views() if self._helper_views is not None else [])

    @cached_property
    def flags(self) -> list[Flag]:
        return self._usage_flags() + self._heuristic_flags() + self._name_flags()

    def _usage_flags(self) -> list[Flag]:
        """Conditions that switch a mask off, or pick an unmasked twin of a masked access."""
        groups: dict[str, list[tuple[Path, frozenset[str]]]] = {}
        users: dict[str, list[Access]] = {}  # the accesses each group's members speak for
        mask_names: set[str] = set()
        for access in self.accesses:
            key = "ptr:" + code_of(access.pointer)
            group = groups.setdefault(key, [])
            users.setdefault(key, []).append(access)
            if access.mask is not None:
                roots = self._mask_roots(access.mask)
                mask_names.update(roots)
                for name in roots:
                    users.setdefault("mask:" + name, []).append(access)
            if isinstance(access.mask, cst.IfExp):
                # `mask=None if EVEN_K else offs < k`: the switch is written inline, one member a side.
                for side, literals in self.ir.reader.sides(access.mask):
                    path = access.path | literals
                    group.append((path, self.ev.bound(side, access.order, path, access.loops)))
                continue
            bounded = self.ev.mask_dims(access)
            if bounded is not None:
                group.append((access.path, bounded))
        for name in sorted(mask_names):
            for d in self.ir.defs.get(name, ()):
                if d.kind == "param" or d.kind == "for":
                    continue
                bounded = frozenset() if d.value is None else self.ev.bound(d.value, d.order, d.path, d.loops)
                groups.setdefault("mask:" + name, []).append((d.path, bounded))
        found: dict[tuple[str, bool], set[str]] = {}
        for key, members in groups.items():
            if len(members) < 2:
                continue
            atoms = sorted({lit.atom for path, _ in members for lit in path if self.can_be_flag(lit.atom)})
            for atom in atoms:
                if self._switches_layout(atom, users.get(key, [])):
                    continue  # the two sides address different tensors or layouts, not one tile twice
                for even in (True, False):
                    even_side = [dims for path, dims in members if Literal(atom, even) in path]
                    tail_side = [dims for path, dims in members if Literal(atom, not even) in path]
                    if not even_side or not tail_side:
                        continue
                    unbounded_when_even = frozenset().union(*tail_side) - frozenset().union(*even_side)
                    if unbounded_when_even:
                        found.setdefault((atom, even), set()).update(unbounded_when_even)
        flags = []
        for (atom, even), dims in found.items():
            named = self._named_dims(atom, frozenset(dims), even)
            # A name, or a divisibility test, that says the opposite of what the masks do is a bug,
            # not a flag: `K % BLOCK_K == 0` is True on the even side, whatever the masks there.
            says: bool | None = None
            if EVEN_NAME.search(atom):
                says = not atom.startswith("NO_")
            elif DIVISIBLE.fullmatch(atom):
                says = True
            if named and says in (None, even):
                flags.append(Flag(atom, even, named, "usage"))
        return flags

    def _switches_layout(self, atom: str, accesses: list[Access]) -> bool:
        """Whether a condition also picks where the accesses point: a name their pointer is built
        from is assigned on both of its sides (`if PER_HEAD: p = B + h * n + offs` / `else: p = B +
        offs`). Its masked and unmasked sides then read different layouts, and its unmasked side
        promises nothing about full tiles."""
        for access in accesses:
            for name in self.flow.chain(access.pointer, access):
                sides = {lit.value for d in self.ir.defs.get(name, ()) if d.kind == "assign"
                         for lit in d.path if lit.atom == atom}
                if len(sides) == 2:
                    return True
        return False

    def _named_dims(self, atom: str, dims: frozenset[str], even: bool = True) -> frozenset[str]:
        """Narrow a flag's dimensions by its name when the name says which (`EVEN_M` -> the BLOCK_M ones).

        A twin branch often differs in several masks at once (`if EVEN_M: store(p, x) else:
        store(p, x, mask=m & n)`); the name tells which of them the flag vouches for. A compound
        test vouches for what its parts do: on the side where every part holds (`EVEN_M & EVEN_N`
        True) for what any part does; on the side where one of them may (`EVEN_M or EVEN_K`
        True), only for what all of them do.
        """
        parts = self.ir.reader.parts.get(atom)
        if parts is not None:
            vouched = [self._named_dims(part, dims, even) for part in parts]
            if (atom in self.ir.reader.conjunctions) == even:
                return frozenset().union(*vouched)
            return frozenset.intersection(*vouched)
        suffix = set(atom.split("_")[1:]) - {"EVEN", "DIVISIBLE", "ALIGNED", "MASK", "TAIL", "IS", "NO", "HAS"}
        if not suffix or not re.fullmatch(r"[A-Z0-9_]+", atom):
            return dims
        named = frozenset(dim for dim in dims if suffix & self._dim_tokens(dim))
        if named:
            return named
        if any(suffix & self._dim_tokens(dim) for dim in self.ev.dim_size):
            # `DIVISIBLE_N` switching a K mask: the name vouches for N, so the K difference
            # between its branches is a missing mask, not an evenness guarantee.
            return frozenset()
        return dims

    def _dim_tokens(self, dim: str) -> set[str]:
        if dim.startswith(LOOP_PREFIX):
            return self._loop_tokens(dim)
        return {part for token in self.ev.size_tokens(dim) for part in token.split("_")}

    def _loop_tokens(self, key: str) -> set[str]:
        for loop in self.ir.loops:
            if loop.key == key:
                return {part for token in re.findall(r"\w+", loop.text) for part in token.split("_")}
        return set()

    def _mask_roots(self, node: cst.BaseExpression) -> set[str]:
        """Names holding (part of) a mask value: `mask_k` in `mask_k[None, :] & m`, not `K` in `offs < K`."""
        if isinstance(node, cst.Name):
            return {node.value}
        if isinstance(node, cst.Subscript):
            return self._mask_roots(node.value)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)) and \
                isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.And, cst.Or)):
            return self._mask_roots(node.left) | self._mask_roots(node.right)
        if isinstance(node, cst.IfExp):
            return self._mask_roots(node.body) | self._mask_roots(node.orelse)
        if isinstance(node, cst.Call) and node.args and (
                self.ir.qualify_tl(node.func) in PASS_FIRST
                or (isinstance(node.func, cst.Attribute) and node.func.attr.value == "to")):
            target = node.args[0].value if self.ir.qualify_tl(node.func) in PASS_FIRST else node.func.value  # type: ignore[attr-defined]
            return self._mask_roots(target)
        return set()

    def _heuristic_flags(self) -> list[Flag]:
        """`@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})`."""
        flags = []
        for call in self.ir.decorators:  # applied by assignment too (`f = triton.heuristics(...)(triton.jit(f))`)
            if not (isinstance(call, cst.Call) and (self.ir.imports.qualify(call.func) or "").endswith("heuristics")):
                continue
            table = call.args[0].value if call.args else None
            if not isinstance(table, cst.Dict):
                continue
            for element in table.elements:
                if not (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
                        and isinstance(element.value, cst.Lambda)):
                    continue
                body = element.value.body
                if not (isinstance(body, cst.Comparison) and isinstance(body.left, cst.BinaryOperation)
                        and isinstance(body.left.operator, cst.Modulo) and len(body.comparisons) == 1
                        and code_of(body.comparisons[0].comparator) == "0"):
                    continue
                operator = body.comparisons[0].operator
                even = isinstance(operator, cst.Equal)
                if not even and not isinstance(operator, cst.NotEqual):
                    continue
                block = string_keys(body.left.right)
                dims = {dim for dim, size in self.ev.dim_size.items() if block & set(re.findall(r"\w+", size))}
                dims |= {loop.key for loop in self.ir.loops if block & set(re.findall(r"\w+", loop.text))}
                flags.append(Flag(str(element.key.evaluated_value), even, frozenset(dims), "heuristics"))
        return flags

    def _name_flags(self) -> list[Flag]:
        """Last hint: a condition named like EVEN_K guards the even side, for suppression only."""
        flags = []
        atoms = {lit.atom for access in self.accesses for lit in access.path}
        for atom in atoms:
            configured = atom in self.ir.extra_flags
            if not configured and not EVEN_NAME.search(atom):
                continue
            suffix = set(atom.split("_")[1:]) - {"EVEN", "DIVISIBLE", "ALIGNED", "MASK", "TAIL", "IS", "NO"}
            dims = {dim for dim, size in self.ev.dim_size.items()
                    if not suffix or suffix & set(re.split(r"_|\W", size))}
            dims |= {loop.key for loop in self.ir.loops if not suffix or suffix & set(re.split(r"_|\W", loop.text))}
            flags.append(Flag(atom, not atom.startswith("NO_"), frozenset(dims), "config" if configured else "name"))
        return flags

    def on_side(self, atom: str, value: bool, path: Path) -> bool:
        """Whether `path` lies on the `value` side of a flag, spelled directly or through the
        constexpr aliases it stands for (`FULL_K` True is `EVEN_K` True)."""
        own = Literal(atom, value)
        if own in path:
            return True
        implied = self.flag_side(atom, value) - {own}
        return bool(implied) and implied <= path

    def flag_side(self, atom: str, value: bool) -> Path:
        """The literals a flag's side stands for, through the kernel's constexpr aliases
        (`FULL_K` True is also `EVEN_K` True); at least the flag's own literal."""
        key = (atom, value)
        if key not in self._flag_sides:
            own = frozenset({Literal(atom, value)})
            try:
                node = cst.parse_expression(atom)
            except Exception:  # noqa: BLE001  (an atom that is not an expression: only itself)
                self._flag_sides[key] = own
            else:
                self._flag_sides[key] = own | (self.ir.reader.when_true(node) if value else self.ir.reader.when_false(node))
        return self._flag_sides[key]

    def can_be_flag(self, atom: str) -> bool:
        """A compound test can be a flag when one of its parts can (`start + BLOCK > N or
        D != D_PADDED` picks the masked twin for a tile that does not fit or a padded head)."""
        parts = self.ir.reader.parts.get(atom)
        if parts is not None:
            # Parts named as flags (`EVEN_M and EVEN_N`) are flags each, reported by their names.
            return not any(EVEN_NAME.search(part) for part in parts) and \
                any(self.can_be_flag(part) for part in parts)
        return _can_be_flag(atom)

    def atom_applies(self, atom: str, access: Access) -> bool:
        """A tile-fits test (`start + BLOCK > N`) speaks of the tile of the loop that moves `start`;
        outside that loop it says nothing."""
        parts = self.ir.reader.parts.get(atom)
        if parts is not None:
            return any(self.atom_applies(part, access) for part in parts if self.can_be_flag(part))
        if not _TILE_FITS.fullmatch(atom):
            return True
        tokens = set(re.findall(r"\w+", atom))
        return any(loop.targets & tokens for loop in access.loops)


def _can_be_flag(atom: str) -> bool:
    """Conditions that pick a variant (`LAYOUT == "HOPPER"`, `B is not None`) are not evenness flags:
    their masked and unmasked branches load different layouts, not the same tile twice. Nor is
    `BLOCK >= N` ("fits in one block"): on its False side the first tiles are still full."""
    if atom in ("True", "False", "None") or atom.lstrip("-").isdigit():
        return False  # a constant decides nothing at run time (`None if False else m`)
    if DIVISIBLE.fullmatch(atom):
        return True  # `N % BLOCK == 0` compares with 0, but it is the evenness test itself, no variant
    if _VARIANT_TEST.search(atom):
        return False
    if _ONE_BLOCK.search(atom):
        return False
    # `start_n + BLOCK > ctx_len`: a tile-fits test, checked at run time per tile, picks the
    # masked twin for the tile that does not fit. (A bare `BLOCK >= N` is the one-block switch.)
    return "%" in atom or not re.search(r"[<>]", atom) or bool(_TILE_FITS.fullmatch(atom))
