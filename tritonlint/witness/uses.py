"""What a kernel's parameters are, read from how its body uses them: pointers, strides, sizes, constexprs."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from tritonlint.witness.call_names import call_name
from tritonlint.witness.extract import Kernel
from tritonlint.witness.float_values import (
    feeds_float_math,
    float_compares,
    float_locals,
    literal_compare,
)
from tritonlint.witness.group_units import group_terms, group_walk
from tritonlint.witness.helper_returns import returned_parts
from tritonlint.witness.row_spans import row_spans
from tritonlint.witness.tile_ends import tile_end_walk
from tritonlint.witness.value_selects import selects_only, value_selectors
from tritonlint.witness.while_loops import while_ranges

# Calls that make a pointer to a whole tensor from its base, shape and strides (`base, shape, strides` first).
BLOCK_POINTERS = ("make_block_ptr", "make_tensor_descriptor")
ACCESS = {"load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_cas", "atomic_xchg",
          "atomic_and", "atomic_or", "atomic_xor"}

# `Uses._names`' memory: id -> (the node, kept alive so that its id is not reused, its names); cleared whole
# when full, so a long witness run holds at most this many trees' worth.
_NAMES: dict[int, tuple[ast.AST, frozenset[str]]] = {}
_NAMES_KEPT = 200_000


def dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001
        return ""


def _passed_through(param: str, inner_ptrs: dict[str, list[ast.expr]], arg: ast.expr) -> list[ast.expr]:
    """The caller's pointer expression, where a jit helper accesses memory at the pointer it is handed
    as it is (`tl.load(ptrs, mask=mask)`, maybe through a helper of its own): the caller's offsets
    (`Y + offs`) are then the whole access, and size its tensor. Nothing where the helper moves it
    further (`ptr + k * stride`): the caller's part alone would make the tensor too small."""
    exprs = inner_ptrs.get(param, [])
    bare = bool(exprs) and all(isinstance(e, ast.Name) and e.id == param for e in exprs)
    return [arg] if bare else []


def _settled_by_bound(call: ast.Call) -> bool:
    """Whether `Uses.bound` settles this call itself (a program id; an arange of a named or literal length).
    Any other call `bound` hands to `bound_expr`, which must not hand it back: `tl.arange(0, BLOCK_K // 32)`
    went round the two until the recursion ran out (a RecursionError an `ast.unparse` used to swallow)."""
    name = call_name(call)
    if name == "program_id":
        return True
    length = call.args[1] if name == "arange" and len(call.args) == 2 else None
    return isinstance(length, ast.Name) or (isinstance(length, ast.Constant) and isinstance(length.value, int))


def params_of(fn: ast.FunctionDef) -> list[ast.arg]:
    return [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]


