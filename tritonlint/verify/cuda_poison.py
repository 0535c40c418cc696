"""GPU poisoning for any harness: a PyTorch CUDA allocator that pads every allocation with fill bytes."""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass, field
from typing import Any

# Why an allocator and not a pre-filled pool: PyTorch's caching allocator rounds every request up
# and packs tensors next to each other in shared segments, so the bytes right after a tensor are
# its own rounding, a neighbour or a stale temporary (mission.md: filling the cache at start did
# not reach the bytes after the scale tensor). Here every tensor is its own cudaMalloc, and the
# bytes right after its last byte (and right before its first) hold the fill, whatever the harness
# does. The callbacks are Python (ctypes), so no compiler is needed and each allocation can be
# attributed to the harness line that made it.

_ALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int, ctypes.c_void_p)
_D2H = 2  # cudaMemcpyDeviceToHost


def _load_cudart() -> Any:
    """The CUDA runtime that torch itself loaded (same version, same primary context)."""
    with open("/proc/self/maps") as fh:
        for line in fh:
            path = line.split()[-1] if line.strip() else ""
            if "libcudart.so" in os.path.basename(path):
                return ctypes.CDLL(path)
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("libcudart not found in this process")


@dataclass
class Allocation:
    """One cudaMalloc made for the harness, and where in its code (or the tree) it was asked for."""

    seq: int
    ptr: int  # the tensor's first byte (after the head pad)
    size: int
    site: str  # "file:line in function" of the innermost frame in the tree or the harness
    args: list[str] = field(default_factory=list)  # "kernel.param" that were handed this memory
    overrun: list[str] = field(default_factory=list)  # "after"/"before": its pad was written

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "ptr": hex(self.ptr), "size": self.size, "site": self.site,
                "args": self.args, "written": self.overrun}


