"""The evaluator: which tiled dimensions an offset varies along, and which ones a mask bounds.

One reading for offsets and masks, so that a pointer and its mask are judged in the same units.
`dims` answers for an expression's value (`offs_m[:, None] * s + offs_k[None, :]` varies along
`offs_m` and `offs_k`); `bound` for a mask (`offs_k < K - k` bounds `offs_k` and the loop of k).
It also keeps the kernel's registry of tiles (their block sizes, the variables naming them), which
fills as expressions are read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst

from tritonlint.semantic.dataflow import Dataflow
from tritonlint.semantic.ir import (
    LOOP_PREFIX,
    PROGRAM,
    Access,
    Def,
    KernelIR,
    Loop,
    share_a_dimension,
)
from tritonlint.semantic.paths import EMPTY, Path, compatible
from tritonlint.source.names import code_of
from tritonlint.source.syntax import keyword, ordered, pure_offset
from tritonlint.source.tree import expressions_in, names_in

# tl calls whose result carries the tile offsets of their first argument unchanged.
PASS_FIRST = {"multiple_of", "max_contiguous", "max_constancy", "broadcast_to", "reshape", "view",
              "expand_dims", "permute", "trans", "ravel", "advance", "cast"}
# tl calls whose result holds data or scalars, never tile offsets.
_NO_OFFSETS = {"load", "num_programs", "full", "zeros", "ones", "zeros_like", "full_like",
               "sum", "max", "min", "argmax", "argmin", "reduce", "atomic_add", "atomic_max",
               "atomic_min", "atomic_cas", "atomic_xchg", "atomic_and", "atomic_or", "rand", "randn",
               "dot", "dot_scaled", "make_tensor_descriptor", "load_tensor_descriptor"}
# Clamping calls: an offset passed through them stays inside the bound.
_CLAMPS = {"minimum", "maximum", "clamp"}
# `BLOCK_M == 1`, `1 == BLOCK_M`, `BLOCK_M != 1`: a test of a block size against one.
_IS_ONE = re.compile(r"(?P<name>[^\W\d]\w*)(?P<op>==|!=)1|1(?P<op2>==|!=)(?P<name2>[^\W\d]\w*)")


class Evaluator:
    """Dimensions of offsets and bounds of masks, for one kernel."""

    def __init__(self, ir: KernelIR, flow: Dataflow) -> None:
        self.ir = ir
        self.flow = flow
        self.dim_size: dict[str, str] = {}  # arange key -> its block size
        self.dim_owners: dict[str, list[str]] = {}  # arange key -> variables assigned from it
        self.tile_parts: dict[str, frozenset[str]] = {}  # tile key -> its arange and tile-index keys
        self._tile_spellings: dict[tuple[str, frozenset[str]], str] = {}  # (text, parts) -> tile key
        self.block_rank: dict[str, int] = {}
        self._memo: dict[tuple[int, Path, bool], frozenset[str]] = {}
        self._busy: set[tuple[int, Path, bool]] = set()
        self._cycle_cut = False  # set when a definition's dimensions were cut short by a cycle
        self._reading_mask = False  # dims() of a mask looks through masked loads
        self._mask_memo: dict[tuple[Access, Path, bool], frozenset[str] | None] = {}
        self._tautologies_bound = False
        self._any_side = False  # reading a mask as evidence: what it bounds on some path
        self._evidence_memo: dict[Access, frozenset[str] | None] = {}
        self._ones_memo: dict[Path, frozenset[str]] = {}  # path -> block-size names it holds to be 1
        self._pointer_names: dict[str, bool] = {}  # local -> built from a pointer parameter

    def dims(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
             owner: str | None = None) -> frozenset[str]:
        """Keys of the tiled dimensions an expression's value varies along (offset names, loop keys)."""
        if type(node) is cst.Name:  # exact types (no ABC check): see tree.TypeTest
            found: set[str] = set()
            for d in self.flow.reaching(node.value, order, path, loops):
                found |= self.def_dims(d, path)
            return frozenset(found)
        if type(node) is cst.Call:
            return self._call_dims(node, order, path, loops, owner)
        if type(node) is cst.BinaryOperation:
            # Only the whole value is named after its variable; its parts are not that dimension.
            left = self.dims(node.left, order, path, loops)
            right = self.dims(node.right, order, path, loops)
            if type(node.operator) is cst.Modulo:
                # `offs % N` wraps into bounds (`channel = index % 3` too): only the loop it may
                # follow remains. A scalar index (`pid % GROUP`) is no offset: it keeps what it
                # depends on.
                if all(key.startswith(LOOP_PREFIX) for key in left):
                    return left
                return frozenset(key for key in left if key.startswith(LOOP_PREFIX) and key != PROGRAM)
            if owner and type(node.operator) in (cst.Add, cst.Subtract) and not self._pointer_sum(node, 0):
                tiled = self._tile_offset(owner, left, right, node) or self._tile_offset(owner, right, left, node)
                if tiled is not None:
                    return tiled
            return left | right
        if type(node) is cst.IfExp:
            return frozenset().union(*(self.dims(side, order, path | literals, loops, owner)
                                       for side, literals in self.ir.reader.sides(node)))
        if type(node) is cst.Subscript or type(node) is cst.Attribute:
            return self.dims(node.value, order, path, loops, owner)
        found = set()
        for child in expressions_in(node):
            found |= self.dims(child, order, path, loops, owner)
        return frozenset(found)

    def _pointer_sum(self, node: cst.BaseExpression, depth: int) -> bool:
        """`x_ptr + n * D + offs`: a pointer (its leftmost term is a pointer parameter, or a local
        built from one), not an offset; pointers are never a dimension of their own."""
        while isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
            node = node.left
        if not isinstance(node, cst.Name) or depth > 8:
            return False
        name = node.value
        if name not in self._pointer_names:
            self._pointer_names[name] = False  # a cycle (`p = p + s`) adds nothing
            self._pointer_names[name] = any(
                (d.kind == "param" and not d.constexpr)
                or (d.kind in ("assign", "advance") and d.value is not None and self._pointer_sum(d.value, depth + 1))
                for d in self.ir.defs.get(name, ()))
        return self._pointer_names[name]

    def _tile_offset(self, owner: str, base: frozenset[str], offsets: frozenset[str],
                     node: cst.BaseExpression) -> frozenset[str] | None:
        """`offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)`: a tile base plus block offsets is a
        dimension of its own, named by its variable. `o_t = i_t * BT + o_i` (rows) and `o_i` used
        as columns are then two dimensions, even though they share one `tl.arange`. A second
        variable spelled the same way (`offs_cm` in the epilogue restating `offs_am`) is the same
        dimension, under the first one's name."""
        aranges = [key for key in offsets if not key.startswith(LOOP_PREFIX)]
        if len(aranges) != 1 or not base or any(not key.startswith(LOOP_PREFIX) for key in base):
            return None
        if aranges[0] in self.tile_parts:
            # `g * N + offs_n` over a tile `offs_n`: a row picked for a tile, not a new tile.
            return None
        spelled = self._tile_spellings.setdefault((code_of(node), frozenset(aranges) | base), owner)
        if spelled != owner and spelled in self.tile_parts:
            owner = spelled
        size = self.dim_size.get(aranges[0])
        if size is not None:
            self.dim_size.setdefault(owner, size)
        self.dim_owners.setdefault(owner, [owner])
        self.tile_parts[owner] = frozenset(aranges) | base
        return frozenset({owner}) | base | {key for key in offsets if key.startswith(LOOP_PREFIX)}

    def def_dims(self, d: Def, path: Path) -> frozenset[str]:
        if d.kind == "for":
            return frozenset(loop.key for loop in d.loops[-1:])
        if d.value is None:
            return frozenset()
        key = (id(d), path, self._reading_mask)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy:
            self._cycle_cut = True  # a loop-carried definition reaching itself: cut the cycle here
            return frozenset()
        self._busy.add(key)
        outer_cut, self._cycle_cut = self._cycle_cut, False
        result = self.dims(d.value, d.order, d.path | path if compatible(d.path, path) else d.path, d.loops, d.name)
        offsets = [key for key in result if not key.startswith(LOOP_PREFIX)]
        if len(offsets) == 1 and d.name not in self.dim_owners.get(offsets[0], ()) and \
                not self._pointer_sum(d.value, 0):
            # `offs_y_n = BLOCK_N * pid_n + tl.arange(0, BLOCK_N)`: the variable names the offsets.
            self.dim_owners.setdefault(offsets[0], []).append(d.name)
        if d.kind == "advance":
            result |= {d.loops[-1].key}
        self._busy.discard(key)
        cut, self._cycle_cut = self._cycle_cut, outer_cut or self._cycle_cut
        # A result computed while a cycle was cut misses what flows in through the cut; it is
        # complete only at the query that started the cycle (the outermost). Keeping the partial
        # one would make every later answer depend on which name happened to be asked first.
        if not cut or not self._busy:
            self._memo[key] = result
        return result

    def _call_dims(self, call: cst.Call, order: int, path: Path, loops: tuple[Loop, ...],
                   owner: str | None) -> frozenset[str]:
        member = self.ir.qualify_tl(call.func)
        args = [arg.value for arg in call.args]
        if member == "arange":
            # Keyed by its text: `tl.arange(0, BLOCK_K)` in a pointer and in a mask is one dimension,
            # whichever variable holds it.
            key = "arange(" + ",".join(code_of(arg) for arg in args) + ")"
            if len(args) >= 2:
                self.dim_size.setdefault(key, code_of(args[1]))
            if owner:
                self.dim_owners.setdefault(key, []).append(owner)
            return frozenset({key})
        if member == "make_block_ptr":
            key = owner or "block_ptr"
            block_shape = keyword(call, "block_shape", 4)
            rank = len(block_shape.elements) if isinstance(block_shape, (cst.Tuple, cst.List)) else 0
            self.block_rank[key] = rank
            return frozenset(f"{key}[{i}]" for i in range(rank))
        if member == "load" and self._reading_mask:
            # A mask built from data loaded under a mask (`src = tl.load(I + offs_m, mask=offs_m < n,
            # other=-1)`, then `mask=src != -1`) bounds what that load's mask bounds: kernels rely on `other`.
            inner = keyword(call, "mask", 1)
            return self.dims(inner, order, path, loops) if inner is not None else frozenset()
        if member == "program_id":
            return frozenset({PROGRAM})
        if member in _NO_OFFSETS:
            return frozenset()
        if member in _CLAMPS:
            # Clamped into bounds: no offsets remain, but the loops it moves with do (the bound in
            # `rows < tl.minimum(BLOCK_M, m_size - tile_start)` is the rows left at this tile).
            return frozenset(key for arg in args for key in self.dims(arg, order, path, loops)
                             if key.startswith(LOOP_PREFIX) and key != PROGRAM)
        if member == "where" and len(args) == 3:
            condition = self.dims(args[0], order, path, loops)
            values = self.dims(args[1], order, path, loops, owner) | self.dims(args[2], order, path, loops, owner)
            return values - condition  # `where(offs < N, offs, 0)` clamps offs
        if member in PASS_FIRST and args:
            return self.dims(args[0], order, path, loops, owner)
        found: set[str] = set()
        if member is None:
            if isinstance(call.func, cst.Attribute):  # a method: `offs.to(tl.int64)` keeps offs
                return self.dims(call.func.value, order, path, loops, owner)
            # A helper's result (`idx = argmax_helper(x)`, often a scalar): its offsets, if any,
            # are built where we do not look; treating it as tiled would be a guess.
            return frozenset(key for arg in args for key in self.dims(arg, order, path, loops)
                             if key.startswith(LOOP_PREFIX))
        for arg in args:
            found |= self.dims(arg, order, path, loops, owner)
        return frozenset(found)

    def mask_dims(self, access: Access, hypothesis: Path = EMPTY, own: bool = False) -> frozenset[str] | None:
        """Dimensions the access's mask bounds on its path; None when the mask cannot be read (trust it).

        With `own`, the mask is judged for the access itself: `o_i < BT` over `tl.arange(0, BT)` is
        always true, but writing it says the author holds that dimension to be whole here. As
        evidence about other accesses such a mask says nothing.
        """
        key = (access, hypothesis, own)  # keyed by the object: a caller's view of a helper access is transient
        if key not in self._mask_memo:
            self._tautologies_bound = own
            try:
                self._mask_memo[key] = self._mask_dims(access, hypothesis)
            finally:
                self._tautologies_bound = False
        return self._mask_memo[key]

    def evidence_dims(self, access: Access) -> frozenset[str] | None:
        """Dimensions the access's mask bounds on some way it can be defined: as evidence that the
        kernel expects partial tiles, `tile_mask = seq_offset < n` under `if TILE != PAGE:` counts
        even though the other side's `tl.full(..., 1)` bounds nothing."""
        if access not in self._evidence_memo:
            self._any_side = True
            try:
                self._evidence_memo[access] = self._mask_dims(access, EMPTY)
            finally:
                self._any_side = False
        return self._evidence_memo[access]

    def _mask_dims(self, access: Access, hypothesis: Path) -> frozenset[str] | None:
        path = self.ir.reader.closure(access.path | hypothesis) if hypothesis else access.path
        if access.boundary_check is not None:
            checked = access.boundary_check
            if not isinstance(checked, (cst.Tuple, cst.List)):
                return None
            indices = {element.value.value for element in checked.elements if isinstance(element.value, cst.Integer)}
            pointer_dims = self.dims(access.pointer, access.order, path, access.loops)
            return frozenset(key for key in pointer_dims
                             if key.endswith("]") and key.rsplit("[", 1)[1][:-1] in indices)
        if access.mask is None:
            return frozenset()
        if self._opaque(access.mask, access.order, path, access.loops, 0):
            return None
        return self.bound(access.mask, access.order, path, access.loops)

    def bound(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...]) -> frozenset[str]:
        """Dimensions a mask expression bounds on every way it can be defined on `path`.

        Unlike `dims`, alternatives intersect: `m = offs_k < K if ... else mask_n` bounds K only on
        one side, so it does not bound K; `a & b` bounds what either bounds, `a | b` what both do.
        """
        self._reading_mask = True
        try:
            return self._bound(node, order, path, loops, 0)
        finally:
            self._reading_mask = False

    def _common(self, sides: list[frozenset[str]]) -> frozenset[str]:
        """Dimensions every alternative bounds. Alternatives that bound the same offset variable
        count as agreeing even when it was rebuilt with another block size on that path
        (`offs_n` over BLOCK_N, or over BLOCK_N // 2 after an activation that halves N)."""
        if len(sides) == 1:
            return sides[0]
        def names(key: str) -> frozenset[str]:
            return frozenset(self.dim_owners.get(key, ())) | {key}
        classes = [frozenset().union(*(names(key) for key in side)) for side in sides]
        return frozenset(key for side in sides for key in side
                         if all(names(key) & other for other in classes))

    def _comparison_bound(self, node: cst.Comparison, order: int, path: Path,
                          loops: tuple[Loop, ...]) -> frozenset[str]:
        """What `offs < bound` bounds: the offsets on the small side, unless the bound is the
        offsets' own block size (`tl.arange(0, D) < D` is always true). `offs >= start` and
        `offs == i` select lanes; they never cut a tile short."""
        if len(node.comparisons) != 1:
            return self.dims(node, order, path, loops)
        sides = ordered(node)
        if sides is None:
            # `src == -1` on data loaded under a mask bounds what that mask bounds (through loads).
            return self.dims(node, order, path, loops)
        small, large = sides
        small_dims = self.dims(small, order, path, loops)
        large_dims = self.dims(large, order, path, loops)
        if small_dims and not [d for d in small_dims if not d.startswith(LOOP_PREFIX)] and \
                any(not d.startswith(LOOP_PREFIX) for d in large_dims):
            return frozenset()  # `start <= offs`: a lower bound
        bound_text = code_of(large)
        return frozenset(d for d in small_dims | large_dims
                         if d.startswith(LOOP_PREFIX) or self.dim_size.get(d) != bound_text or
                         not pure_offset(small) or self._tautologies_bound)

    def _bound(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
               depth: int) -> frozenset[str]:
        if depth > 16:
            return frozenset()
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return frozenset()
            reaching = [d for d in self.flow.reaching(node.value, order, path, loops) if d.kind != "advance"]
            if not reaching:
                return self.dims(node, order, path, loops)
            # A mask built under `if BLOCK_M == 1:` need not bound the rows: a one-row tile is never
            # partial (the program exists only for a row inside the tensor).
            sides = [(self._bound(d.value, d.order, d.path | path, d.loops, depth + 1) if d.value is not None
                      else frozenset()) | self.single_element_dims(d.path) for d in reaching]
            return frozenset().union(*sides) if self._any_side else self._common(sides)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            operator = node.operator
            if isinstance(operator, (cst.BitAnd, cst.And)):
                return self._bound(node.left, order, path, loops, depth + 1) | \
                    self._bound(node.right, order, path, loops, depth + 1)
            if isinstance(operator, (cst.BitOr, cst.Or)):
                return self._bound(node.left, order, path, loops, depth + 1) & \
                    self._bound(node.right, order, path, loops, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._bound(node.value, order, path, loops, depth + 1)
        if isinstance(node, cst.IfExp):
            sides = [self._bound(side, order, path | literals, loops, depth + 1)
                     for side, literals in self.ir.reader.sides(node) if compatible(literals, path)]
            if not sides:
                return frozenset()
            return frozenset().union(*sides) if self._any_side else frozenset.intersection(*sides)
        if isinstance(node, cst.Comparison):
            return self._comparison_bound(node, order, path, loops)
        if isinstance(node, cst.Call):
            member = self.ir.qualify_tl(node.func)
            if member in ("full", "zeros", "ones", "full_like", "zeros_like"):
                return frozenset()
            if member in PASS_FIRST and node.args:
                return self._bound(node.args[0].value, order, path, loops, depth + 1)
            if member is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
                return self._bound(node.func.value, order, path, loops, depth + 1)
        return self.dims(node, order, path, loops)

    def _opaque(self, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                depth: int) -> bool:
        """A mask that comes from a parameter or a helper's result: we cannot see what it bounds."""
        if depth > 12:
            return True
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return False
            reaching = self.flow.reaching(node.value, order, path, loops)
            if not reaching:
                return False
            return any(d.kind == "param" or (d.value is not None and d.kind != "for" and
                                             self._opaque(d.value, d.order, d.path, d.loops, depth + 1))
                       for d in reaching)
        if isinstance(node, cst.Call):
            member = self.ir.qualify_tl(node.func)
            if member is None:
                if isinstance(node.func, cst.Attribute):  # `mask.to(tl.int1)`
                    return self._opaque(node.func.value, order, path, loops, depth + 1)
                return True
            if member in PASS_FIRST or member == "where":
                return bool(node.args) and self._opaque(node.args[-1 if member == "where" else 0].value,
                                                        order, path, loops, depth + 1)
            return False
        if isinstance(node, cst.BinaryOperation):
            return self._opaque(node.left, order, path, loops, depth + 1) or \
                self._opaque(node.right, order, path, loops, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self._opaque(node.expression, order, path, loops, depth + 1)
        if isinstance(node, cst.Subscript):
            return self._opaque(node.value, order, path, loops, depth + 1)
        if isinstance(node, cst.IfExp):
            return self._opaque(node.body, order, path, loops, depth + 1) or \
                self._opaque(node.orelse, order, path, loops, depth + 1)
        return isinstance(node, cst.Attribute)

    def same_tile(self, key: str, dim: str) -> bool:
        """`key` is `dim`, or a tile built on it (`q_index = arange + i * BLOCK` over the arange)."""
        return key == dim or dim in self.tile_parts.get(key, ()) or key in self.tile_parts.get(dim, ())

    def size_tokens(self, dim: str) -> set[str]:
        """Names in a dimension's block size, with constexpr locals expanded once
        (`GROUPS = BLOCK_K // GROUP_K` makes `tl.arange(0, GROUPS)` a BLOCK_K dimension too)."""
        size = self.dim_size.get(dim, "")
        tokens = {token for token in re.findall(r"[^\W\d]\w*", size)}
        for token in list(tokens):
            defs = [d for d in self.ir.defs.get(token, ()) if d.value is not None]
            if len(defs) == 1 and defs[0].value is not None:
                tokens |= set(re.findall(r"[^\W\d]\w*", code_of(defs[0].value)))
        return tokens

    def size_in(self, dim: str, text: str) -> bool:
        size = self.dim_size.get(dim)
        if dim.endswith("]"):  # block pointer dimension: tl.advance(bp, (0, BLOCK_K)) names the index
            return False
        return size is not None and re.search(rf"(?<![\w.]){re.escape(size)}(?!\w)", text) is not None

    def single_element_dims(self, path: Path) -> frozenset[str]:
        """Dimensions whose block size the path holds to be 1 (`if BLOCK_M == 1:`)."""
        ones = self._ones_memo.get(path)
        if ones is None:  # asked for every definition a mask reads: read each path once
            ones = self._ones_memo[path] = frozenset(_block_sizes_one(path))
        if not ones:
            return frozenset()
        return frozenset(key for key in self.dim_size if self.size_tokens(key) & ones)

    def constexpr(self, name: str) -> bool:
        defs = self.ir.defs.get(name, ())
        return bool(defs) and all(d.constexpr for d in defs)

    def runtime_stride(self, name: str) -> bool:
        """A non-constexpr parameter other than an index: a tensor stride (`pid * stride_p`)."""
        return any(d.kind == "param" and not d.constexpr for d in self.ir.defs.get(name, ()))

    def bounds_offsets(self, bounded: frozenset[str], offsets: frozenset[str]) -> bool:
        """A mask bounds these block offsets, itself or through a tile built on them
        (`cols = start + offs_n; cols < seqlen` bounds `offs_n`)."""
        return self.covers(bounded, offsets) or any(
            self.tile_parts.get(key, frozenset()) & offsets for key in bounded)

    def covers(self, bounded: frozenset[str], keys: frozenset[str], context: frozenset[str] = frozenset(),
               *, loop_alone: bool = True) -> bool:
        """Whether a mask bounding `bounded` bounds one of `keys`. `ks = k * BLOCK_K + offs_k` is
        bounded as well by `offs_k < K - k * BLOCK_K`: the same block offsets and the same loop.

        Without `loop_alone`, sharing only a loop is not enough (evidence from another access:
        `g * N + offs_n`, a scale row the K loop picks, and `k * BLOCK_K + offs_k` both move with it).
        """
        if bounded & keys and (loop_alone or share_a_dimension(bounded, keys)):
            return True
        for key in keys:
            parts = self.tile_parts.get(key)
            if parts is not None and parts <= bounded | {PROGRAM}:
                shared = parts & bounded
                if shared and (loop_alone or any(not part.startswith(LOOP_PREFIX) for part in shared)):
                    return True
        # The other way round: `o_col = i_t + o_i; mask = o_col < T` bounds a pointer that spells
        # the same tile inline (`p + i_t * s + o_i * s`): its own block offsets, plus loops that
        # move the pointer (`context`).
        return any(key in self.tile_parts and self.tile_parts[key] <= keys | context and
                   any(not part.startswith(LOOP_PREFIX) for part in self.tile_parts[key] & keys)
                   for key in bounded)

    def runtime(self, node: cst.BaseExpression, depth: int) -> bool:
        """A value not fixed at compile time: a non-constexpr parameter, loaded data, or built from them."""
        if depth > 6:
            return False
        for name in names_in(node):
            for d in self.ir.defs.get(name, ()):
                if d.kind == "param" and not d.constexpr:
                    return True
                if d.kind == "for" or (d.value is not None and not d.constexpr and self.runtime(d.value, depth + 1)):
                    return True
        return "load(" in code_of(node) or "program_id(" in code_of(node)

    def label(self, dim: str) -> str:
        """A dimension as the kernel names it: its offset variable, else its `tl.arange(...)`."""
        owners = self.dim_owners.get(dim)
        return owners[0] if owners else ("tl." + dim if dim.startswith("arange(") else dim)


def _block_sizes_one(path: Path) -> Iterator[str]:
    """Names the path holds to equal 1 (`BLOCK_M == 1` true, `1 != BLOCK_M` false)."""
    for literal in path:
        match = _IS_ONE.fullmatch(literal.atom)
        if match and literal.value == ((match.group("op") or match.group("op2")) == "=="):
            yield match.group("name") or match.group("name2")
