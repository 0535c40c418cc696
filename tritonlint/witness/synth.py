"""Synthesize launches for a kernel: parameters classified by use, sizes that make the finding's tile partial.

Read from the kernel's syntax alone (stdlib `ast`), never by importing it. A parameter is a
pointer when it is the base of the pointer expression of a load or store (directly, through
locals, or through a jit helper's parameter); a stride when it multiplies an offset there; a
size when it bounds an offset (a mask comparison, a loop bound, a `%`); constexprs take the
values callers pass, then autotune's first config, then their defaults, then small powers of two.
Each pointer's dimensions (offset, bounding size, stride) come from its pointer expressions, so
the strides are contiguous in the kernel's own indexing and each buffer holds exactly
`1 + sum((size - 1) * stride)` elements: the last in-bounds element is the buffer's last one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from tritonlint.witness.extract import Extracted, Kernel

ACCESS = {"load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_cas", "atomic_xchg",
          "atomic_and", "atomic_or", "atomic_xor"}
DEFAULT_TILE = 16
ROW_PROGRAMS = 2  # programs along an axis whose program id is a row index, not a tile's start
MAX_PROGRAMS = 256


@dataclass
class Arg:
    """One argument of the synthesized launch."""

    name: str
    kind: str  # "tensor", "int", "float", "constexpr", "none"
    value: Any = None  # scalars and constexprs ({"dtype": "float32"} for a dtype constexpr)
    numel: int = 0  # tensors
    dtype: str = "float32"
    fill: str = "randn"  # "randn" or "zeros"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "value": self.value, "numel": self.numel,
                "dtype": self.dtype, "fill": self.fill}


@dataclass
class Launch:
    """A launch to run: arguments in parameter order, the grid, and what it was built to show."""

    kernel: str
    args: list[Arg]
    grid: list[int]
    axis: str | None  # the size made partial
    sizes: dict[str, int] = field(default_factory=dict)
    label: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "grid": self.grid, "axis": self.axis, "label": self.label,
                "sizes": self.sizes, "args": [a.to_dict() for a in self.args]}

    def brief(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.sizes.items())
        return f"{shown}; grid {tuple(self.grid)}"


class SynthesisError(Exception):
    """No launch can be built (the reason is the message)."""


def _dotted(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001
        return ""


def _call_name(node: ast.AST) -> str:
    return _dotted(node.func).split(".")[-1] if isinstance(node, ast.Call) else ""


def _params(fn: ast.FunctionDef) -> list[ast.arg]:
    return [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]


def _defaults(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    pos = [*fn.args.posonlyargs, *fn.args.args]
    for arg, default in zip(pos[len(pos) - len(fn.args.defaults):], fn.args.defaults):
        out[arg.arg] = default
    for arg, kdefault in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
        if kdefault is not None:
            out[arg.arg] = kdefault
    return out


def _is_constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and "constexpr" in _dotted(arg.annotation)


class Uses:
    """How one jit function uses its parameters."""

    def __init__(self, kernel: Kernel, helpers: dict[str, Kernel], depth: int = 0) -> None:
        self.fn = kernel.node
        self.params = [a.arg for a in _params(self.fn)]
        self.constexprs = {a.arg for a in _params(self.fn) if _is_constexpr(a)}
        self.helpers = helpers
        self.defs: dict[str, list[ast.expr]] = {}
        self.loops: dict[str, ast.expr] = {}
        self.compares: list[ast.Compare] = []
        self.accesses: list[ast.expr] = []  # pointer expressions of loads/stores/atomics
        self.block_ptrs: list[ast.Call] = []
        self.int_uses: set[str] = set()
        self.calls: list[ast.Call] = []
        self.shifts: dict[str, list[ast.expr]] = {}
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
                self.compares.append(node)
                self.int_uses |= self._names(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.FloorDiv)):
                self.int_uses |= self._names(node)
            elif isinstance(node, ast.Call):
                name = _call_name(node)
                if name in ACCESS and (node.args or node.keywords):
                    ptr = node.args[0] if node.args else next(
                        (k.value for k in node.keywords if k.arg == "pointer"), None)
                    if ptr is not None:
                        self.accesses.append(ptr)
                elif name == "make_block_ptr":
                    self.block_ptrs.append(node)
                    self.int_uses |= self._names(node)
                elif name in ("cdiv", "arange", "range", "static_range", "multiple_of", "program_id"):
                    self.int_uses |= self._names(node)
                elif isinstance(node.func, ast.Name) and node.func.id in helpers:
                    self.calls.append(node)
        self.depth = depth
        self._helper_uses: dict[str, Uses] = {}

    @staticmethod
    def _names(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    def _bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.defs.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                self._bind(t, v)

    def helper(self, name: str) -> Uses | None:
        if self.depth > 3 or name not in self.helpers:
            return None
        if name not in self._helper_uses:
            self._helper_uses[name] = Uses(self.helpers[name], self.helpers, self.depth + 1)
        return self._helper_uses[name]

    # -- pointers -------------------------------------------------------------------------

    def reached(self, names: set[str], depth: int = 3) -> set[str]:
        """`names` and the names their local definitions read, `depth` definitions deep."""
        out = set(names)
        frontier = set(names)
        for _ in range(depth):
            nxt: set[str] = set()
            for name in frontier:
                for value in self.defs.get(name, ()):
                    nxt |= self._names(value)
                if name in self.loops:
                    nxt |= self._names(self.loops[name])
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
            name = _call_name(expr)
            if name == "make_block_ptr":
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
                        out.setdefault(root, [])
            for kw in call.keywords:
                if kw.arg in inner_ptrs:
                    root = self.root(kw.value)
                    if root:
                        out.setdefault(root, [])
        return out

    def loaded_as_index(self, pointer: str) -> bool:
        """Whether values loaded through `pointer` feed pointer arithmetic or loop bounds (indices)."""
        loaded: set[str] = set()
        for name, values in self.defs.items():
            for value in values:
                for call in ast.walk(value):
                    if _call_name(call) == "load" and isinstance(call, ast.Call) and call.args \
                            and self.root(call.args[0]) == pointer:
                        loaded.add(name)
        if not loaded:
            return False
        seeds: set[str] = set()
        for expr in self.accesses:
            seeds |= self._names(expr)
        for it in self.loops.values():
            seeds |= self._names(it)
        if self.reached(seeds, depth=6) & loaded:
            return True
        # Compared with an offset directly (`offs < seq_end`): a bound read from memory. Not through
        # locals: a softmax's running max is compared with data, and is no index.
        return any(self._names(c) & loaded for c in self.compares)

    # -- dimensions -----------------------------------------------------------------------

    def terms(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> list[ast.expr]:
        """The additive terms of a pointer expression, pointer locals expanded."""
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            return self.terms(expr.left, seen) + self.terms(expr.right, seen)
        if isinstance(expr, ast.Name) and expr.id not in self.params and expr.id not in seen \
                and len(self.defs.get(expr.id, ())) >= 1 and (self.root(expr) or self._multi_dim(self.defs[expr.id][0])):
            return self.terms(self.defs[expr.id][0], seen | {expr.id})
        if isinstance(expr, ast.Subscript) and self.root(expr.value):
            return self.terms(expr.value, seen)
        return [expr]

    def _multi_dim(self, value: ast.expr) -> bool:
        """An offset local that sums several dimensions (`rows * N + cols`): expanded into its terms."""
        if not (isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub))):
            return False
        ints = {p for p in self.params if p not in self.constexprs}
        for node in ast.walk(value):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                if any(isinstance(f, ast.Name) and f.id in ints for f in _factors(node)):
                    return True
        return False

    def dims(self, expr: ast.expr, sizes: set[str], strides: set[str]) -> list[tuple[str | None, Any]]:
        """(stride parameter or None for unit stride, bound) of each term of a pointer expression."""
        out: list[tuple[str | None, Any]] = []
        block = self.block_ptr_of(expr)
        if block is not None:
            return self.block_dims(block, sizes, strides)
        root = self.root(expr)
        shifts = [t for shift in self.shifts.get(root, ()) for t in self.terms(shift)] if root in self.params else []
        for term in self.terms(expr) + shifts:
            if self.root(term):
                continue
            factors = _factors(term)
            stride = next((f.id for f in factors if isinstance(f, ast.Name) and f.id in strides), None) or next(
                (f.id for f in factors[1:] if isinstance(f, ast.Name) and f.id in sizes), None)
            rest = [f for f in factors if not (isinstance(f, ast.Name) and f.id == stride)]
            bound = None
            for f in rest:
                bound = self.bound(f, sizes)
                if bound is not None:
                    break
            out.append((stride, bound))
        return out

    def block_ptr_of(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> ast.Call | None:
        """The `tl.make_block_ptr(...)` call a pointer expression comes from, if any."""
        if isinstance(expr, ast.Call):
            name = _call_name(expr)
            if name == "make_block_ptr":
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
            stride_name = st.id if isinstance(st, ast.Name) and st.id in strides else None
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
                return ("size", sorted(hit)[0])
        if isinstance(expr, ast.Call):
            name = _call_name(expr)
            if name == "program_id":
                axis = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "axis"), None)
                return ("grid", axis.value if isinstance(axis, ast.Constant) else 0)
            if name == "arange" and len(expr.args) == 2 and isinstance(expr.args[1], ast.Name):
                return ("tile", expr.args[1].id)
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
            # A mask or test comparing the offset with a size.
            for c in self.compares:
                left = self._names(c.left)
                right = set().union(*(self._names(x) for x in c.comparators))
                if v in left and self.reached(right) & sizes:
                    return ("size", sorted(self.reached(right) & sizes, key=self.params.index)[0])
                if v in right and self.reached(left) & sizes:
                    return ("size", sorted(self.reached(left) & sizes, key=self.params.index)[0])
            if v in self.loops:
                it = self.loops[v]
                hit = [n for n in self._names(it) if n in sizes]
                if hit:
                    return ("size", sorted(hit, key=self.params.index)[0])
            for value in self.defs.get(v, ()):
                got = self.bound_expr(value, sizes, seen | {v})
                if got is not None:
                    return got
            return None
        return self.bound_expr(expr, sizes, seen)

    def pid_axis(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> int | None:
        """The program axis an expression is the id of (`tl.program_id(1)`, a local holding it)."""
        if isinstance(expr, ast.Call):
            name = _call_name(expr)
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
        walk = self.tile_walk(expr)
        if walk is not None:
            return walk
        found = None
        for node in ast.walk(expr):
            if isinstance(node, (ast.Name, ast.Call)) and node is not expr:
                got = self.bound(node, sizes, seen)
                if got is not None and got[0] in ("size", "grid", "axis"):
                    return got
                found = found or got
            elif isinstance(node, ast.Call) and node is expr and _call_name(node) in ("program_id", "arange"):
                return self.bound(node, sizes, seen)
        return found

    def program_axes(self) -> dict[int, tuple[str | None, str | None]]:
        """Program axis -> (the size a tile of it walks, the tile constexpr), by `pid * TILE + arange`."""
        out: dict[int, tuple[str | None, str | None]] = {}
        pid_names: dict[str, int] = {}
        for name, values in self.defs.items():
            for value in values:
                for call in ast.walk(value):
                    if _call_name(call) == "program_id" and isinstance(call, ast.Call):
                        axis = call.args[0] if call.args else None
                        a = axis.value if isinstance(axis, ast.Constant) and isinstance(axis.value, int) else 0
                        out.setdefault(a, (None, None))
                        if isinstance(value, ast.Call) or (isinstance(value, ast.Call) is False and
                                                            _dotted(value).startswith("tl.program_id")):
                            pid_names[name] = a
        return out if not pid_names else self._tiles(out, pid_names)

    def _tiles(self, out: dict[int, tuple[str | None, str | None]],
               pid_names: dict[str, int]) -> dict[int, tuple[str | None, str | None]]:
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
                        if bound and bound[0] == "size":
                            out[pids[0]] = (bound[1], tiles[0])
        return out

    def dtype_of(self, pointer: str) -> str | None:
        """A dtype the kernel compares its pointee with (`W.dtype.element_ty == tl.uint8`, through a local)."""
        aliases = {pointer}
        for name, values in self.defs.items():
            for value in values:
                if _dotted(value).startswith(f"{pointer}.dtype"):
                    aliases.add(name)
        for c in self.compares:
            sides = [c.left, *c.comparators]
            if any(_dotted(x).split(".dtype")[0] in aliases or _dotted(x) in aliases - {pointer} for x in sides):
                for x in sides:
                    m = re.fullmatch(r"tl\.(u?int8|float8e4nv|float8e5|bfloat16|float16|int16|int32|int64)", _dotted(x))
                    if m:
                        return {"float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2"}.get(m.group(1), m.group(1))
        return None

    def int_params(self) -> set[str]:
        """Parameters that reach (through locals) a pointer, a comparison, a loop bound or an index."""
        floats = {n.left.id for n in self.compares if isinstance(n.left, ast.Name) and any(
            isinstance(c, ast.Constant) and isinstance(c.value, float) for c in n.comparators)}
        seeds: set[str] = set(self.int_uses) - floats
        for expr in self.accesses:
            seeds |= self._names(expr)
        for call in self.block_ptrs:
            seeds |= self._names(call)
        for call in self.calls:
            inner = self.helper(call.func.id) if isinstance(call.func, ast.Name) else None
            if inner is None:
                continue
            inner_ints = inner.int_params() | set(inner.pointers())
            for i, arg in enumerate(call.args):
                if i < len(inner.params) and inner.params[i] in inner_ints:
                    seeds |= self._names(arg)
            for kw in call.keywords:
                if kw.arg in inner_ints:
                    seeds |= self._names(kw.value)
        return self.reached(seeds, depth=6) & set(self.params)

    def loaded_bits(self, pointer: str) -> bool:
        """Whether values loaded through `pointer` take bitwise operators (packed integers)."""
        loaded: set[str] = set()
        for name, values in self.defs.items():
            for value in values:
                for call in ast.walk(value):
                    if isinstance(call, ast.Call) and _call_name(call) == "load" and call.args \
                            and self.root(call.args[0]) == pointer:
                        loaded.add(name)
        for node in ast.walk(self.fn):
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.RShift,
                                                                     ast.LShift)):
                if self._names(node) & self.reached(loaded, depth=1) and self._names(node) & loaded:
                    return True
        return False

    def size_params(self) -> set[str]:
        return {p for p in self.params if p not in self.constexprs} - set(self.pointers()) - self.stride_params()

    def stride_params(self) -> set[str]:
        out: set[str] = set()
        ints = {p for p in self.params if p not in self.constexprs}
        for expr in self.accesses:
            for term in self.terms(expr):
                factors = _factors(term)
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
        return {p for p in out if p not in bounding or "stride" in p.lower()}


def _factors(term: ast.expr) -> list[ast.expr]:
    if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult):
        return _factors(term.left) + _factors(term.right)
    if isinstance(term, ast.Call) and _call_name(term) == "to" and isinstance(term.func, ast.Attribute):
        return _factors(term.func.value)
    return [term]


# -- constexpr values -----------------------------------------------------------------------

def _literal(node: ast.AST | None) -> Any:
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        text = _dotted(node)
        if re.fullmatch(r"tl\.(float|bfloat|int|uint)\d+", text):
            return {"dtype": text.split(".")[-1]}
        return None
    return value if isinstance(value, (bool, int, float, str)) else None


def autotune_config(kernel: Kernel) -> dict[str, Any]:
    """The first config of `triton.autotune(configs=[...])` whose values are literals."""
    call = kernel.autotune
    if call is None:
        return {}
    configs = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "configs"), None)
    if not isinstance(configs, (ast.List, ast.Tuple)):
        return {}
    for config in configs.elts:
        if isinstance(config, ast.Call) and config.args and isinstance(config.args[0], ast.Dict):
            values = {}
            for k, v in zip(config.args[0].keys, config.args[0].values):
                key, value = _literal(k), _literal(v)
                if isinstance(key, str) and value is not None:
                    values[key] = value
            if values:
                return values
    return {}


def heuristic_keys(kernel: Kernel) -> set[str]:
    call = kernel.heuristics
    if call is None or not call.args or not isinstance(call.args[0], ast.Dict):
        return set()
    return {k.value for k in call.args[0].keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}


@dataclass
class Facts:
    """What the finding and the analysis say about the launch to build."""

    line: int
    code: str
    flags_off: dict[str, bool]  # flags the finding is reachable under, with that value
    walk: str | None  # the offset the finding walks (`offs_k`)
    tile: str | None  # the tile it walks in (`BLOCK_K` or a literal)
    axis_hints: list[str]  # sizes the notes or the fix name
    launch_args: dict[str, str]  # kernel parameter -> host text, from one launch site
    multiples: set[tuple[str, str]]  # (a, b): the host keeps a % b == 0
    even_flags: dict[str, bool]  # evenness flags of the kernel -> the value promising full tiles
    launch: Any = None  # one launch site (tritonlint's Launch record), if any
    program_axis: tuple[int, str, str] | None = None  # (axis, size, tile) the notes name


def facts_from(diagnostic: Any, launches: list[Any], even_flags: dict[str, bool]) -> Facts:
    notes = list(diagnostic.notes)
    flags: dict[str, bool] = {}
    walk = tile = None
    hints: list[str] = []
    program_axis = None
    for note in notes:
        m = re.match(r"reachable when (.+)$", note)
        if m:
            for part in re.split(r",| and ", m.group(1)):
                f = re.match(r"\s*`?(\w+)`? is (True|False)", part)
                if f:
                    flags[f.group(1)] = f.group(2) == "True"
        m = re.search(r"walks `([^`]+)` \(tiles of ([^)]+)\)", note)
        if m:
            walk, tile = m.group(1), m.group(2)
        m = re.search(r"along axis (\d+), whose tile is partial unless (\w+) is a multiple of (\w+)", note)
        if m:
            program_axis = (int(m.group(1)), m.group(2), m.group(3))
        m = re.search(r"unless (\w+) is a multiple of (\w+)", note)
        if m:
            hints.append(m.group(1))
            tile = tile or m.group(2)
        for word in re.findall(r"`([^`]+)`", note):
            hints += re.findall(r"[A-Za-z_]\w*", word)
    if diagnostic.fix is not None:
        hints += re.findall(r"[A-Za-z_]\w*", diagnostic.fix.title)
    hints += re.findall(r"`([A-Za-z_]\w*)`", diagnostic.message)
    args: dict[str, str] = {}
    multiples: set[tuple[str, str]] = set()
    first = launches[0] if launches else None
    for launch in launches[:1]:
        args = dict(launch.args)
        multiples |= set(launch.multiples)
    return Facts(diagnostic.line, diagnostic.code, flags, walk, tile, hints, args, multiples, even_flags, first,
                 program_axis)


def launch_axes(launch: Any, params: list[str]) -> dict[int, tuple[str, str]]:
    """Program axis -> (kernel size parameter, tile) that a launch site's rounded-up grid divides."""
    out: dict[int, tuple[str, str]] = {}
    if launch is None:
        return out
    for i, axis in enumerate(launch.grid):
        if not axis.extent:
            continue
        sizes = [p for p, text in launch.args.items() if text == axis.extent and p in params]
        tiles = [axis.meta_key] if axis.meta_key else [p for p, text in launch.args.items() if text == axis.size]
        if not tiles and axis.size.isdigit():
            tiles = [axis.size]
        if sizes and tiles:
            out[i] = (sizes[0], tiles[0])
    return out