def defaults_of(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    pos = [*fn.args.posonlyargs, *fn.args.args]
    for arg, default in zip(pos[len(pos) - len(fn.args.defaults):], fn.args.defaults):
        out[arg.arg] = default
    for arg, kdefault in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
        if kdefault is not None:
            out[arg.arg] = kdefault
    return out


def is_constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and "constexpr" in dotted(arg.annotation)


# `tl.dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, ...)`: its positional order,
# and the torch element type of an operand stored in each format (e2m1: two to a byte).
SCALED_DOT_ARGS = ("lhs", "lhs_scale", "lhs_format", "rhs", "rhs_scale", "rhs_format")
SCALED_DOT_DTYPES = {"e2m1": "uint8", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "bf16": "bfloat16",
                     "fp16": "float16"}


class Uses:
    """How one jit function uses its parameters."""

    def __init__(self, kernel: Kernel, helpers: dict[str, Kernel], depth: int = 0, *,
                 split_programs: bool = False) -> None:
        # Read a program id a jit helper splits (`i_c, i_h = split(NH)` returning `pid // NH, pid % NH`) as
        # the kernel's own split, `pid % NH` below NH (helper_returns.py): the launcher-defaults retry's reading.
        self.split_programs = split_programs
        self.fn = kernel.node
        self.params = [a.arg for a in params_of(self.fn)]
        self.constexprs = {a.arg for a in params_of(self.fn) if is_constexpr(a)}
        self.helpers = helpers
        self.defs: dict[str, list[ast.expr]] = {}
        self.loops: dict[str, ast.expr] = {}
        self.compares: list[ast.Compare] = []
        self.accesses: list[ast.expr] = []  # pointer expressions of loads/stores/atomics
        self.block_ptrs: list[ast.Call] = []
        self.int_uses: set[str] = set()
        self.calls: list[ast.Call] = []
        self.shifts: dict[str, list[ast.expr]] = {}
        # Pointer parameter of a segment-boundary tensor -> the pseudo size standing for the
        # segments' lengths (set by the synthesizer): a bound read from it bounds by that size.
        self.aliases: dict[str, str] = {}
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, (ast.AnnAssign,)) and node.value is not None:
                self._bind(node.target, node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
                # `K += batch_offset` on a pointer parameter: a shift every access through it carries.
                self.shifts.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.For):
                if isinstance(node.target, ast.Name):
                    self.loops[node.target.id] = node.iter
                    self.int_uses |= self._names(node.iter)
            elif isinstance(node, ast.Compare):
                self.compares.append(node)  # int uses unless they compare float data (`int_params`)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.FloorDiv, ast.LShift, ast.RShift)):
                self.int_uses |= self._names(node)
            elif isinstance(node, ast.Call):
                name = call_name(node)
                if name in ACCESS and (node.args or node.keywords):
                    ptr = node.args[0] if node.args else next(
                        (k.value for k in node.keywords if k.arg == "pointer"), None)
                    if ptr is not None:
                        self.accesses.append(ptr)
                elif name in BLOCK_POINTERS:
                    self.block_ptrs.append(node)
                    self.int_uses |= self._names(node)
                elif name in ("cdiv", "arange", "range", "static_range", "multiple_of", "program_id"):
                    self.int_uses |= self._names(node)
                elif isinstance(node.func, ast.Name) and node.func.id in helpers:
                    self.calls.append(node)
        for counter, walk in while_ranges(self.fn).items():
            if counter not in self.loops:
                self.loops[counter] = walk
                self.int_uses |= self._names(walk)
        self.selectors = value_selectors(self.fn)
        # The pointer expression `dims` is sizing, while it does: a walk a loop advances bounds only
        # the pointers it advances (`_advanced_extent`), not another access of the same offsets.
        self.sizing: ast.expr | None = None
        self.depth = depth
        self._helper_uses: dict[str, Uses] = {}

    @staticmethod
    def _names(node: ast.AST) -> set[str]:
        """The names read anywhere under `node` (a fresh set: callers may change it). Remembered per node:
        the synthesizer asks for the same definitions' names hundreds of thousands of times per finding
        (`reached`, `bound`), and no reading changes a tree in place (rewrites work on copies)."""
        entry = _NAMES.get(id(node))
        if entry is None or entry[0] is not node:  # an id reused by a node made since: not ours
            if len(_NAMES) >= _NAMES_KEPT:
                _NAMES.clear()
            entry = _NAMES[id(node)] = (node, frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name)))
        return set(entry[1])

    def _bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.defs.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                self._bind(t, v)
        elif self.split_programs and isinstance(target, ast.Tuple) and isinstance(value, ast.Call) \
                and isinstance(value.func, ast.Name) and value.func.id in self.helpers:
            parts = returned_parts(value, self.helpers[value.func.id].node, len(target.elts))
            for t, v in zip(target.elts, parts or ()):
                self._bind(t, v)

    def helper(self, name: str) -> Uses | None:
        if self.depth > 3 or name not in self.helpers:
            return None
        if name not in self._helper_uses:
            self._helper_uses[name] = Uses(self.helpers[name], self.helpers, self.depth + 1)
        return self._helper_uses[name]

    # -- pointers -------------------------------------------------------------------------

    def reached(self, names: set[str], depth: int = 3, skip: frozenset[str] = frozenset()) -> set[str]:
        """`names` and the names their local definitions read, `depth` definitions deep (not through `skip`)."""
        out = set(names) - skip
        frontier = set(out)
        for _ in range(depth):
            nxt: set[str] = set()
            for name in frontier:
                for value in self.defs.get(name, ()):
                    nxt |= self._names(value)
                if name in self.loops:
                    nxt |= self._names(self.loops[name])
            nxt -= skip
            frontier = nxt - out
            out |= nxt
        return out

    def root(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> str | None:
        """The parameter a pointer expression is based on (its leftmost additive base)."""
        if isinstance(expr, ast.Name):
            if expr.id in self.params:
                return expr.id
            if expr.id in seen:
                return None
            for value in self.defs.get(expr.id, ()):
                got = self.root(value, seen | {expr.id})
                if got:
                    return got
            return None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            left = self.root(expr.left, seen)
            if left or isinstance(expr.op, ast.Sub):
                return left
            return self.root(expr.right, seen)
        if isinstance(expr, ast.Subscript):
            return self.root(expr.value, seen)
        if isinstance(expr, ast.IfExp):
            return self.root(expr.body, seen) or self.root(expr.orelse, seen)
        if isinstance(expr, ast.Call):
            name = call_name(expr)
            if name in BLOCK_POINTERS:
                base = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "base"), None)
                return self.root(base, seen) if base is not None else None
            if name in ("advance", "multiple_of", "max_contiguous", "to", "cast") and (expr.args or
                                                                                        isinstance(expr.func, ast.Attribute)):
                if isinstance(expr.func, ast.Attribute) and name in ("to",):
                    return self.root(expr.func.value, seen)
                return self.root(expr.args[0], seen) if expr.args else None
            if name == "where" and len(expr.args) == 3:
                return self.root(expr.args[1], seen) or self.root(expr.args[2], seen)
        return None

    def pointers(self) -> dict[str, list[ast.expr]]:
        """Pointer parameter -> the pointer expressions (in this function) based on it."""
        out: dict[str, list[ast.expr]] = {}
        for expr in self.accesses:
            root = self.root(expr)
            if root and root not in self.constexprs:
                out.setdefault(root, []).append(expr)
        for call in self.block_ptrs:
            root = self.root(call)
            if root:
                out.setdefault(root, []).append(call)
        for call in self.calls:
            inner = self.helper(call.func.id) if isinstance(call.func, ast.Name) else None
            if inner is None:
                continue
            inner_ptrs = inner.pointers()
            for i, arg in enumerate(call.args):
                if i < len(inner.params) and inner.params[i] in inner_ptrs:
                    root = self.root(arg)
                    if root:
                        out.setdefault(root, []).extend(_passed_through(inner.params[i], inner_ptrs, arg))
            for kw in call.keywords:
                if kw.arg in inner_ptrs:
                    root = self.root(kw.value)
                    if root:
                        out.setdefault(root, []).extend(_passed_through(kw.arg, inner_ptrs, kw.value))
        return out

    def inclusive_ends(self, pointer: str) -> set[str]:
        """The sizes `n` a tensor holds `n + 1` entries of, by the kernel's repeated word: every access
        through `pointer` is masked by `v <= n`, a bound the kernel spells on two accesses or more
        (`rows <= batch` on a starts array's load and store: `batch + 1` starts). A single inclusive
        bound beside exclusive ones is a slip (TL104's hazard), not a convention: the buffer ends at n."""
        def inclusive(mask: ast.expr | None) -> dict[str, str]:
            out: dict[str, str] = {}
            for c in ast.walk(mask) if mask is not None else ():
                if isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], ast.LtE) \
                        and isinstance(c.comparators[0], ast.Name):
                    out[dotted(c)] = c.comparators[0].id
            return out

        masks: list[tuple[str | None, dict[str, str]]] = []
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Call) and call_name(node) in ("load", "store") and node.args:
                at = 1 if call_name(node) == "load" else 2
                mask = next((k.value for k in node.keywords if k.arg == "mask"),
                            node.args[at] if len(node.args) > at else None)
                masks.append((self.root(node.args[0]), inclusive(mask)))
        counts: dict[str, int] = {}
        for _root, found in masks:
            for text in found:
                counts[text] = counts.get(text, 0) + 1
        mine = [found for root, found in masks if root == pointer]
        if not mine:
            return set()
        ends: set[str] | None = None
        for found in mine:
            repeated = {n for text, n in found.items() if counts[text] >= 2}
            ends = repeated if ends is None else ends & repeated
        return ends or set()

    def loaded_as_index(self, pointer: str) -> bool:
        """Whether values loaded through `pointer` feed pointer arithmetic or loop bounds (indices)."""
        loaded: set[str] = set()
        for name, values in self.defs.items():
            for value in values:
                for call in ast.walk(value):
                    if call_name(call) == "load" and isinstance(call, ast.Call) and call.args \
                            and self.root(call.args[0]) == pointer:
                        loaded.add(name)
                    elif isinstance(call, ast.Call) and self._helper_returns_load(call, pointer):
                        loaded.add(name)  # `page = read_page(table + i)`: the helper returns what it loads
        if any(self._helper_loads_index(call, pointer) for call in self.calls):
            return True
        if not loaded:
            return False
        # Floor division or modulo of the loaded value (`val // BLOCK_Q`): Triton takes them on
        # integers only, so the tensor holds integers.
        for node in ast.walk(self.fn):
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod)) \
                    and isinstance(node.left, ast.Name) and node.left.id in loaded:
                return True
        seeds: set[str] = set()
        for expr in self.accesses:
            seeds |= self._names(expr)
        for it in self.loops.values():
            seeds |= self._names(it)
        # What a jit helper takes as offsets, sizes, bounds or pointers (`load_tile(K + page * stride)`).
        seeds |= self._helper_offset_args()
        reach = self.reached(seeds, depth=6)
        # `cumsum += total`, then `out + cumsum`: what an index is moved by in place is an index too.
        moved_by = {n for name in reach for value in self.shifts.get(name, ()) for n in self._names(value)}
        if (reach | self.reached(moved_by, depth=6)) & loaded:
            return True
        # Compared with an offset directly (`offs < seq_end`): a bound read from memory. Not through
        # locals: a softmax's running max is compared with data, and is no index.
        # Not a comparison of its type (`a.dtype != b.dtype`). Not a test against a literal (`s > 0`) of
        # values that also meet float-only math (`tl.exp`): those are scores, not indices.
        float_data = feeds_float_math(self.fn, self.defs, loaded)
        return any(self._value_names(c) & loaded for c in self.compares
                   if not (float_data and literal_compare(c)))

    @staticmethod
    def _value_names(node: ast.AST) -> set[str]:
        """The names whose values an expression reads: not those only asked an attribute (`a.dtype`)."""
        attributed = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in attributed}

    def first_valid_index(self, pointer: str) -> int:
        """The smallest index the kernel works on, read through `pointer`: 1 where it leaves on a zero
        one (`idx = tl.load(P + i)`; `if idx <= 0: return`, `== 0`, `< 1`: a null slot) or steps back
        from it (`tl.load(P + i) - 1`), else 0.

        Filled 0, 1, 2, ..., the first program would leave at once and never reach its tile."""
        loaded = self._loaded_names(pointer)
        if not loaded:
            return 0
        # A count the kernel steps back from (`i = tl.load(P + n) - 1`, the last of n): at least 1.
        for name in loaded:
            for value in self.defs.get(name, ()):
                if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub) \
                        and isinstance(value.right, ast.Constant) and value.right.value == 1:
                    return 1
        for node in ast.walk(self.fn):
            if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                    and node.body and isinstance(node.body[0], (ast.Return, ast.Continue))):
                continue
            left, op, right = node.test.left, node.test.ops[0], node.test.comparators[0]
            if isinstance(left, ast.Constant):  # `0 >= idx` read as `idx <= 0`
                flipped = {ast.GtE: ast.LtE, ast.Gt: ast.Lt, ast.Eq: ast.Eq}.get(type(op))
                if flipped is None:
                    continue
                left, op, right = right, flipped(), left
            if not (isinstance(left, ast.Name) and left.id in loaded and isinstance(right, ast.Constant)):
                continue
            null = right.value
            if (isinstance(op, (ast.LtE, ast.Eq)) and null == 0) or (isinstance(op, ast.Lt) and null == 1):
                return 1
        return 0

    def _helper_returns_load(self, call: ast.Call, pointer: str) -> bool:
        """Whether `call` is a jit helper, handed `pointer`, that returns a value it loads through it."""
        inner = self.helper(call.func.id) if isinstance(call.func, ast.Name) else None
        if inner is None:
            return False
        handed = {inner.params[i] for i, arg in enumerate(call.args) if i < len(inner.params)
                  and self.root(arg) == pointer}
        handed |= {kw.arg for kw in call.keywords if kw.arg in inner.params and self.root(kw.value) == pointer}
        for param in handed:
            loaded = inner._loaded_names(param)
            for ret in ast.walk(inner.fn):
                if not (isinstance(ret, ast.Return) and ret.value is not None):
                    continue
                if self._names(ret.value) & loaded or any(
                        isinstance(c, ast.Call) and call_name(c) == "load" and c.args and inner.root(c.args[0]) == param
                        for c in ast.walk(ret.value)):
                    return True
        return False

    def _helper_offset_args(self) -> set[str]:
        """The names in the arguments a jit helper takes as offsets, sizes or bounds (`_load_tile(kv,
        page * PAGE + offs, mask)`, whose `ptr + offs` is its access): what reaches them is an index."""
        names: set[str] = set()
        for call in self.calls:
            inner = self.helper(call.func.id) if isinstance(call.func, ast.Name) else None
            if inner is None:
                continue
            # Its offsets, sizes and bounds, and the pointer arithmetic the caller does for it
            # (`load_tile(K_cache + page * stride + offs)`).
            ints = inner.int_params() | set(inner.pointers())
            for i, arg in enumerate(call.args):
                if i < len(inner.params) and inner.params[i] in ints:
                    names |= self._names(arg)
            for kw in call.keywords:
                if kw.arg in ints:
                    names |= self._names(kw.value)
        return names

    def _helper_loads_index(self, call: ast.Call, pointer: str) -> bool:
        """Whether a jit helper this function hands `pointer` to loads indices through it."""
        inner = self.helper(call.func.id) if isinstance(call.func, ast.Name) else None
        if inner is None:
            return False
        handed = [inner.params[i] for i, arg in enumerate(call.args) if i < len(inner.params)
                  and self.root(arg) == pointer]
        handed += [kw.arg for kw in call.keywords if kw.arg in inner.params and self.root(kw.value) == pointer]
        return any(inner.loaded_as_index(param) for param in handed)

    # -- dimensions -----------------------------------------------------------------------

    def terms(self, expr: ast.expr, seen: frozenset[str] = frozenset(),
              kept: Callable[[str], bool] = lambda name: False) -> list[ast.expr]:
        """The additive terms of a pointer expression, pointer locals expanded (but those `kept` says
        are offsets of their own: kept whole)."""
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            return self.terms(expr.left, seen, kept) + self.terms(expr.right, seen, kept)
        if isinstance(expr, ast.Name) and expr.id in self.params and expr.id not in seen and self.defs.get(expr.id) \
                and self.root(self.defs[expr.id][0]) == expr.id:
            # A pointer parameter moved to the program's tile (`A = A + rows * stride + cols`): its terms.
            return self.terms(self.defs[expr.id][0], seen | {expr.id})
        if isinstance(expr, ast.Name) and expr.id not in self.params and expr.id not in seen \
                and len(self.defs.get(expr.id, ())) >= 1 and (
                    (self.root(expr) and not kept(expr.id)) or self._multi_dim(self.defs[expr.id][0])):
            return self.terms(self.defs[expr.id][0], seen | {expr.id}, kept)
        if isinstance(expr, ast.Subscript) and self.root(expr.value):
            return self.terms(expr.value, seen, kept)
        if isinstance(expr, ast.IfExp) and not self.root(expr):
            # A term one branch adds (`stride_xm * rows if X_DIM == 2 else 0`): the buffer holds both.
            return self.terms(expr.body, seen, kept) + self.terms(expr.orelse, seen, kept)
        return [expr]

    def _shifted_offsets(self, sizes: set[str]) -> Callable[[str], bool]:
        """Offsets moved by a scalar (`o_cs = o_t + seq_offset`) that a comparison bounds themselves
        (`o_cs < N`): `root` reads the scalar as a base and `terms` would split them, sizing the buffer by
        the unshifted offsets' bound (`o_t < T`); the kernel says the moved offsets end at N, so the buffer
        they index holds N. Only sums of offsets and scalar sizes: a pointer local is no offset."""
        def kept(name: str) -> bool:
            values = self.defs.get(name, ())
            if len(values) != 1 or self._upper_bound(name, sizes, exact=True) is None:
                return False
            roots = {self.root(t) for t in self.terms(values[0], frozenset({name}))}
            return roots <= sizes | {None} and roots & sizes != set()
        return kept

    def _multi_dim(self, value: ast.expr) -> bool:
        """An offset local that sums several dimensions (`rows * N + cols`), or steps an index by a literal
        row length (`2 * offset`, `2 * offset + 1`: two entries per index): expanded into its terms, so the
        buffer is laid out as if the pointer spelled them (a named product laid out with unit stride holds
        half of what the kernel writes, and even its full tiles run past it)."""
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
            return self._literal_stride(value, factors_of(value)) is not None
        if not (isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub))):
            return False
        ints = {p for p in self.params if p not in self.constexprs}
        for node in ast.walk(value):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) \
                    and (any(isinstance(f, ast.Name) and f.id in ints for f in factors_of(node))
                         or self._constexpr_stride(node, factors_of(node)) is not None
                         or self._literal_stride(node, factors_of(node)) is not None):
                return True
        return False

    def dims(self, expr: ast.expr, sizes: set[str], strides: set[str]) -> list[tuple[str | None, Any]]:
        """(stride parameter or None for unit stride, bound) of each term of a pointer expression."""
        outer, self.sizing = self.sizing, expr
        try:
            return self._dims(expr, sizes, strides)
        finally:
            self.sizing = outer

    def _dims(self, expr: ast.expr, sizes: set[str], strides: set[str]) -> list[tuple[str | None, Any]]:
        out: list[tuple[str | None, Any]] = []
        block = self.block_ptr_of(expr)
        if block is not None:
            # The block's own dimensions, and the terms its `base` adds (`Q + off_h * stride_h`: a
            # program's slice of a bigger tensor).
            base = next((k.value for k in block.keywords if k.arg == "base"), block.args[0] if block.args else None)
            extra = self.dims(base, sizes, strides) if base is not None and self.block_ptr_of(base) is None else []
            return self.block_dims(block, sizes, strides) + extra
        root = self.root(expr)
        shifts = [t for shift in self.shifts.get(root, ()) for t in self.terms(shift)] if root in self.params else []
        kept = self._shifted_offsets(sizes)
        terms = self.terms(expr, kept=kept) + shifts
        group_bounds, in_groups = group_terms(self, terms, sizes)
        # Blocks of rows the pointer lays out (`blk * (V + K) * K + rows * K`, row_spans.py).
        spans = row_spans(self, terms, sizes)
        blocks = {s.block: s for s in spans}
        spanned = {s.row_stride: s for s in spans}
        for term in terms:
            if (self.root(term) and not (isinstance(term, ast.Name) and kept(term.id))) or id(term) in in_groups:
                continue
            if id(term) in group_bounds:  # `k * GROUPS` beside `offs_g`: entries counted in groups
                out.append((None, group_bounds[id(term)]))
                continue
            factors = factors_of(term)
            if id(term) in blocks:  # stepped by the whole block, as many as its index counts
                out.append((blocks[id(term)].stride, self.bound(blocks[id(term)].index, sizes)))
                continue
            stride = next((f.id for f in factors if isinstance(f, ast.Name) and f.id in strides), None) or \
                self._aliased_stride(factors, strides) or next(
                (f.id for f in factors[1:] if isinstance(f, ast.Name) and f.id in sizes), None) or \
                self._constexpr_stride(term, factors) or self._literal_stride(term, factors)
            rest = [f for f in factors if not (isinstance(f, ast.Name) and f.id == stride)
                    and not (isinstance(f, ast.Constant) and str(f.value) == stride)]
            if stride is not None:
                stride, rest = self._row_product(term, stride, rest, sizes | strides)
            # A tile's start spelled in the pointer (`P + pid * BLOCK + arange(0, BLOCK)`): the axis's
            # extent, not the program count alone (which would drop the tile beside it). Only a bare
            # `pid * TILE`: `pid * BLOCK_M * BLOCK_N` is one page per program, counted by the grid.
            bound = self.tile_walk(term) if stride is None and len(factors) == 2 else None
            for f in rest:
                if bound is not None:
                    break
                bound = self.bound(f, sizes)
            if stride in spanned and len(factors) == 2 and [bound] != spanned[stride].bound[1]:
                bound = spanned[stride].bound  # the rows of one block: the span, whatever bounds the index
            out.append((stride, bound))
        return out

    def other_definitions(self, expr: ast.expr, sizes: set[str], strides: set[str],
                          skip: Callable[[ast.expr], bool] = lambda value: False) -> list[list[tuple[str | None, Any]]]:
        """The dims of a pointer expression under each other definition of a pointer local it reads
        (`if not IS_KDA: p = a + row` else `p = a + row * K + o_k`): `dims` reads only the first, and
        a buffer must hold what every definition reaches. One local at a time. Not the definitions
        `skip` names (on a constexpr branch the launch does not take: `elif INT8: p = ...` beside the
        int4 side's `(offs_k // 2) * stride` would lay the buffer out for K rows where it holds K // 2)."""
        out: list[list[tuple[str | None, Any]]] = []
        for name in sorted(self.reached(self._names(expr), depth=4)):
            values = self.defs.get(name, [])
            if len(values) < 2 or name in self.params or not self.root(ast.Name(id=name, ctx=ast.Load())):
                continue
            for i in range(1, len(values)):
                if skip(values[i]):
                    continue
                self.defs[name] = [values[i], *values[:i], *values[i + 1:]]
                try:
                    out.append(self.dims(expr, sizes, strides))
                finally:
                    self.defs[name] = values
        return out

    def _row_product(self, term: ast.expr, stride: str, rest: list[ast.expr],
                     sizes: set[str]) -> tuple[str, list[ast.expr]]:
        """A row length that is a product of scalars (`o_c * (H * D)`, `i_bh * T*V`): the stride is the
        whole product, spelled `H*D`, not its first size alone (rows of H elements where the kernel
        steps H * D: every full-tile launch then reads past its tensors). The other sizes multiplied
        in count; a constexpr only inside a parenthesized product of scalars with the stride
        (`pid * BLOCK * N` is a page of BLOCK rows per program, walked by the grid)."""
        grouped: set[str] = set()
        for node in ast.walk(term):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
                continue
            leaves = factors_of(node)
            names = {f.id for f in leaves if isinstance(f, ast.Name)}
            if stride in names and all(self._scalar_factor(f, sizes) for f in leaves):
                grouped |= names
        parts = [stride]
        kept: list[ast.expr] = []
        for f in rest:
            if isinstance(f, ast.Name) and f.id not in parts and (
                    f.id in sizes or (f.id in grouped and f.id in self.constexprs)):
                parts.append(f.id)
            else:
                kept.append(f)
        if len(parts) == 1 or not kept:
            return stride, rest  # no other factor, or nothing left to index with: a constant offset
        return "*".join(parts), kept

    def _scalar_factor(self, f: ast.expr, sizes: set[str]) -> bool:
        if isinstance(f, ast.Constant):
            return isinstance(f.value, int) and not isinstance(f.value, bool)
        return isinstance(f, ast.Name) and (f.id in sizes or f.id in self.constexprs)

    def _aliased_stride(self, factors: list[ast.expr], strides: set[str]) -> str | None:
        """A stride parameter read through a local (`stride_scale_k = stride_w_mx_k` on one mode's branch,
        a literal 1 on another's): the launch's to choose like the parameter itself, not a unit stride."""
        for f in factors:
            if isinstance(f, ast.Name) and f.id not in self.params:
                named = [v.id for v in self.defs.get(f.id, ()) if isinstance(v, ast.Name) and v.id in strides]
                if named:
                    return named[0]
        return None

    def _constexpr_stride(self, term: ast.expr, factors: list[ast.expr]) -> str | None:
        """A constexpr row length multiplying a row index (`slot * D`): the index's stride.

        Not when the product is a tile's start: `pid * BLOCK` (a program's tile), or `k * BLOCK_K`
        whose index counts tiles of that constexpr (`range(cdiv(K, BLOCK_K))`)."""
        if len(factors) < 2 or self.tile_walk(term) is not None:
            return None
        for f in factors:
            if not (isinstance(f, ast.Name) and f.id in self.constexprs):
                continue
            others: set[str] = set()
            for g in factors:
                if g is not f:
                    others |= self._names(g)
            if not others or f.id in self.reached(others, depth=4):
                continue
            return f.id
        return None

    def _literal_stride(self, term: ast.expr, factors: list[ast.expr]) -> str | None:
        """A literal row length multiplying an index (`index * 24`): the index's stride, spelled as the
        literal. Not a tile's start (`pid * 128`): that walks the axis in tiles, one dimension with them."""
        consts = [f for f in factors if isinstance(f, ast.Constant) and isinstance(f.value, int)
                  and not isinstance(f.value, bool) and f.value > 1]
        if len(consts) != 1 or len(factors) < 2 or self.tile_walk(term) is not None:
            return None
        return str(consts[0].value)

    def constant_reach(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> int:
        """The literal offset a pointer expression adds past its indexed terms (`P + i * 24 + 17`: 17),
        pointer locals expanded: what the buffer must hold past its last indexed element."""
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            return self.constant_reach(expr.left, seen) + self.constant_reach(expr.right, seen)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub):
            return self.constant_reach(expr.left, seen)
        if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
            return max(0, expr.value)
        if isinstance(expr, ast.Subscript):
            return self.constant_reach(expr.value, seen)
        if isinstance(expr, ast.Name) and expr.id not in self.params and expr.id not in seen \
                and len(self.defs.get(expr.id, ())) == 1:
            return self.constant_reach(self.defs[expr.id][0], seen | {expr.id})
        return 0

    def block_ptr_of(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> ast.Call | None:
        """The `tl.make_block_ptr(...)` call a pointer expression comes from, if any."""
        if isinstance(expr, ast.Call):
            name = call_name(expr)
            if name in BLOCK_POINTERS:
                return expr
            if name == "advance" and expr.args:
                return self.block_ptr_of(expr.args[0], seen)
            return None
        if isinstance(expr, ast.Name) and expr.id not in seen:
            for value in self.defs.get(expr.id, ()):
                got = self.block_ptr_of(value, seen | {expr.id})
                if got is not None:
                    return got
        return None

    def block_dims(self, call: ast.Call, sizes: set[str], strides: set[str]) -> list[tuple[str | None, Any]]:
        """(stride, bound) per dimension of a block pointer, read from its `shape=` and `strides=`."""
        named = {k.arg: k.value for k in call.keywords}
        order = ["base", "shape", "strides", "offsets", "block_shape", "order"]
        for i, arg in enumerate(call.args):
            named.setdefault(order[i], arg)
        shape, stride = named.get("shape"), named.get("strides")
        if not isinstance(shape, (ast.Tuple, ast.List)) or not isinstance(stride, (ast.Tuple, ast.List)):
            return []
        out: list[tuple[str | None, Any]] = []
        for extent, st in zip(shape.elts, stride.elts):
            stride_name = block_stride(st, strides, sizes)
            if isinstance(extent, ast.Name) and extent.id in sizes:
                bound: Any = ("size", extent.id)
            elif isinstance(extent, ast.Constant) and isinstance(extent.value, int):
                bound = ("const", extent.value)
            elif isinstance(extent, ast.Name) and extent.id in self.constexprs:
                bound = ("tile", extent.id)
            else:
                hit = sorted(self.reached(self._names(extent)) & sizes)
                bound = ("size", hit[0]) if hit else None
            out.append((stride_name, bound))
        return out

    def bound(self, expr: ast.expr, sizes: set[str], seen: frozenset[str] = frozenset()) -> Any:
        """What bounds an offset: ("size", name), ("grid", axis), ("const", n) or None."""
        if isinstance(expr, ast.Subscript):
            return self.bound(expr.value, sizes, seen)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.FloorDiv) and isinstance(
                expr.right, (ast.Name, ast.Constant)):
            inner = self.bound(expr.left, sizes, seen)
            divisor = expr.right.id if isinstance(expr.right, ast.Name) else str(expr.right.value)
            return ("div", inner, divisor) if inner is not None else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
            hit = self._names(expr.right) & sizes
            if hit:
                return ("size", min(hit))
        if isinstance(expr, ast.Call):
            name = call_name(expr)
            if name == "program_id":
                axis = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "axis"), None)
                return ("grid", axis.value if isinstance(axis, ast.Constant) else 0)
            if name == "arange" and len(expr.args) == 2 and isinstance(expr.args[1], ast.Name):
                return ("tile", expr.args[1].id)
            if name == "arange" and len(expr.args) == 2 and isinstance(expr.args[1], ast.Constant) \
                    and isinstance(expr.args[1].value, int):
                return ("const", expr.args[1].value)
            if name in ("to", "cast", "multiple_of", "max_contiguous"):
                inner = expr.func.value if isinstance(expr.func, ast.Attribute) and name == "to" else (
                    expr.args[0] if expr.args else None)
                return self.bound(inner, sizes, seen) if inner is not None else None
        if isinstance(expr, ast.Name):
            v = expr.id
            if v in seen:
                return None
            if v in sizes:
                return None
            # A mask or test comparing the offset itself with a size, from above.
            exact = self._upper_bound(v, sizes, exact=True)
            if exact is not None:
                # Offsets in other units than the size their mask names (`offs_kp < K - k * BLOCK_K` on
                # bytes packing two K elements, advanced `BLOCK_K // 2` rows a K tile): the pointers walk
                # K // 2 rows, which the loop says and the mask may not.
                advanced = self._advanced_extent(v, sizes)
                if isinstance(advanced, tuple) and advanced[0] == "div" and advanced[1] == exact:
                    return advanced
                return exact
            twin = self._twin_bound(v, sizes)
            if twin is not None:
                return twin
            if v in self.loops:
                it = self.loops[v]
                in_loop = [n for n in self._names(it) if n in sizes] + sorted(self._aliased(self._names(it), sizes))
                if not in_loop:
                    # An end computed from a size (`n_tiles = cdiv(N, BLOCK)`; `range(0, n_tiles * BLOCK, BLOCK)`).
                    in_loop = sorted(self.reached(self._names(it)) & sizes)
                if in_loop:
                    return ("size", min(in_loop, key=self.order))
                # `for r in tl.static_range(7)`: r stays below its literal end.
                if isinstance(it, ast.Call) and call_name(it) in ("range", "static_range") and it.args \
                        and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in it.args):
                    end = it.args[1] if len(it.args) >= 2 else it.args[0]
                    stop = end.value if isinstance(end, ast.Constant) and isinstance(end.value, int) else 0
                    return ("const", stop) if stop > 0 else None
            advanced = self._advanced_extent(v, sizes)
            if advanced is not None:
                return advanced
            for value in self.defs.get(v, ()):
                got = self.bound_expr(value, sizes, seen | {v})
                if got is not None:
                    return got
            # Last: the offset inside a compared sum (`(start + offs) < T`): a bound of the sum, not of it.
            return self._upper_bound(v, sizes, exact=False)
        return self.bound_expr(expr, sizes, seen)

    def _twin_bound(self, v: str, sizes: set[str]) -> Any:
        """The bound of another local spelled exactly as `v` (`rm = pid_m * BLOCK_M + arange(0, BLOCK_M)`,
        recomputed for the store and masked there, beside the unmasked `ram` of the loads): the same
        offsets, so the same size bounds them."""
        values = self.defs.get(v, ())
        if len(values) != 1:
            return None
        text = dotted(values[0])
        for other, others in self.defs.items():
            if other != v and len(others) == 1 and dotted(others[0]) == text:
                exact = self._upper_bound(other, sizes, exact=True)
                if exact is not None:
                    return exact
        return None

    def _advanced_extent(self, v: str, sizes: set[str]) -> Any:
        """("size", S) when `v` is a tile's offsets (`arange(0, T)`) inside pointers that a loop over S in
        tiles of T advances by a tile each step (`for k in range(cdiv(S, T)): ...; ptrs += T * stride`):
        the pointers walk all of S, not one tile, so the buffer holds S along that dimension."""
        defs = self.defs.get(v, ())
        if len(defs) != 1 or not (isinstance(defs[0], ast.Call) and call_name(defs[0]) == "arange"
                                  and len(defs[0].args) == 2):
            return None
        last, divisor = defs[0].args[1], None
        steps = {last.id} if isinstance(last, ast.Name) else set()  # what the pointers advance by, per step
        if isinstance(last, ast.Name) and len(self.defs.get(last.id, ())) == 1 and last.id not in self.params:
            # `PACKED_MX_BLOCK: tl.constexpr = BLOCK_K // MX_PACK_DIVISOR`, then `arange(0, PACKED_MX_BLOCK)`.
            per_tile = self.defs[last.id][0]
            if isinstance(per_tile, ast.BinOp) and isinstance(per_tile.op, ast.FloorDiv):
                last = per_tile
        # `arange(0, BLOCK_K // 32)` advanced by `(BLOCK_K // 32) * stride` in the loop over K in tiles
        # of BLOCK_K: one scale per 32 elements, so the buffer holds K // 32 along that dimension.
        if isinstance(last, ast.BinOp) and isinstance(last.op, ast.FloorDiv) and isinstance(last.left, ast.Name) \
                and isinstance(last.right, (ast.Name, ast.Constant)):
            divisor = last.right.id if isinstance(last.right, ast.Name) else str(last.right.value)
            last = last.left
        if not isinstance(last, ast.Name):
            return None
        tile = last.id
        steps.add(tile)
        for loop in ast.walk(self.fn):
            if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and call_name(loop.iter) == "range"):
                continue
            args = loop.iter.args
            size: str | None = None
            walked: Any = None
            end = args[1] if len(args) >= 2 else args[0] if args else None
            if isinstance(end, ast.Call) and call_name(end) == "cdiv" and len(end.args) == 2 \
                    and isinstance(end.args[0], ast.Name) and isinstance(end.args[1], ast.Name) \
                    and end.args[1].id == tile:
                size = end.args[0].id
            elif len(args) == 3 and isinstance(args[1], ast.Name) and isinstance(args[2], ast.Name) \
                    and args[2].id == tile:
                size = self._clamped_size(args[1].id, sizes)
            elif len(args) == 3 and isinstance(args[0], ast.Name) and isinstance(args[2], ast.UnaryOp) \
                    and isinstance(args[2].op, ast.USub) and isinstance(args[2].operand, ast.Name) \
                    and args[2].operand.id == tile:
                # `for k in range(K, 0, -BLOCK_K)`: counting down what is left of K, a tile a step.
                size = self._clamped_size(args[0].id, sizes)
            elif len(args) == 3 and isinstance(args[2], ast.Name) and args[2].id == tile:
                # `range(0, (start_m + 1) * BLOCK_M, BLOCK_N)`: up to the end of the program's own tile,
                # a walk of the size that program axis walks (a causal loop).
                walked = tile_end_walk(self.pid_axis, args[1])
                # `range(0, tl.cdiv(M, BM) * BM, BM)`: an end computed from one size walks that size.
                computed = self.reached(self._names(args[1])) & sizes
                if walked is None and len(computed) == 1:
                    size = next(iter(computed))
            if walked is None and (size is None or size not in sizes):
                continue
            walked = walked or ("size", size)
            for node in ast.walk(loop):
                if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                        and isinstance(node.target, ast.Name) and steps & self._names(node.value) \
                        and v in self.reached({node.target.id}, depth=4) - {node.target.id} \
                        and self._sizing_reads(node.target.id):
                    return ("div", walked, divisor) if divisor else walked
        return None

    def _sizing_reads(self, name: str) -> bool:
        """Whether the pointer expression being sized reads `name` (itself or through its locals);
        True outside `dims` (an offset asked for alone)."""
        return self.sizing is None or name in self.reached(self._names(self.sizing), depth=4)

    def _clamped_size(self, end: str, sizes: set[str]) -> str:
        """The size a loop's end stands for: itself, or the size it is clamped to
        (`hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)`: the loop walks at most up to N_CTX)."""
        defs = self.defs.get(end, ())
        if end in sizes or len(defs) != 1 or not (isinstance(defs[0], ast.Call)
                                                  and call_name(defs[0]) in ("minimum", "min")):
            return end
        clamps = [a.id for a in defs[0].args if isinstance(a, ast.Name) and a.id in sizes]
        return clamps[0] if len(clamps) == 1 else end

    def upper_bound_in_sum(self, v: str, sizes: set[str]) -> Any:
        """("size", s) where a comparison bounds a sum holding `v` by s (`i * T + offs < L`)."""
        return self._upper_bound(v, sizes, exact=False)

    def _upper_bound(self, v: str, sizes: set[str], *, exact: bool) -> Any:
        """("size", s) when a comparison bounds `v` from above by a size (`v < s`, `s > v`).

        A lower bound (`v >= lo`) says nothing of where `v` ends, so it never sizes a buffer;
        `exact` asks for `v` alone on its side (up to `[:, None]`), else `v` anywhere in it."""
        for c in self.compares:
            if len(c.ops) != 1:
                continue
            op = c.ops[0]
            sides = ((c.left, c.comparators[0], (ast.Lt, ast.LtE)), (c.comparators[0], c.left, (ast.Gt, ast.GtE)))
            for mine, other, upper in sides:
                if not isinstance(op, upper):
                    continue
                core = mine
                while isinstance(core, ast.Subscript):
                    core = core.value
                hit = (isinstance(core, ast.Name) and core.id == v) if exact else v in self._names(mine)
                if hit and exact and selects_only(self.selectors, c, v):
                    continue  # `tl.where(d < ROT, -x, x)`: a part of the tile, not the tensor's end
                bounding = (self.reached(self._names(other)) & sizes) | self._aliased(self._names(other), sizes)
                halved = _halved(other, bounding) if hit and exact else None
                if halved is not None:
                    # `offs < K // 2`: packed units (two int4 values a byte), the buffer holds K // 2 of them.
                    return ("div", ("size", halved[0]), halved[1])
                if hit and bounding:
                    return ("size", min(bounding, key=self.order))
        return None

    def pid_axis(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> int | None:
        """The program axis an expression is the id of (`tl.program_id(1)`, a local holding it)."""
        if isinstance(expr, ast.Call):
            name = call_name(expr)
            if name == "program_id":
                axis = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "axis"), None)
                return axis.value if isinstance(axis, ast.Constant) and isinstance(axis.value, int) else 0
            if name == "to" and isinstance(expr.func, ast.Attribute):
                return self.pid_axis(expr.func.value, seen)
        if isinstance(expr, ast.Name) and expr.id not in seen and len(self.defs.get(expr.id, ())) == 1:
            return self.pid_axis(self.defs[expr.id][0], seen | {expr.id})
        return None

    def tile_walk(self, expr: ast.expr) -> Any:
        """("axis", a, TILE) when the expression holds `program_id(a) * TILE` (the start of a tile)."""
        for node in ast.walk(expr):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                for a, b in ((node.left, node.right), (node.right, node.left)):
                    axis = self.pid_axis(a)
                    if axis is not None:
                        tile = b.id if isinstance(b, ast.Name) else (str(b.value) if isinstance(b, ast.Constant) else None)
                        if tile is not None:
                            return ("axis", axis, tile)
        return None

    def bound_expr(self, expr: ast.expr, sizes: set[str], seen: frozenset[str]) -> Any:
        # Wrapped around a size (`(pid_n * BLOCK_N + arange) % N`): below N whatever the tile's start.
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and self._names(expr.right) & sizes:
            return ("size", min(self._names(expr.right) & sizes))
        if self.split_programs and isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) \
                and self.pid_axis(expr.left) is not None and isinstance(expr.right, ast.Name) \
                and expr.right.id in self.constexprs:
            return ("tile", expr.right.id)  # `pid % NH`: a row below NH, whatever the grid
        walk = self.tile_walk(expr)
        if walk is not None:
            return walk
        grouped = group_walk(self, expr, sizes)  # `k * (BLOCK_K // G) + offs_g`: K counted in groups of G
        if grouped is not None:
            return grouped
        found = None
        for node in ast.walk(expr):
            if isinstance(node, (ast.Name, ast.Call)) and node is not expr:
                got = self.bound(node, sizes, seen)
                if got is not None and got[0] in ("size", "grid", "axis"):
                    return got
                found = found or got
            elif isinstance(node, ast.Call) and node is expr and _settled_by_bound(node):
                return self.bound(node, sizes, seen)
        return found

    def program_axes(self) -> dict[int, tuple[str | None, str | None]]:
        """Program axis -> (the size a tile of it walks, the tile constexpr), by `pid * TILE + arange`."""
        out: dict[int, tuple[str | None, str | None]] = {}
        pid_names: dict[str, int] = {}
        for name, values in self.defs.items():
            for value in values:
                for call in ast.walk(value):
                    if call_name(call) == "program_id" and isinstance(call, ast.Call):
                        axis = call.args[0] if call.args else None
                        a = axis.value if isinstance(axis, ast.Constant) and isinstance(axis.value, int) else 0
                        out.setdefault(a, (None, None))
                        if isinstance(value, ast.Call) or (isinstance(value, ast.Call) is False and
                                                            dotted(value).startswith("tl.program_id")):
                            pid_names[name] = a
        # Axes read so far only from flattened offsets (`o_zc < T*K`): the reading kept when nothing else says.
        flattened: dict[int, tuple[str | None, str | None]] = {}
        out = out if not pid_names else self._tiles(out, pid_names, flattened)
        # A tile start spelled with the program id inline (`offs_m = tl.program_id(0) * BLOCK_M + arange`),
        # or through a program id's name on an axis `_tiles` read only flattened offsets of (`o_k = i_k * BK +
        # arange` bounded by a constexpr `K`, beside `o_zc < T*K`).
        sizes = self.size_params() | self.constexpr_sizes()
        for name, values in self.defs.items():
            walk = self.tile_walk(values[0]) if len(values) == 1 else None
            if walk is None or out.get(walk[1], (None, None))[0] is not None \
                    or not (walk[1] in flattened or any(call_name(c) == "program_id" for c in ast.walk(values[0]))):
                continue
            bound = self.bound(ast.Name(id=name, ctx=ast.Load()), sizes)
            if bound and bound[0] == "size" and not walk[2].isdigit():
                if self._compared_product(name):
                    flattened.setdefault(walk[1], (bound[1], walk[2]))
                else:
                    out[walk[1]] = (bound[1], walk[2])
        for flat_axis, pair in flattened.items():
            if out.get(flat_axis, (None, None))[0] is None:
                out[flat_axis] = pair
        return out

    def tile_indices(self, sizes: set[str]) -> dict[int, dict[str, str]]:
        """Program axis -> {size: tile} for the tile indices computed from one program id
        (`pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m`, `pid_n = pid // num_pid_m`):
        each walks its size in tiles (`offs_m = pid_m * BLOCK_M + arange`, bounded by `M`), so that
        axis launches one program per tile of all of them together, not one per tile of any.

        Not a loop variable (`for k in range(pid_k, ...)`: split work, counted by the loop), nor an
        index read from memory (`pid_m = tl.load(map + pid)`: the map decides which tiles run)."""
        pid_names: dict[str, int] = {}
        for name in self.defs:
            axis = self.pid_axis(ast.Name(id=name, ctx=ast.Load()))
            if axis is not None:
                pid_names[name] = axis
        out: dict[int, dict[str, str]] = {}
        for name, values in self.defs.items():
            if len(values) != 1:
                continue
            for node in ast.walk(values[0]):
                if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
                    continue
                for index, tile in ((node.left, node.right), (node.right, node.left)):
                    if not (isinstance(index, ast.Name) and isinstance(tile, ast.Name) and tile.id in self.constexprs) \
                            or index.id in self.loops or index.id in self.params or self.pid_axis(index) is not None:
                        continue
                    derived = self.reached({index.id}, depth=6)
                    axes = {pid_names[n] for n in derived if n in pid_names}
                    if len(axes) != 1 or any(n in self.loops for n in derived) or any(
                            isinstance(c, ast.Call) and call_name(c) == "load"
                            for n in derived for v in self.defs.get(n, ()) for c in ast.walk(v)):
                        continue
                    bound = self.bound(ast.Name(id=name, ctx=ast.Load()), sizes)
                    if bound and bound[0] == "size":
                        out.setdefault(axes.pop(), {}).setdefault(bound[1], tile.id)
        return out

    def _tiles(self, out: dict[int, tuple[str | None, str | None]], pid_names: dict[str, int],
               flattened: dict[int, tuple[str | None, str | None]]) -> dict[int, tuple[str | None, str | None]]:
        """The axes walked by offsets built from a program id's name; `flattened` gets the first reading
        of an axis whose offsets were compared only with a product of sizes, kept for when nothing else says."""
        sizes = self.size_params()
        for name, values in self.defs.items():
            for value in values:
                mults = [n for n in ast.walk(value) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)]
                for m in mults:
                    names = self._names(m)
                    pids = [pid_names[n] for n in names if n in pid_names]
                    tiles = [n for n in names if n in self.constexprs]
                    if pids and tiles and out.get(pids[0], (None, None))[0] is None:
                        bound = self.bound(ast.Name(id=name, ctx=ast.Load()), sizes)
                        if bound and bound[0] == "size" and self._compared_product(name):
                            # `o_zc = row * K + i_k * BK + arange(BK)` masked `o_zc < T*K`: a flattened index
                            # of a whole [T, K] block, whose product does not say which factor the tiles walk.
                            flattened.setdefault(pids[0], (bound[1], tiles[0]))
                        elif bound and bound[0] == "size":
                            out[pids[0]] = (bound[1], tiles[0])
        return out

    def _compared_product(self, name: str) -> bool:
        """Whether every comparison bounding `name` from above compares it with a product of two or more
        names (`o_zc < T*K`): a flattened index, not one axis's offsets."""
        others: list[ast.expr] = []
        for c in self.compares:
            if len(c.ops) != 1:
                continue
            for mine, other, upper in ((c.left, c.comparators[0], (ast.Lt, ast.LtE)),
                                       (c.comparators[0], c.left, (ast.Gt, ast.GtE))):
                core = mine
                while isinstance(core, ast.Subscript):
                    core = core.value
                if isinstance(c.ops[0], upper) and isinstance(core, ast.Name) and core.id == name:
                    others.append(other)
        return bool(others) and all(isinstance(o, ast.BinOp) and isinstance(o.op, ast.Mult)
                                    and len(self._names(o)) >= 2 for o in others)

    def dtype_of(self, pointer: str) -> str | None:
        """A dtype the kernel compares its pointee with (`W.dtype.element_ty == tl.uint8`, through a local)."""
        aliases = {pointer}
        for name, values in self.defs.items():
            for value in values:
                if dotted(value).startswith(f"{pointer}.dtype"):
                    aliases.add(name)
        for c in self.compares:
            sides = [c.left, *c.comparators]
            if any(dotted(x).split(".dtype")[0] in aliases or dotted(x) in aliases - {pointer} for x in sides):
                for x in sides:
                    m = re.fullmatch(r"tl\.(u?int8|float8e4nv|float8e5|bfloat16|float16|int16|int32|int64)", dotted(x))
                    if m:
                        return {"float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}.get(m.group(1), m.group(1))
        return None

    def scaled_dot_use(self, pointer: str) -> tuple[str, str] | None:
        """The element type and fill `tl.dot_scaled` asks of what is loaded through `pointer`: a scale is
        e8m0 bits (`uint8`, filled near 2**0); an operand takes its format's type (`"e4m3"` fp8 from
        normal draws, `"e2m1"` two to a `uint8` of random bits, `"bf16"`...). None when no such call
        takes it, or its format is no literal."""
        loaded = self._loaded_names(pointer)
        for node in ast.walk(self.fn):
            if not (isinstance(node, ast.Call) and call_name(node) == "dot_scaled"):
                continue
            given = dict(zip(SCALED_DOT_ARGS, node.args)) | {k.arg: k.value for k in node.keywords if k.arg}
            for role in ("lhs", "rhs", "lhs_scale", "rhs_scale"):
                arg = given.get(role)
                if arg is None or not self._reads_load(arg, pointer, loaded):
                    continue
                if role.endswith("_scale"):
                    return ("uint8", "e8m0")
                fmt = given.get(f"{role}_format")
                if isinstance(fmt, ast.Constant) and fmt.value in SCALED_DOT_DTYPES:
                    dtype = SCALED_DOT_DTYPES[fmt.value]
                    return (dtype, "randint" if dtype == "uint8" else "randn")
        return None

    def _loaded_names(self, pointer: str) -> set[str]:
        """Locals assigned a value loaded through `pointer`."""
        return {name for name, values in self.defs.items() for value in values for call in ast.walk(value)
                if isinstance(call, ast.Call) and call_name(call) == "load" and call.args
                and self.root(call.args[0]) == pointer}

    def _reads_load(self, expr: ast.expr, pointer: str, loaded: set[str]) -> bool:
        """Whether `expr` is (a transpose or cast of) a value loaded through `pointer`."""
        if self._names(expr) & loaded:
            return True
        return any(isinstance(c, ast.Call) and call_name(c) == "load" and c.args and self.root(c.args[0]) == pointer
                   for c in ast.walk(expr))

    def int_params(self) -> set[str]:
        """Parameters that reach (through locals) a pointer, a comparison, a loop bound or an index."""
        floats = {n.left.id for n in self.compares if isinstance(n.left, ast.Name) and any(
            isinstance(c, ast.Constant) and isinstance(c.value, float) for c in n.comparators)}
        # Float data (scores, exponentials, quotients) and the comparisons over it: a parameter that
        # meets only those (`S = apply_softcap(S, softcap)`, `S = tl.dot(q, k)`) is data, not a size.
        data = frozenset(float_locals(self.defs))
        over_data = {id(c) for c in float_compares(self.compares, set(data))}
        seeds: set[str] = set(self.int_uses)
        for c in self.compares:
            if id(c) not in over_data:
                seeds |= self._names(c)
        seeds -= floats
        for expr in self.accesses:
            seeds |= self._names(expr)
        for call in self.block_ptrs:
            seeds |= self._names(call)
        seeds |= self._helper_offset_args()
        return self.reached(seeds, depth=6, skip=data) & set(self.params)

    def loaded_bits(self, pointer: str) -> bool:
        """Whether values loaded through `pointer` take bitwise operators (packed integers)."""
        loaded: set[str] = set()
        for name, values in self.defs.items():
            for value in values:
                for call in ast.walk(value):
                    if isinstance(call, ast.Call) and call_name(call) == "load" and call.args \
                            and self.root(call.args[0]) == pointer:
                        loaded.add(name)
        for node in ast.walk(self.fn):
            if isinstance(node, ast.BinOp) \
                    and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.RShift, ast.LShift)) \
                    and self._names(node) & self.reached(loaded, depth=1) and self._names(node) & loaded:
                return True
        # Handed to a jit helper that shifts or masks its bits (`_cdiv_pow2(hist, log2_k)`).
        for call in self.calls:
            inner = self.helper(call.func.id) if isinstance(call.func, ast.Name) else None
            if inner is None:
                continue
            for i, arg in enumerate(call.args):
                if i < len(inner.params) and self._names(arg) & loaded and inner.takes_bits(inner.params[i]):
                    return True
        return False

    def takes_bits(self, name: str) -> bool:
        """Whether a name of this function meets a bitwise operator (`n >> k`, `x & 0xF`)."""
        return any(isinstance(node, ast.BinOp)
                   and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.RShift, ast.LShift))
                   and name in self._names(node) for node in ast.walk(self.fn))

    def order(self, name: str) -> int:
        """A parameter's position; a pseudo size (a segment's length) sorts first."""
        return self.params.index(name) if name in self.params else -1

    def _aliased(self, names: set[str], sizes: set[str]) -> set[str]:
        """The pseudo sizes of the segment tensors these names are read from."""
        return {self.aliases[n] for n in self.reached(names) if n in self.aliases and self.aliases[n] in sizes}

    def segment_pointers(self) -> set[str]:
        """Pointer parameters read at `P + i` and at `P + i + 1`: segment boundaries (`cu_seqlens`)."""
        loads: dict[str, set[str]] = {}
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Call) and call_name(node) == "load" and node.args:
                ptr = node.args[0]
                root = self.root(ptr)
                if root is None or root not in self.params:
                    continue
                rest_terms = [t for t in self.terms(ptr) if self.root(t) is None]
                if _subtracts_constant(ptr) and any(self._lanes(t) for t in rest_terms):
                    # `P + offs - 1` beside `P + offs` (the terms drop the sign: it reads as `+ 1`): each
                    # lane's previous element, in a tensor of the lanes' extent, not segment boundaries.
                    continue
                rest = [dotted(t) for t in rest_terms]
                loads.setdefault(root, set()).add(" + ".join(sorted(rest)))
        out: set[str] = set()
        for root, offsets in loads.items():
            if any(" + ".join(sorted([*o.split(" + "), "1"])) in offsets for o in offsets if o) and root not in out:
                out.add(root)
        return out

    def _lanes(self, expr: ast.expr) -> bool:
        """Whether an offset reads a `tl.arange` (directly or through its locals): a vector of lanes, not
        the program's one index a segment boundary is read at."""
        names = self.reached(self._names(expr))
        values = [expr, *(value for name in names for value in self.defs.get(name, ()))]
        return any(isinstance(node, ast.Call) and call_name(node) == "arange" for value in values for node in ast.walk(value))

    def constexpr_sizes(self) -> set[str]:
        """Constexprs that are sizes, not tiles: one bounds an offset from above (`offs < n`, a loop's
        end) and never shapes a tile (no `arange` end, no block shape, never multiplies a program id)."""
        tiles: set[str] = set()
        # A program id's product that is itself a factor of a larger one (`blk * (V + K) * K`): a block
        # of rows laid out per program, whose row count is no tile (`pid * BLOCK` alone is a tile's start).
        scaled = {id(side) for node in ast.walk(self.fn) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
                  for side in (node.left, node.right)}
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Call) and call_name(node) in ("arange", "zeros", "full", "reshape", "view",
                                                                  "static_range", "make_block_ptr",
                                                                  "make_tensor_descriptor"):
                # `static_range(0, H, BLOCK_H)`: only its step is a tile; its end is where the walk stops.
                positional = node.args[1:] if call_name(node) == "arange" else node.args[2:] \
                    if call_name(node) == "static_range" and len(node.args) == 3 else node.args
                for arg in [*positional, *(k.value for k in node.keywords)]:
                    tiles |= self._names(arg)
            if isinstance(node, (ast.List, ast.Tuple)):
                tiles |= {e.id for e in node.elts if isinstance(e, ast.Name)}
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
                tiles |= self._names(node.right)  # `n // BLOCK`
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and id(node) not in scaled:
                for a, b in ((node.left, node.right), (node.right, node.left)):
                    if self.pid_axis(a) is not None:
                        tiles |= self._names(b)  # `pid * BLOCK`: a program's tile
        out: set[str] = set()
        for p in self.constexprs - tiles:
            bounds = False
            for c in self.compares:
                if len(c.ops) == 1 and isinstance(c.ops[0], (ast.Lt, ast.LtE)) and p in self._names(c.comparators[0]) \
                        and not isinstance(c.comparators[0], ast.Constant) and self._names(c.left) - {p}:
                    bounds = True
            for it in self.loops.values():
                if isinstance(it, ast.Call) and call_name(it) in ("range", "static_range") and len(it.args) >= 2:
                    end = it.args[1]
                    if isinstance(end, ast.Call) and call_name(end) == "cdiv" and end.args:
                        end = end.args[0]  # `cdiv(n, BLOCK)`: n is the size, BLOCK (and what it multiplies) not
                    if isinstance(end, ast.Name) and end.id == p:
                        bounds = True
            if bounds:
                out.add(p)
        return out

    def size_params(self) -> set[str]:
        return {p for p in self.params if p not in self.constexprs} - set(self.pointers()) - self.stride_params()

    def stride_params(self) -> set[str]:
        out: set[str] = set()
        ints = {p for p in self.params if p not in self.constexprs}
        for expr in self.accesses:
            for term in self.terms(expr):
                factors = factors_of(term)
                if len(factors) > 1:
                    for f in factors:
                        if isinstance(f, ast.Name) and f.id in ints and "stride" in f.id.lower():
                            out.add(f.id)
                    names = [f.id for f in factors if isinstance(f, ast.Name) and f.id in ints]
                    if len(factors) > 1 and names and not out & set(names):
                        # The last parameter factor multiplies the offset: `offs * stride`.
                        out.add(names[-1])
        for call in self.block_ptrs:
            for kw in call.keywords:
                if kw.arg == "strides":
                    out |= self._names(kw.value) & ints
            if len(call.args) >= 3:
                out |= self._names(call.args[2]) & ints
        out |= {p for p in ints if "stride" in p.lower()}
        # A parameter that also bounds an offset is a size, used as a row length (`offs_m * K`).
        bounding: set[str] = set()
        for c in self.compares:
            bounding |= self._names(c)
        for it in self.loops.values():
            bounding |= self._names(it)
        # A block pointer's `shape` is the tensor's extent: a size there (`shape=(N_CTX, D)`), whatever
        # row length it is elsewhere (`M + off_hz * N_CTX`).
        for call in self.block_ptrs:
            shape = next((kw.value for kw in call.keywords if kw.arg == "shape"),
                         call.args[1] if len(call.args) >= 2 else None)
            if shape is not None:
                bounding |= self._names(shape)
        return {p for p in out if p not in bounding or "stride" in p.lower()}


