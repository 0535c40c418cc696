"""Math functions the interpreter cannot run, computed with NumPy: `tanh`, `pow`, `atan2`, ...

Kernels call `tl.math.tanh(x)` / `tl.tanh(x)` (Triton 2.x's `tl.math` held libdevice's functions)
or `libdevice.tanh(x)` (today's spelling). Under Triton 3.6's interpreter the first two are missing
("module 'triton.language.math' has no attribute 'tanh'") and the third is a stub whose body is
`...`: it returns None, and the kernel fails later ("unsupported operand type(s) for *: 'float' and
'NoneType'"); the compiler dispatches it to the device library. Functions that `tl.math` has as a
builtin (`exp`, `rsqrt`, ...) are not touched: the interpreter runs those itself, and libdevice's
copies of them are the twins `interpreter_compat._compat_global_builtin_aliases` maps.

`compat_numpy_math` is a portable shim (see `interpreter_compat`): self-contained, its source is
carried by the generated modules and repro scripts of kernels that call one of `MATH_NAMES`.
Only the interpreter's language is patched, and only while a kernel runs (the interpreter's patch
scope restores `tl`, `tl.math` and `libdevice` after it); compiled kernels keep the device's.
"""

from __future__ import annotations

import ast

# The functions the shim supplies (its own table, inside it, must name the same: a test checks).
MATH_NAMES = ("tanh", "sinh", "cosh", "tan", "atan", "asin", "acos", "asinh", "acosh", "atanh",
              "log1p", "expm1", "log10", "cbrt", "trunc", "rint", "pow", "atan2", "hypot", "fmod", "copysign")


def compat_numpy_math() -> None:
    # Missing math functions under the interpreter: computed elementwise in float64 with NumPy, the
    # result in the floating type of the operands (float32 when none is floating), broadcast as the
    # language broadcasts (a scalar with a block, blocks of shapes (M, 1) and (1, N)).
    from typing import Any  # the generated modules evaluate the annotations

    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    # The device libraries: the generic `libdevice` (stubs the compiler dispatches) and each backend's
    # (`extra.cuda.libdevice`, `extra.hip.libdevice`: extern calls, which the interpreter cannot make).
    libraries = []
    for backend in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice",
                    "triton.language.extra.hip.libdevice"):
        try:
            libraries.append(__import__(backend, fromlist=["libdevice"]))
        except ImportError:
            pass
    inner = getattr(interp, "_patch_lang_core", None)
    installed = interp.__dict__.setdefault("_compat_shims_installed", set())
    if inner is None or "numpy_math" in installed:
        return
    installed.add("numpy_math")
    functions = {"tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh, "tan": np.tan, "atan": np.arctan,
                 "asin": np.arcsin, "acos": np.arccos, "asinh": np.arcsinh, "acosh": np.arccosh,
                 "atanh": np.arctanh, "log1p": np.log1p, "expm1": np.expm1, "log10": np.log10,
                 "cbrt": np.cbrt, "trunc": np.trunc, "rint": np.rint, "pow": np.power, "atan2": np.arctan2,
                 "hypot": np.hypot, "fmod": np.fmod, "copysign": np.copysign}

    def as_float64(data: Any, scalar: Any) -> Any:
        if scalar == tl.bfloat16:  # the interpreter holds bfloat16 as its bits, in uint16
            return (np.asarray(data).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return np.asarray(data).astype(np.float64)

    def from_float64(out: Any, scalar: Any) -> Any:
        if scalar == tl.bfloat16:  # round to nearest even, back to the bits
            bits = np.ascontiguousarray(out.astype(np.float32)).view(np.uint32).astype(np.uint64)
            bits = bits + 0x7FFF + ((bits >> 16) & 1)
            return (bits >> 16).astype(np.uint16)
        return out.astype(interp._get_np_dtype(scalar))

    def elementwise(fn: Any) -> Any:
        def call(*args: Any, **_: Any) -> Any:
            values = [tl.core._unwrap_if_constexpr(a) for a in args]
            tensors = [v for v in values if isinstance(v, tl.tensor)]
            scalar = next((t.dtype for t in tensors if t.dtype.is_floating()), tl.float32)
            operands = [as_float64(v.handle.data, v.dtype) if isinstance(v, tl.tensor)
                        else np.asarray([v], dtype=np.float64) for v in values]
            with np.errstate(all="ignore"):
                out = from_float64(np.asarray(fn(*operands)), scalar)
            block = any(t.type.is_block() for t in tensors)
            kind = tl.block_type(scalar, list(out.shape)) if block else scalar
            return tl.core.tensor(interp.TensorHandle(out, scalar), kind)

        return call

    def patched(lang: Any, scope: Any) -> None:
        inner(lang, scope)
        for home in (tl, tl.math):
            for name, fn in functions.items():
                if not tl.core.is_builtin(getattr(home, name, None)):  # the interpreter's own where it has one
                    scope.set_attr(home, name, elementwise(fn))
        for library in libraries:
            for name, fn in functions.items():
                if hasattr(library, name):
                    scope.set_attr(library, name, elementwise(fn))

    interp._patch_lang_core = patched


def calls_math(fn: ast.AST) -> bool:
    """Whether `fn` calls one of the functions the shim supplies (`tl.math.tanh`, `libdevice.pow`)."""
    return any(isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] in MATH_NAMES for n in ast.walk(fn))