def _assigned(facts: Facts, param: str) -> Any:
    """The smallest literal the launch site's argument name is assigned before the launch (`BLOCK_K = 128`)."""
    if facts.launch is None:
        return None
    values = []
    for text, _line in facts.launch.allocations.get(param, ()):
        try:
            value = _literal(ast.parse(text, mode="eval").body)
        except SyntaxError:
            continue
        if isinstance(value, (int, bool)) and not isinstance(value, dict):
            values.append(value)
    return min(values) if values else None


def _walk_var(walk: str | None) -> str | None:
    if not walk:
        return None
    m = re.match(r"[A-Za-z_]\w*", walk)
    return m.group(0) if m else None


def synthesize(extracted: Extracted, facts: Facts, *, owner: str | None = None,
               default_tile: int = DEFAULT_TILE) -> list[tuple[Launch, Launch]]:
    """Candidate launches (partial tiles on the finding's axis), each with its control (full tiles)."""
    kernel = extracted.kernel
    uses = Uses(kernel, extracted.helpers)
    pointers = uses.pointers()
    if not pointers:
        raise SynthesisError(f"`{kernel.name}` loads or stores through no parameter it takes")
    strides = uses.stride_params() - set(pointers)
    sizes = {p for p in uses.params if p not in uses.constexprs} - set(pointers) - strides
    ordered_sizes = [p for p in uses.params if p in sizes]
    defaults = _defaults(kernel.node)
    tuned = autotune_config(kernel)
    heur = heuristic_keys(kernel)

    # Constexpr values.
    consts: dict[str, Any] = {}
    for p in uses.params:
        if p not in uses.constexprs or p in heur:
            continue
        value = None
        if p in facts.flags_off:
            value = facts.flags_off[p]
        elif p in facts.launch_args and _literal(ast.parse(facts.launch_args[p], mode="eval").body) is not None:
            value = _literal(ast.parse(facts.launch_args[p], mode="eval").body)
        elif _assigned(facts, p) is not None:
            value = _assigned(facts, p)
        elif p in tuned:
            value = tuned[p]
        elif p in facts.even_flags:
            value = not facts.even_flags[p]  # the side where tiles can be partial
        elif p in defaults and _literal(defaults[p]) is not None:
            value = _literal(defaults[p])
        else:
            value = _guess_constexpr(uses, p)
            if value == DEFAULT_TILE:
                value = default_tile
        consts[p] = value
    for key, value in tuned.items():  # autotune may set parameters the kernel does not annotate
        if key in uses.params and key not in consts and key not in heur:
            consts[key] = value
    # Non-constexpr flags the finding names (`EVEN_K` passed as a plain bool).
    flag_args = {p: v for p, v in facts.flags_off.items() if p in sizes}

    def value_of(name: str | None) -> int:
        if name is None:
            return default_tile
        if name.isdigit():
            return int(name)
        v = consts.get(name)
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else DEFAULT_TILE

    tiles = [v for v in consts.values() if isinstance(v, int) and not isinstance(v, bool) and v > 1]
    base = 2 * max(tiles + [DEFAULT_TILE])
    base = min(base, 256)

    tile = value_of(facts.tile)
    int_like = uses.int_params()
    # Program axis -> (the size its tiles walk, the tile): the notes, the launch site, the kernel's masks.
    axes: dict[int, tuple[str | None, str | None]] = dict(uses.program_axes())
    for a, pair in launch_axes(facts.launch, uses.params).items():
        axes[a] = pair
    if facts.program_axis is not None and facts.program_axis[1] in sizes:
        axes[facts.program_axis[0]] = (facts.program_axis[1], facts.program_axis[2])
    # The axis to make partial: the size bounding the walked offset, then the sizes notes name.
    axis_order: list[str] = []
    if facts.program_axis is not None and facts.program_axis[1] in sizes:
        axis_order.append(facts.program_axis[1])
    owner_uses = uses
    if owner and owner != kernel.name and owner in extracted.helpers:
        owner_uses = uses.helper(owner) or uses
    walk = _walk_var(facts.walk)
    if walk:
        b = owner_uses.bound(ast.Name(id=walk, ctx=ast.Load()), owner_uses.size_params() | sizes)
        if b and b[0] == "size":
            axis_order.append(b[1])
        elif b and b[0] == "axis" and axes.get(b[1], (None, None))[0]:
            axis_order.append(str(axes[b[1]][0]))
            if facts.tile is None:
                tile = value_of(b[2])
    axis_order += [h for h in facts.axis_hints if h in sizes and h in int_like]
    axis_order += sorted((sizes & int_like) - set(axis_order), key=uses.params.index)
    axis_order = [a for a in dict.fromkeys(axis_order) if a not in flag_args][:4]

    def build(axis: str | None, extent: int | None, label: str) -> Launch:
        size_values: dict[str, int] = {s: base for s in ordered_sizes}
        if axis is not None and extent is not None:
            size_values[axis] = extent
        # Keep sizes the host keeps multiples of each other multiples.
        for a, b in facts.multiples:
            if a in size_values and a != axis and b in consts and isinstance(consts[b], int) and consts[b] > 0:
                size_values[a] = -(-size_values[a] // consts[b]) * consts[b]
        grid: list[int] = []
        for a in range(max(list(axes) + [-1]) + 1):
            size, tile_name = axes.get(a, (None, None))
            if size is not None and size in size_values:
                grid.append(max(1, -(-size_values[size] // value_of(tile_name))))
            else:
                grid.append(ROW_PROGRAMS if a in axes else 1)
        while _prod(grid) > MAX_PROGRAMS:
            i = grid.index(max(grid))
            grid[i] = max(1, grid[i] // 2)
        args: list[Arg] = []
        stride_values: dict[str, int] = dict(size_values)  # a size used as a row length keeps its value
        numels: dict[str, int] = {}
        for p, exprs in pointers.items():
            dims: list[tuple[str | None, Any]] = []
            for expr in exprs:
                for d in uses.dims(expr, sizes, strides):
                    if all(d[0] != e[0] for e in dims):
                        dims.append(d)
            extents: list[tuple[str | None, int]] = []
            for stride, bound in dims:
                extents.append((stride, _extent(bound, size_values, grid, consts, base, axes)))
            numels[p] = _layout(extents, stride_values)
        for p in uses.params:
            if p in pointers:
                index = uses.loaded_as_index(p)
                declared = uses.dtype_of(p)
                bits = not index and (uses.loaded_bits(p) or declared in ("uint8", "int8"))
                dtype = declared or ("int32" if index else "uint8" if bits else "float32")
                args.append(Arg(p, "tensor", numel=max(1, numels[p]), dtype=dtype,
                                fill="index" if index else "randint" if bits else "randn"))
            elif p in consts:
                args.append(Arg(p, "constexpr", value=consts[p]))
            elif p in heur:
                continue
            elif p in flag_args:
                args.append(Arg(p, "int", value=int(flag_args[p])))
            elif p in strides:
                args.append(Arg(p, "int", value=stride_values.get(p, 1)))
            elif p in sizes and (p in int_like or p in facts.axis_hints):
                args.append(Arg(p, "int", value=size_values[p]))
            elif p in defaults and _literal(defaults[p]) is None and _dotted(defaults[p]) == "None":
                args.append(Arg(p, "none"))
            else:
                args.append(Arg(p, "float", value=0.5))
        shown = {s: size_values[s] for s in ordered_sizes if any(a.name == s and a.kind == "int" for a in args)}
        return Launch(kernel.name, args, grid, axis, shown, label)

    pairs: list[tuple[Launch, Launch]] = []
    for axis in axis_order or [None]:
        # A tile past whole ones, a single partial tile (a row shorter than its block), one element over.
        for m, r in ((2, tile // 2), (0, tile // 2), (1, 1)):
            if axis is None or r <= 0 or r >= tile:
                continue
            # The control: the same launch with the axis a whole number of tiles.
            pairs.append((build(axis, m * tile + r, f"{axis}={m}*{tile}+{r}"),
                          build(axis, (m + 1) * tile, f"{axis}={m + 1}*{tile}")))
    if not pairs:
        pairs.append((build(None, None, "default sizes"), build(None, None, "default sizes")))
    return pairs


def _prod(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _used_in_pointer(uses: Uses, p: str) -> bool:
    return any(p in Uses._names(e) for e in uses.accesses)


def _extent(bound: Any, sizes: dict[str, int], grid: list[int], consts: dict[str, Any], base: int,
            axes: dict[int, tuple[str | None, str | None]]) -> int:
    if bound is None:
        return 1
    kind, what = bound[0], bound[1]
    if kind == "div":
        divisor = consts.get(bound[2]) if not bound[2].isdigit() else int(bound[2])
        divisor = divisor if isinstance(divisor, int) and not isinstance(divisor, bool) and divisor > 0 else 1
        return -(-_extent(what, sizes, grid, consts, base, axes) // divisor)
    if kind == "axis":
        size = axes.get(what, (None, None))[0]
        if size is not None and size in sizes:
            return sizes[size]
        tile = consts.get(bound[2]) if not bound[2].isdigit() else int(bound[2])
        tile = tile if isinstance(tile, int) and not isinstance(tile, bool) and tile > 0 else DEFAULT_TILE
        return (grid[what] if what < len(grid) else 1) * tile
    if kind == "size":
        return sizes.get(what, base)
    if kind == "grid":
        return grid[what] if isinstance(what, int) and what < len(grid) else 1
    if kind == "tile":
        v = consts.get(what)
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else DEFAULT_TILE
    if kind == "const":
        return int(what)
    return 1


def _layout(extents: list[tuple[str | None, int]], stride_values: dict[str, int]) -> int:
    """Assign contiguous strides (unit-stride terms innermost), return the buffer's element count:
    one past the offset of the last in-bounds element, `1 + sum((extent - 1) * stride)`."""
    unit = [e for s, e in extents if s is None]
    strided = [(s, e) for s, e in extents if s is not None]
    if not unit and strided and strided[-1][0] not in stride_values:
        s, e = strided.pop()
        stride_values[s] = 1
        unit = [e]
    span = 1 + sum(e - 1 for e in unit)
    for s, e in reversed(strided):
        if s not in stride_values:
            stride_values[s] = span
        span += (e - 1) * stride_values[s]
    return span


def _guess_constexpr(uses: Uses, name: str) -> Any:
    """A value for a constexpr nobody sets: a string it is compared with, False for a flag, else 16."""
    for c in uses.compares:
        if name in Uses._names(c):
            for x in [c.left, *c.comparators]:
                if isinstance(x, ast.Constant) and isinstance(x.value, str):
                    return x.value
                if isinstance(x, ast.Constant) and isinstance(x.value, bool):
                    return False
    for node in ast.walk(uses.fn):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)) and isinstance(node.test, ast.Name) and node.test.id == name:
            return False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Name) \
                and node.operand.id == name:
            return False
        if isinstance(node, ast.keyword) and node.arg == "dtype" and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return {"dtype": "float32"}
        if isinstance(node, ast.Call) and _call_name(node) == "to" and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == name:
            return {"dtype": "float32"}
    return DEFAULT_TILE