def block_stride(st: ast.expr, strides: set[str], sizes: set[str]) -> str | None:
    """The stride a block pointer gives one dimension, as `dims` names a term's: a stride parameter, a
    size used as the row length (`strides=(N, 1)` over `shape=(M, N)`: rows of N, as `offs_m * N`
    would say), a literal row length (`strides=(64, 1)`); None for the unit stride (or one unread)."""
    if isinstance(st, ast.Name) and (st.id in strides or st.id in sizes):
        return st.id
    if isinstance(st, ast.Constant) and isinstance(st.value, int) and not isinstance(st.value, bool) and st.value > 1:
        return str(st.value)
    return None


def factors_of(term: ast.expr) -> list[ast.expr]:
    if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult):
        return factors_of(term.left) + factors_of(term.right)
    if isinstance(term, ast.Call) and call_name(term) == "to" and isinstance(term.func, ast.Attribute):
        return factors_of(term.func.value)
    return [term]


# -- constexpr values -----------------------------------------------------------------------

def literal(node: ast.AST | None) -> Any:
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        text = dotted(node)
        if re.fullmatch(r"tl\.(float|bfloat|int|uint)\d+", text):
            return {"dtype": text.split(".")[-1]}
        return None
    return value if isinstance(value, (bool, int, float, str)) else None