class PaddedAllocator:
    """Replaces PyTorch's CUDA allocator: each request of n bytes gets `pad` fill bytes on each side.

    Must be installed before the process's first CUDA allocation. Writes past either end are seen
    when the pad is checked (at free, and by `check_live` at the end of a run); reads past the end
    return the fill, which is what the differential runs look for in the outputs.
    """

    def __init__(self, fill: int, pad: int, roots: list[str]) -> None:
        if not 0 <= fill <= 255:
            raise ValueError(f"fill must be a byte, got {fill}")
        self.fill = fill
        self.pad = max(0, (pad + 511) // 512 * 512)  # keeps the tensor 512-byte aligned
        self.roots = [os.path.abspath(r) + os.sep for r in roots]
        self.live: dict[int, tuple[int, Allocation]] = {}  # ptr -> (base, record)
        self.overruns: list[Allocation] = []
        self.count = 0
        self.bytes = 0
        self.errors: list[str] = []
        self._rt = _load_cudart()
        self._rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self._rt.cudaFree.argtypes = [ctypes.c_void_p]
        self._rt.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
        self._rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        # Kept on the instance: the C side holds only the raw pointers.
        self._alloc_cb = _ALLOC(self._alloc)
        self._free_cb = _FREE(self._free)

    def install(self) -> None:
        import torch

        alloc_fn = ctypes.cast(self._alloc_cb, ctypes.c_void_p).value
        free_fn = ctypes.cast(self._free_cb, ctypes.c_void_p).value
        assert alloc_fn and free_fn
        allocator = torch._C._cuda_customAllocator(alloc_fn, free_fn)
        torch._C._cuda_changeCurrentAllocator(allocator)
        self._torch_allocator = allocator

    def _site(self) -> str:
        f: Any = sys._getframe(2)
        while f is not None:
            path = os.path.abspath(f.f_code.co_filename)
            if any(path.startswith(r) or path == r[:-1] for r in self.roots):
                return f"{path}:{f.f_lineno} in {f.f_code.co_name}"
            f = f.f_back
        return "?"

    def _alloc(self, size: int, device: int, stream: int | None) -> int:
        try:
            base = ctypes.c_void_p()
            total = size + 2 * self.pad
            err = self._rt.cudaMalloc(ctypes.byref(base), max(total, 1))
            if err != 0 or not base.value:
                return 0  # torch raises its out-of-memory error
            if self.pad:
                # Stream-ordered with whatever the caller does next with the memory.
                self._rt.cudaMemsetAsync(base, self.fill, self.pad, stream)
                self._rt.cudaMemsetAsync(base.value + self.pad + size, self.fill, self.pad, stream)
            ptr = base.value + self.pad
            self.count += 1
            self.bytes += size
            self.live[ptr] = (base.value, Allocation(self.count, ptr, size, self._site()))
            return ptr
        except BaseException as e:  # noqa: BLE001 - nothing may cross the C boundary
            self.errors.append(f"alloc: {e!r}")
            return 0

    def _pad_changed(self, base: int, rec: Allocation) -> list[str]:
        if not self.pad:
            return []
        buf = (ctypes.c_ubyte * self.pad)()
        want = bytes([self.fill]) * self.pad
        found = []
        for where, addr in (("before", base), ("after", rec.ptr + rec.size)):
            if self._rt.cudaMemcpy(buf, ctypes.c_void_p(addr), self.pad, _D2H) == 0 and bytes(buf) != want:
                found.append(where)
        return found

    def _free(self, ptr: int | None, size: int, device: int, stream: int | None) -> None:
        try:
            entry = self.live.pop(ptr or 0, None)
            if entry is None:
                return
            base, rec = entry
            self._rt.cudaDeviceSynchronize()  # the last kernel that touched it has finished
            rec.overrun = self._pad_changed(base, rec)
            if rec.overrun:
                self.overruns.append(rec)
            self._rt.cudaFree(ctypes.c_void_p(base))
        except BaseException as e:  # noqa: BLE001 - nothing may cross the C boundary
            self.errors.append(f"free: {e!r}")

    def check_live(self) -> None:
        """Check the pads of every allocation still held (the outputs, module-level tensors)."""
        self._rt.cudaDeviceSynchronize()
        for base, rec in list(self.live.values()):
            rec.overrun = self._pad_changed(base, rec)
            if rec.overrun and rec not in self.overruns:
                self.overruns.append(rec)

    def owner(self, addr: int) -> Allocation | None:
        """The live allocation holding `addr` (a kernel argument's pointer)."""
        for base, rec in self.live.values():
            if rec.ptr <= addr < rec.ptr + max(rec.size, 1):
                return rec
        return None


class LaunchRecorder:
    """Records every compiled Triton launch: the kernel, its compiled name, and its tensor arguments.

    Lets a memcheck report (which names a compiled kernel and the allocation an access ran past)
    be read back as "this kernel's parameter X ran past its tensor", and lets the padded
    allocator name the parameters that were handed each allocation.
    """

    def __init__(self, allocator: PaddedAllocator | None = None) -> None:
        self.allocator = allocator
        self.launches: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.tensors: dict[tuple[int, str, str], dict[str, Any]] = {}  # (storage base, kernel, param)
        self.errors: list[str] = []
        self._orig: Any = None

    def install(self) -> None:
        from triton.runtime.jit import JITFunction

        orig = JITFunction.run
        recorder = self

        def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            kernel = orig(self, *args, grid=grid, warmup=warmup, **kwargs)
            if not warmup:
                try:
                    recorder._record(self, args, kwargs, kernel)
                except Exception as e:  # noqa: BLE001 - bookkeeping never breaks the harness
                    recorder.errors.append(repr(e))
            return kernel

        self._orig = orig
        JITFunction.run = run

    def uninstall(self) -> None:
        if self._orig is not None:
            from triton.runtime.jit import JITFunction

            JITFunction.run = self._orig
            self._orig = None

    def _record(self, fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], kernel: Any) -> None:
        name = fn.fn.__name__
        code = fn.fn.__code__
        path = os.path.abspath(code.co_filename)
        compiled = str(getattr(kernel, "name", "") or getattr(getattr(kernel, "metadata", None), "name", ""))
        key = (path, name, compiled)
        item = self.launches.setdefault(key, {"kernel": name, "path": path, "compiled": compiled, "count": 0})
        if code.co_name != name and isinstance(getattr(fn, "src", None), str):
            # A kernel made from a source string (triton_kernels' specialize): its line numbers
            # count from `start` in `path`, not in the file that holds its text. Kept so that a
            # memcheck line can be found again in that file.
            item["generated"] = {"start": int(getattr(fn, "starting_line_number", 1) or 1), "src": fn.src}
        item["count"] += 1
        values = dict(zip(fn.arg_names, args))
        values.update({k: v for k, v in kwargs.items() if k in fn.arg_names})
        for param, value in values.items():
            # Tensors, and wrappers Triton accepts as pointers (anything with data_ptr()).
            if not callable(getattr(value, "data_ptr", None)):
                continue
            ptr = int(value.data_ptr())
            base, nbytes = ptr, None
            if callable(getattr(value, "untyped_storage", None)):
                storage = value.untyped_storage()
                base, nbytes = storage.data_ptr(), storage.nbytes()
            self.tensors.setdefault((ptr, name, param), {
                "kernel": name, "path": path, "compiled": compiled, "param": param, "ptr": ptr,
                "storage": base, "nbytes": nbytes, "dtype": str(getattr(value, "dtype", "?")),
                "shape": [int(d) for d in getattr(value, "shape", ())]})
            if self.allocator is not None:
                rec = self.allocator.owner(ptr)
                if rec is not None and f"{name}.{param}" not in rec.args:
                    rec.args.append(f"{name}.{param}")

    def to_dict(self) -> dict[str, Any]:
        return {"launches": list(self.launches.values()), "errors": self.errors[:20],
                "tensors": [{**t, "storage": hex(t["storage"]), "ptr": hex(t["ptr"])}
                            for t in self.tensors.values()]}
