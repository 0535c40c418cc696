"""Exact out-of-bounds detection and fill-byte poisoning inside Triton 3.6's CPU interpreter."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import asdict, dataclass, field
from types import FrameType
from typing import Any, Self

import numpy as np

# The interpreter module is imported lazily (inside install) so that importing this file never
# needs triton; the child process imports it only when TRITON_INTERPRET=1 is in force.

_VERIFY_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Region:
    """One host storage handed to a launch: the only bytes its tensor arguments may touch."""

    names: list[str]  # every argument sharing this storage (views of one tensor share it)
    start: int  # host address of the storage's first byte (inside our arena)
    nbytes: int
    itemsize: int  # element size of the first tensor argument seen on this storage
    dtype: str
    offset: int = 0  # byte offset of the storage inside the arena

    @property
    def end(self) -> int:
        return self.start + self.nbytes

    @property
    def name(self) -> str:
        return self.names[0]


@dataclass
class Violation:
    """Out-of-bounds lanes of one access site, aggregated over programs and loop iterations."""

    kernel: str  # the launched @triton.jit function
    kernel_path: str
    path: str  # file of the Python frame that executed the access (kernel or jit helper)
    line: int
    function: str
    kind: str  # "load", "store" or "atomic"
    tensor: str  # argument whose storage the pointer ran past (the nearest one)
    direction: str  # "after" (past the end) or "before" (before the start)
    max_elements: int  # furthest lane, in elements of the accessed type (1 = first element past)
    min_elements: int
    lanes: int  # out-of-bounds lanes summed over all executions of the site
    executions: int  # how many times the site ran with at least one such lane
    element_type: str
    tensor_elements: int  # size of that storage in elements of the accessed type
    stack: list[tuple[str, int, str]] = field(default_factory=list)
    # Of those executions, how many also had active lanes inside this same tensor: a tile lying across
    # its edge (a partial tail tile), where an overrun by whole tiles has none (the witness tells them apart).
    straddles: int = 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stack"] = [list(s) for s in self.stack]
        return d

    def describe(self) -> str:
        where = "past the end of" if self.direction == "after" else "before the start of"
        return (f"{self.path}:{self.line}: {self.kind} in {self.kernel} reads/writes up to "
                f"{self.max_elements} element(s) {where} `{self.tensor}` "
                f"({self.lanes} lane(s) in {self.executions} execution(s))").replace(
                    "reads/writes", "reads" if self.kind == "load" else "writes")


@dataclass
class _Launch:
    kernel: str
    kernel_path: str
    regions: list[Region] = field(default_factory=list)
    arena: Any = None  # torch uint8 tensor holding every storage, spaced by red zones
    slots: list[tuple[Any, Region]] = field(default_factory=list)  # (device storage, region)


def _mask_data(mask: Any) -> Any:
    """A mask's lanes: a TensorHandle's data, or the bare numpy array that block pointers'
    materialize_pointers (create_tensor_pointer_load/store) passes instead."""
    return mask.data if hasattr(mask, "dtype") and hasattr(mask, "data") and not isinstance(mask, np.ndarray) \
        else mask


def _like_mask(interp: Any, mask: Any, data: Any) -> Any:
    """`data` in the same form as `mask` (TensorHandle or bare array)."""
    if isinstance(mask, np.ndarray):
        return data
    return interp.TensorHandle(data, mask.dtype)


def fill_scalar(fill: int, dtype: np.dtype[Any]) -> Any:
    """The value an element of `dtype` has when every one of its bytes is `fill`."""
    if dtype == np.bool_:
        return np.bool_(fill != 0)
    return np.frombuffer(bytes([fill]) * dtype.itemsize, dtype=dtype)[0]


class InterpreterGuard:
    """Patches the interpreter so every unmasked lane of a load or store is bounds-checked.

    Use as a context manager around code that launches interpreted kernels. `fill` is the byte
    out-of-bounds loads return (what a GPU would read if that memory held it); out-of-bounds
    stores are dropped. Both are recorded in `violations`.
    """

    def __init__(self, fill: int = 0, red_zone: int = 16 << 20) -> None:
        if not 0 <= fill <= 255:
            raise ValueError(f"fill must be a byte, got {fill}")
        self.fill = fill
        # Storages are copied into one arena with `red_zone` unused bytes on each side, so an
        # overread lands in our own (never touched, lazily mapped) memory rather than in a
        # neighbouring tensor, and "nearest storage" names the tensor it came from exactly for
        # any overrun shorter than the red zone. malloc'd CPU tensors are often adjacent, which
        # is why checking against the caller's own allocations would miss overreads.
        self.red_zone = red_zone
        self._violations: dict[tuple[Any, ...], Violation] = {}
        self.launches: dict[tuple[str, str], int] = {}
        # Distinct (module, kernel, signature, constexprs) launched, so the same kernels can be
        # compiled for sm_90 afterwards in a process without TRITON_INTERPRET.
        self.specs: dict[str, dict[str, Any]] = {}
        self._local = threading.local()
        self._saved: list[tuple[Any, str, Any]] = []

    # -- public -----------------------------------------------------------------------------

    @property
    def violations(self) -> list[Violation]:
        return sorted(self._violations.values(), key=lambda v: (v.path, v.line, v.kind, v.tensor))

    def __enter__(self) -> Self:
        self.install()
        return self

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    def install(self) -> None:
        from triton.runtime import interpreter as interp

        from tritonlint.verify import interpreter_compat

        interpreter_compat.install()
        if self._saved:
            return
        guard = self
        builder_cls = interp.InterpreterBuilder
        grid_cls = interp.GridExecutor
        orig_masked_load = builder_cls.create_masked_load
        orig_masked_store = builder_cls.create_masked_store
        orig_atomic_rmw = builder_cls.create_atomic_rmw
        orig_atomic_cas = builder_cls.create_atomic_cas
        orig_call = grid_cls.__call__

        # create_load/create_store/tensor-pointer/descriptor ops all funnel into the masked
        # variants, so patching these two covers every plain memory access.
        def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, cache_modifier: Any,
                               eviction_policy: Any, is_volatile: Any) -> Any:
            oob = guard._check("load", ptrs, mask)
            if oob is None:
                return orig_masked_load(self, ptrs, mask, other, cache_modifier, eviction_policy,
                                        is_volatile)
            active = np.broadcast_to(_mask_data(mask), ptrs.data.shape) & ~oob
            ret = orig_masked_load(self, ptrs, _like_mask(interp, mask, active), other,
                                   cache_modifier, eviction_policy, is_volatile)
            data = np.array(ret.data, copy=True)
            data[oob] = fill_scalar(guard.fill, data.dtype)
            return interp.TensorHandle(data, ret.dtype)

        def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, cache_modifier: Any,
                                eviction_policy: Any) -> Any:
            oob = guard._check("store", ptrs, mask)
            if oob is not None:
                # Dropped: on the GPU the write would corrupt a neighbour; here it is only reported.
                mask = _like_mask(interp, mask, np.broadcast_to(_mask_data(mask), ptrs.data.shape) & ~oob)
            return orig_masked_store(self, ptrs, value, mask, cache_modifier, eviction_policy)

        def create_atomic_rmw(self: Any, rmwOp: Any, ptr: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Any:
            oob = guard._check("atomic", ptr, mask)
            if oob is None:
                return orig_atomic_rmw(self, rmwOp, ptr, val, mask, sem, scope)
            mask = _like_mask(interp, mask, np.broadcast_to(_mask_data(mask), ptr.data.shape) & ~oob)
            ret = orig_atomic_rmw(self, rmwOp, ptr, val, mask, sem, scope)
            data = np.array(ret.data, copy=True)
            data[np.broadcast_to(oob, data.shape)] = fill_scalar(guard.fill, data.dtype)
            return interp.TensorHandle(data, ret.dtype)

        def create_atomic_cas(self: Any, ptr: Any, cmp: Any, val: Any, sem: Any, scope: Any) -> Any:
            # No mask operand exists; the lane still runs (inside our red zone) but is reported.
            guard._check("atomic", ptr, None)
            return orig_atomic_cas(self, ptr, cmp, val, sem, scope)

        def grid_call(self: Any, *args_dev: Any, **kwargs: Any) -> Any:
            fn = self.fn
            launch = _Launch(getattr(fn, "__name__", "?"),
                             os.path.abspath(getattr(getattr(fn, "__code__", None), "co_filename", "?")))
            key = (launch.kernel_path, launch.kernel)
            guard.launches[key] = guard.launches.get(key, 0) + 1
            guard._record_spec(self, args_dev, kwargs)
            prev = getattr(guard._local, "launch", None)
            guard._local.launch = launch
            try:
                return orig_call(self, *args_dev, **kwargs)
            finally:
                guard._local.launch = prev

        def init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
            return guard._init_args_hst(interp, self, args_dev, kwargs)

        def restore_args_dev(self: Any, args_dev: Any, args_hst: Any, kwargs: Any, kwargs_hst: Any) -> Any:
            return guard._restore_args_dev()

        for cls, name, new in (
            (builder_cls, "create_masked_load", create_masked_load),
            (builder_cls, "create_masked_store", create_masked_store),
            (builder_cls, "create_atomic_rmw", create_atomic_rmw),
            (builder_cls, "create_atomic_cas", create_atomic_cas),
            (grid_cls, "__call__", grid_call),
            (grid_cls, "_init_args_hst", init_args_hst),
            (grid_cls, "_restore_args_dev", restore_args_dev),
        ):
            self._saved.append((cls, name, cls.__dict__[name]))
            setattr(cls, name, new)

    def uninstall(self) -> None:
        for cls, name, old in reversed(self._saved):
            setattr(cls, name, old)
        self._saved.clear()

    def _record_spec(self, executor: Any, args_dev: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        import inspect
        import json

        from triton.runtime.jit import mangle_type

        fn = executor.fn
        spec: dict[str, Any] = {"module": getattr(fn, "__module__", None), "kernel": fn.__name__,
                                "path": os.path.abspath(fn.__code__.co_filename),
                                "signature": {}, "constexprs": {}, "unsupported": None}
        try:
            argspec = inspect.getfullargspec(fn)
            kw = {k: v for k, v in kwargs.items() if k in argspec.args}
            bound = inspect.getcallargs(fn, *args_dev, **kw)
            for name in executor.arg_names:
                value = bound.get(name)
                if name in executor.constexprs:
                    if value is None or isinstance(value, (bool, int, float, str)):
                        spec["constexprs"][name] = value
                    else:
                        spec["unsupported"] = f"constexpr {name} = {type(value).__name__}"
                elif isinstance(value, tuple) or value is None:
                    spec["unsupported"] = f"argument {name} is a {type(value).__name__}"
                else:
                    spec["signature"][name] = mangle_type(value)
        except Exception as e:  # noqa: BLE001 - never let bookkeeping break the harness
            spec["unsupported"] = f"could not record the launch: {e!r}"
        self.specs.setdefault(json.dumps(spec, sort_keys=True, default=str), spec)

    # -- host copies ------------------------------------------------------------------------

    def _init_args_hst(self, interp: Any, executor: Any, args_dev: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Replacement for GridExecutor._init_args_hst: same host copies, laid out in an arena."""
        import torch

        launch: _Launch | None = getattr(self._local, "launch", None)
        if launch is None:  # called outside a guarded __call__; keep bookkeeping consistent
            launch = _Launch(getattr(executor.fn, "__name__", "?"), "?")
            self._local.launch = launch
        slots: dict[int, tuple[Any, Region]] = {}
        order: list[int] = []

        def collect(arg: Any, name: str) -> None:
            if isinstance(arg, tuple):
                for i, a in enumerate(arg):
                    collect(a, f"{name}[{i}]")
            elif isinstance(arg, interp.TensorDescriptor):
                collect(arg.base, name)
            elif hasattr(arg, "data_ptr"):
                t = interp._unwrap_tensor(arg)
                st = t.untyped_storage()
                key = st.data_ptr()
                if key not in slots:
                    slots[key] = (st, Region([name], 0, st.nbytes(), t.element_size(), str(t.dtype)))
                    order.append(key)
                elif name not in slots[key][1].names:
                    slots[key][1].names.append(name)

        names = list(executor.arg_names)
        for i, a in enumerate(args_dev):
            collect(a, names[i] if i < len(names) else f"arg{i}")
        for k, v in kwargs.items():
            collect(v, k)

        # Layout: [red zone][storage 0][2 red zones][storage 1]...[red zone]; 128-byte aligned
        # so every dtype's storage offset stays a whole number of elements.
        offset = self.red_zone
        for key in order:
            region = slots[key][1]
            region.offset = offset
            offset += -(-max(region.nbytes, 1) // 128) * 128 + 2 * self.red_zone
        arena = torch.empty(offset, dtype=torch.uint8)
        base = arena.data_ptr()
        launch.arena = arena
        launch.regions = []
        launch.slots = []
        for key in order:
            st, region = slots[key]
            region.start = base + region.offset
            if region.nbytes:
                src = torch.empty(0, dtype=torch.uint8, device=st.device).set_(st, 0, (region.nbytes,), (1,))
                arena[region.offset:region.offset + region.nbytes].copy_(src)
            launch.regions.append(region)
            launch.slots.append((st, region))
        arena_storage = arena.untyped_storage()
        by_key = {key: slots[key][1] for key in order}

        def to_cpu(arg: Any) -> Any:
            if isinstance(arg, tuple):
                return interp._tuple_create(arg, map(to_cpu, arg))
            if isinstance(arg, interp.TensorDescriptor):
                return interp.TensorDescriptor(to_cpu(arg.base), arg.shape, arg.strides,
                                               arg.block_shape, arg.padding)
            if not hasattr(arg, "data_ptr"):
                return arg
            t = interp._unwrap_tensor(arg)
            region = by_key[t.untyped_storage().data_ptr()]
            cpu = t.new_empty(0, device="cpu")
            cpu.set_(arena_storage, region.offset // t.element_size() + t.storage_offset(),
                     t.size(), t.stride())
            return interp._rewrap_tensor(cpu, original_tensor=arg)

        args_hst = [to_cpu(a) for a in args_dev]
        kwargs_hst = {k: to_cpu(v) for k, v in kwargs.items()}
        return args_hst, kwargs_hst

    def _restore_args_dev(self) -> None:
        """Replacement for GridExecutor._restore_args_dev: copy every storage back, as triton does."""
        import torch

        launch: _Launch | None = getattr(self._local, "launch", None)
        if launch is None or launch.arena is None:
            return
        for st, region in launch.slots:
            if region.nbytes:
                dst = torch.empty(0, dtype=torch.uint8, device=st.device).set_(st, 0, (region.nbytes,), (1,))
                dst.copy_(launch.arena[region.offset:region.offset + region.nbytes])
        launch.arena = None
        launch.slots = []

    # -- the check --------------------------------------------------------------------------

    def _check(self, kind: str, ptrs: Any, mask: Any) -> np.ndarray[Any, Any] | None:
        """Return a bool array of out-of-bounds active lanes (None when there are none)."""
        launch: _Launch | None = getattr(self._local, "launch", None)
        if launch is None or not launch.regions:
            return None
        p = np.asarray(ptrs.data)
        if p.dtype != np.uint64:
            return None
        elem_ty = ptrs.get_element_ty()
        bits = getattr(elem_ty, "primitive_bitwidth", 64) if not hasattr(elem_ty, "element_ty") else 64
        isz = max(1, bits // 8)
        active = np.ones(p.shape, dtype=bool) if mask is None else np.broadcast_to(
            np.asarray(_mask_data(mask), dtype=bool), p.shape)
        inb = np.zeros(p.shape, dtype=bool)
        for r in launch.regions:
            inb |= (p >= np.uint64(r.start)) & (p + np.uint64(isz) <= np.uint64(r.end))
        oob = active & ~inb
        if not oob.any():
            return None
        self._record(launch, kind, p[oob].astype(np.int64), isz, str(elem_ty), p[active & inb].astype(np.int64))
        return np.asarray(oob, dtype=bool)

    def _record(self, launch: _Launch, kind: str, addrs: np.ndarray[Any, Any], isz: int, elem: str,
                inside: np.ndarray[Any, Any] | None = None) -> None:
        stack = _kernel_stack()
        path, line, func = stack[0] if stack else (launch.kernel_path, 0, launch.kernel)
        # Distance of each lane to each storage, in bytes beyond its edge; the nearest one is the
        # tensor the pointer was derived from (see the red-zone note in __init__).
        dists = np.stack([np.where(addrs < r.start, r.start - addrs, addrs + isz - r.end)
                          for r in launch.regions])
        nearest = np.argmin(dists, axis=0)
        for ri in np.unique(nearest):
            r = launch.regions[int(ri)]
            lanes = addrs[nearest == ri]
            for direction, sel in (("before", lanes < r.start), ("after", lanes >= r.start)):
                if not sel.any():
                    continue
                a = lanes[sel]
                if direction == "after":
                    elems = -(-(a + isz - r.end) // isz)
                else:
                    elems = -(-(r.start - a) // isz)
                key = (launch.kernel_path, launch.kernel, path, line, kind, r.name, direction)
                v = self._violations.get(key)
                if v is None:
                    v = Violation(launch.kernel, launch.kernel_path, path, line, func, kind, r.name,
                                  direction, int(elems.max()), int(elems.min()), 0, 0, elem,
                                  r.nbytes // isz, stack)
                    self._violations[key] = v
                v.max_elements = max(v.max_elements, int(elems.max()))
                v.min_elements = min(v.min_elements, int(elems.min()))
                v.lanes += int(a.size)
                v.executions += 1
                if inside is not None and bool(((inside >= r.start) & (inside < r.end)).any()):
                    v.straddles += 1


def _kernel_stack() -> list[tuple[str, int, str]]:
    """User frames between the interpreter's memory op and GridExecutor, innermost first."""
    import triton

    triton_dir = os.path.dirname(os.path.abspath(triton.__file__))
    out: list[tuple[str, int, str]] = []
    f: FrameType | None = sys._getframe(2)
    while f is not None:
        fname = f.f_code.co_filename
        absf = os.path.abspath(fname) if not fname.startswith("<") else fname
        if absf.startswith(triton_dir):
            # GridExecutor.__call__ is where the interpreted kernel was entered: stop there.
            if f.f_code.co_name == "__call__" and absf.endswith(os.path.join("runtime", "interpreter.py")) \
                    and "self" in f.f_locals and hasattr(f.f_locals["self"], "grid"):
                break
        elif not absf.startswith(_VERIFY_DIR) and not f.f_globals.get("GUARD_TRANSPARENT"):
            out.append((absf, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return out