def scalar_counts(uses: Uses) -> dict[str, tuple[int, str]]:
    """Pointer parameters read as one scalar (`n = tl.load(P)`) that a program's tile start is compared
    with (`if pid_m * BLOCK_M >= n: return`): a count of rows held in memory -> (program axis, tile).

    Filled with indices (0), every program would return early and no tile would ever be partial; the
    count the launch covers (grid * tile along that axis) lets every program run."""
    loaded: dict[str, str] = {}
    for name, values in uses.defs.items():
        for value in values:
            for call in ast.walk(value):
                if isinstance(call, ast.Call) and call_name(call) == "load" and call.args:
                    ptr = call.args[0]
                    root = uses.root(ptr)
                    if root is not None and root in uses.params and all(uses.root(t) for t in uses.terms(ptr)):
                        loaded[name] = root
    out: dict[str, tuple[int, str]] = {}
    for c in uses.compares:
        if len(c.ops) != 1:
            continue
        sides = (c.left, c.comparators[0])
        for mine, other in (sides, sides[::-1]):
            if isinstance(mine, ast.Name) and mine.id in loaded:
                walk = uses.tile_walk(other) or _derived_tile_walk(uses, other)
                if walk is not None:
                    out.setdefault(loaded[mine.id], (walk[1], walk[2]))
    return out


def _derived_tile_walk(uses: Uses, expr: ast.expr) -> tuple[str, int, str] | None:
    """("axis", a, TILE) for `pid_m * TILE` where `pid_m` is computed from the one program id of axis a
    by arithmetic (a `GROUP_M` swizzle, `pid // num_pid_n`): the start of that axis's tile, as
    `tile_walk` reads a bare `program_id(a) * TILE`. Not an index loaded from memory nor a loop's."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    for index, tile in ((expr.left, expr.right), (expr.right, expr.left)):
        if not (isinstance(index, ast.Name) and isinstance(tile, ast.Name) and tile.id in uses.constexprs) \
                or index.id in uses.params or index.id in uses.loops:
            continue
        derived = uses.reached({index.id}, depth=6)
        if any(n in uses.loops for n in derived) or any(
                isinstance(c, ast.Call) and call_name(c) == "load"
                for n in derived for v in uses.defs.get(n, ()) for c in ast.walk(v)):
            continue
        axes = {a for n in derived if (a := uses.pid_axis(ast.Name(id=n, ctx=ast.Load()))) is not None}
        if len(axes) == 1:
            return ("axis", axes.pop(), tile.id)
    return None



def _halved(other: ast.expr, bounding: set[str]) -> tuple[str, str] | None:
    """(size, divisor) of a bound that is a size floor-divided by a name or a positive literal
    (`K // 2`, `N // PACK`); None otherwise."""
    if not (isinstance(other, ast.BinOp) and isinstance(other.op, ast.FloorDiv)
            and isinstance(other.left, ast.Name) and other.left.id in bounding):
        return None
    if isinstance(other.right, ast.Name):
        return other.left.id, other.right.id
    if isinstance(other.right, ast.Constant) and isinstance(other.right.value, int) and other.right.value > 0:
        return other.left.id, str(other.right.value)
    return None


def _subtracts_constant(expr: ast.expr) -> bool:
    """`P + offs - 1`: a sum that subtracts a literal."""
    while isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        if isinstance(expr.op, ast.Sub) and isinstance(expr.right, ast.Constant):
            return True
        expr = expr.left
    return False
