"""Keep Triton's interpreter running kernels that the compiler accepts: the one home of these shims.

Two users: verify's `InterpreterGuard` calls `install()` in the process that runs kernels, and
witness's generated modules (repro scripts that must stay torch-and-triton only) carry the source
of the *portable* shims below, as `repro_lines()` gives it, and call them at import. The portable
shims are self-contained functions for that reason: imports inside, no names of this package,
each idempotent (a mark on what it patched), so a module loaded under the guard installs nothing twice.

Portable (carried by generated modules, and installed here):

* `tl.dot(a, b, trans_a=..., trans_b=...)`: the keywords of Triton 2.0, which kernels still written
  for it pass; today's `dot` rejects them. They mean `tl.trans` of the operand first, so `tl.dot`
  becomes a builtin that accepts them and transposes (compiled or interpreted alike).
* `7 % BLOCK` with `BLOCK` a constexpr: the compiler folds both sides to Python values, the
  interpreter hands the kernel `tl.constexpr` objects, which in Triton 3.6 lack the reflected `%`,
  `<<`, `>>`, `&`, `|`, `^` of a plain int. They are added, computing on the constexpr's value as
  the compiler does.
* `tl.dot_scaled` under the interpreter (Triton 3.6's `InterpreterBuilder` has no
  `create_dot_scaled`): emulated as the language documents it, each operand upcast from its format
  (`e2m1` packed two to a byte, first element in the low nibble, along K or, unpacked along K, along
  M/N; `e4m3`, `e5m2` as fp8 bits; `bf16`, `fp16`) and multiplied by its `e8m0` scale (2**(s - 127)
  per group of 32 along K, 255 is NaN, no scale is 1), then a float32 product plus the accumulator.
  Compiled kernels keep the hardware's `dot_scaled`: only the interpreter's language is patched.
* A builtin of the language bound to a module-level name (`exp = tl.exp`, then `exp(x)` in a kernel):
  the interpreter patches builtins only as attributes of `tl`, so the alias stayed unpatched; the
  kernel's globals holding one are patched for the run too. libdevice's functions with a builtin twin
  in `tl.math` (`rsqrt`, `exp`, `erf`, ...; the interpreter has no extern calls) run as that twin,
  called through `libdevice` or through such an alias.
* `a and b`, `a or b` on tensors: the compiler joins tensor operands with `logical_and`/`logical_or`
  (a constexpr operand may end the expression early); the interpreter ran Python's operator, which
  returns one operand whole, so `(rows < M) and (cols < N)` lost its row bound. The interpreter's
  source rewriter writes each such operator as a call doing what the compiler does.
* `k.to(tl.int64)` on a value the interpreter holds as a plain Python number: a `range` loop's
  variable, or an int in a tuple assignment (`a, start = pid, 0`). The compiler makes both tensors
  (the loop's induction variable; every non-constexpr value assigned), so `.to` is a cast there;
  the interpreter keeps Python ints ("'int' object has no attribute 'to'"). Its AST rewriter already
  turns `x = value` into a tensor; the receiver of every `.to` is now turned into one too when it
  is a plain int, float or bool (as the compiler's `to_tensor` would type it); tensors and
  constexprs (which have no `.to` when compiled either) pass as they are.
* `tl.extra.cuda.num_warps()` and `num_threads()` under the interpreter: the compiler answers with
  the launch's `num_warps` option (4 when the launch gives none), which the interpreter drops; the
  launch's value is kept while it runs and returned (times 32 for threads), as the compiler would.
* `dtype.value` on a constexpr dtype (`def dtype_max(dtype: tl.constexpr): d = dtype.value`): compiled,
  the argument is a `tl.constexpr` wrapping the dtype, whose `.value` is the dtype; the interpreter
  hands the bare `tl.dtype`, which has no `value` ("'dtype' object has no attribute 'value'"). A dtype
  gets a `value` that is itself, as the constexpr's unwrapping gives.

Interpreter-only (installed here; a repro run by hand does not need them on the NumPy it was made with):

* NumPy releases where a 1-element array no longer converts to int. Triton 3.6's interpreter holds
  every scalar as a one-element array and gives `tl.tensor` an `__index__` of
  `int(self.handle.data)`; NumPy turned that conversion of an array with ndim > 0 from a
  DeprecationWarning (1.25) into a TypeError ("only 0-dimensional arrays can be converted to
  Python scalars"), so any `range(0, K, BLOCK_K)` over a runtime size fails there: `__index__`
  takes the array's single element instead.
* `~x` on an unsigned integer: the interpreter builds its all-ones operand as `np.full(1, -1,
  dtype=uint32)`, which NumPy 2 refuses ("Python integer -1 out of bounds for uint32"). All ones
  of an unsigned type is its largest value, which is what it is given.

Installed once per process, before a kernel runs.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from tritonlint.verify.interpreter_numpy_math import calls_math, compat_numpy_math

_MARK = "_tritonlint_scalar_index"

# -- portable shims: self-contained, their source is carried by generated modules ------------------


def _compat_old_dot_keywords() -> None:
    # Triton 2.0's `tl.dot(trans_a=, trans_b=)`: transpose the flagged operand before the product.
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    import triton.language as tl

    if getattr(tl.dot, "_compat_old_keywords", False):
        return
    _compat_dot_orig, _compat_trans = tl.dot, tl.trans

    def _compat_dot(input: Any, other: Any, *args: Any, trans_a: Any = False, trans_b: Any = False,
                    _semantic: Any = None, **kwargs: Any) -> Any:
        if tl.core._unwrap_if_constexpr(trans_a):
            input = _compat_trans(input, _semantic=_semantic)
        if tl.core._unwrap_if_constexpr(trans_b):
            other = _compat_trans(other, _semantic=_semantic)
        return _compat_dot_orig(input, other, *args, _semantic=_semantic, **kwargs)

    _compat_dot.__triton_builtin__ = True  # type: ignore[attr-defined]  # called with `_semantic`
    _compat_dot._compat_old_keywords = True  # type: ignore[attr-defined]
    tl.dot = _compat_dot


def _compat_global_builtin_aliases() -> None:
    # `exp = tl.exp` at module level, then `exp(x)` in a kernel: the compiler resolves the alias to the
    # builtin; the interpreter patches the builtins only as attributes of `tl`, so the alias keeps the
    # unpatched builtin ("Did you forget to add @triton.jit ?"). The kernel's globals holding a builtin
    # of the language are patched too, for the run, as the interpreter patches `tl`'s attributes.
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    try:
        import triton.language as tl
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    inner = getattr(interp, "_patch_lang", None)
    patch_attr = getattr(interp, "_patch_attr", None)
    installed = interp.__dict__.setdefault("_compat_shims_installed", set())
    if inner is None or patch_attr is None or "global_builtins" in installed:
        return
    installed.add("global_builtins")
    try:
        from triton.language.extra import libdevice
    except ImportError:
        libdevice = None
    # libdevice's functions that `tl.math` has a builtin twin of (rsqrt, exp, erf, ...): the interpreter
    # cannot run libdevice (no extern calls), the twin computes the same function. A `fast_<f>f` is the
    # fast single-precision approximation of `<f>` (`fast_expf`, `fast_logf`): its twin is `<f>`'s.
    def twin(name: str) -> Any:
        fast = name[len("fast_"):-1] if name.startswith("fast_") and name.endswith("f") else ""
        return next((n for n in (name, fast) if n and tl.core.is_builtin(getattr(tl.math, n, None))), None)

    twins = {n: t for n in dir(libdevice) if not n.startswith("_")
             and (t := twin(n)) is not None} if libdevice is not None else {}
    originals = {n: getattr(libdevice, n) for n in twins}  # as they are before a run patches them
    twin_of = {id(f): n for n, f in originals.items()}  # patched at every helper call: a lookup, not a scan

    class GlobalsView:  # the kernel's globals as an object the interpreter's patch scope can set and restore
        def __init__(self, names: Any) -> None:
            object.__setattr__(self, "names", names)

        def __getattr__(self, name: str) -> Any:
            try:
                return object.__getattribute__(self, "names")[name]
            except KeyError:
                raise AttributeError(name) from None

        def __setattr__(self, name: str, value: Any) -> None:
            object.__getattribute__(self, "names")[name] = value

        def __delattr__(self, name: str) -> None:
            del object.__getattribute__(self, "names")[name]

    def patched(fn: Any) -> Any:
        scope = inner(fn)
        for name, math_name in twins.items():  # `libdevice.rsqrt(x)`: the interpreter's `tl.math.rsqrt`
            scope.set_attr(libdevice, name, getattr(tl.math, math_name))
        names = getattr(fn, "__globals__", {})
        view = GlobalsView(names)
        for name, value in list(names.items()):
            twin = twin_of.get(id(value))
            if twin is not None and originals[twin] is value:  # `rsqrt = libdevice.rsqrt` at module level
                scope.set_attr(view, name, getattr(tl.math, twins[twin]))
            elif tl.core.is_builtin(value):
                patch_attr(view, name, value, interp.interpreter_builder, scope)
        return scope

    interp._patch_lang = patched


def _compat_constexpr_reflected() -> None:
    # `other OP constexpr`, as the compiler computes it: constexpr(other OP value); only where missing.
    import operator
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    import triton.language as tl

    for name, op in (("__rmod__", operator.mod), ("__rlshift__", operator.lshift), ("__rrshift__", operator.rshift),
                     ("__rand__", operator.and_), ("__ror__", operator.or_), ("__rxor__", operator.xor)):
        if any(name in vars(cls) for cls in tl.constexpr.__mro__[:-1]):
            continue

        def reflected(self: Any, other: Any, op: Any = op) -> Any:
            return tl.constexpr(op(tl.core._unwrap_if_constexpr(other), self.value))

        setattr(tl.constexpr, name, reflected)


def _compat_dtype_value() -> None:
    # `dtype.value` where the compiler held a `tl.constexpr(dtype)`: the dtype itself; only where missing.
    import triton.language as tl

    if not hasattr(tl.dtype, "value"):
        tl.dtype.value = property(lambda self: self)


def _compat_dot_scaled() -> None:
    # `tl.dot_scaled` under the interpreter: upcast each operand by its format and e8m0 scale, then a
    # float32 product plus the accumulator (Triton 3.6's interpreter has no `create_dot_scaled`).
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    try:
        import numpy as np
        import torch
        import triton.language as tl
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    inner = getattr(interp, "_patch_lang_core", None)
    # Marked on the interpreter module, not on the wrapper: another shim may wrap this one.
    installed = interp.__dict__.setdefault("_compat_shims_installed", set())
    if inner is None or "dot_scaled" in installed:
        return
    installed.add("dot_scaled")
    fp4 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=np.float32)
    fp4 = np.concatenate([fp4, -fp4])
    fp8 = {fmt: torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dtype).float().numpy()
           for fmt, dtype in (("e4m3", torch.float8_e4m3fn), ("e5m2", torch.float8_e5m2))}

    def value(x: Any) -> Any:
        return tl.core._unwrap_if_constexpr(x)

    # The element types the compiler accepts per format (the format's own, or its bits unsigned).
    stored = {"e2m1": (tl.uint8,), "e4m3": (tl.float8e4nv, tl.uint8), "e5m2": (tl.float8e5, tl.uint8),
              "bf16": (tl.bfloat16, tl.uint16), "fp16": (tl.float16, tl.uint16)}

    def upcast(t: Any, fmt: str, k_pack: bool, rhs: bool) -> Any:
        if fmt not in stored:
            raise NotImplementedError(f"dot_scaled format {fmt!r}")
        if t.dtype not in stored[fmt]:
            raise TypeError(f"Unexpected dtype for {fmt}. Got {t.dtype}")
        if not k_pack and fmt != "e2m1":
            raise ValueError("only mxfp4 inputs can be packed along a dimension different than K")
        data = np.asarray(t.handle.data)
        if fmt == "e2m1":
            # Two per byte, the first element in the low nibble, along K, or along M (N) when not k_pack.
            raw = data.view(np.uint8)
            low, high = fp4[raw & 0xF], fp4[raw >> 4]
            axis = (0 if rhs else 1) if k_pack else (1 if rhs else 0)
            out = np.stack([low, high], axis=axis + 1)
            shape = list(raw.shape)
            shape[axis] *= 2
            return out.reshape(shape)
        if fmt in fp8:
            return fp8[fmt][data.view(np.uint8)]
        if fmt == "bf16":
            return (data.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return data.view(np.float16).astype(np.float32)  # fp16

    def scaled(x: Any, scale: Any, rhs: bool) -> Any:
        if scale is None:
            return x
        if scale.dtype != tl.uint8:  # e4m3 scales (groups of 16) are another format
            raise NotImplementedError(f"dot_scaled with {scale.dtype} scales under the interpreter")
        s = np.asarray(scale.handle.data).astype(np.int32)  # [M or N, K // 32]
        rows, k = (x.shape[1], x.shape[0]) if rhs else x.shape
        if list(s.shape) != [rows, k // 32]:
            raise ValueError(f"{'rhs' if rhs else 'lhs'}_scale must be a tensor of shape [{rows}, {k // 32}]. "
                             f"Got {list(s.shape)}")
        factor = np.where(s == 255, np.float32(np.nan), np.exp2(np.minimum(s, 254).astype(np.float32) - 127.0)).astype(np.float32)
        factor = np.repeat(factor, 32, axis=1)  # one e8m0 scale per group of 32 along K
        return x * (factor.T if rhs else factor)

    def dot_scaled(lhs: Any, lhs_scale: Any, lhs_format: Any, rhs: Any, rhs_scale: Any,
                   rhs_format: Any, acc: Any = None, fast_math: Any = False, lhs_k_pack: Any = True,
                   rhs_k_pack: Any = True, out_dtype: Any = None, **_: Any) -> Any:
        if len(lhs.shape) != 2:
            raise NotImplementedError("dot_scaled of 3-D blocks under the interpreter")
        a = scaled(upcast(lhs, str(value(lhs_format)), bool(value(lhs_k_pack)), False), value(lhs_scale), False)
        b = scaled(upcast(rhs, str(value(rhs_format)), bool(value(rhs_k_pack)), True), value(rhs_scale), True)
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"dot_scaled reduction dimensions differ: {a.shape} and {b.shape}")
        out = np.matmul(a, b).astype(np.float32)
        acc = value(acc)
        if acc is not None:
            out = out + np.asarray(acc.handle.data, dtype=np.float32)
        shape = list(out.shape)
        return tl.core.tensor(interp.TensorHandle(out, tl.float32), tl.block_type(tl.float32, shape))

    def patched(lang: Any, scope: Any) -> None:
        inner(lang, scope)
        scope.set_attr(lang, "dot_scaled", dot_scaled)

    interp._patch_lang_core = patched


def _compat_launch_num_warps() -> None:
    # `tl.extra.cuda.num_warps()` / `num_threads()` under the interpreter: the compiler answers with
    # the launch's `num_warps` option (Triton's default 4 when the launch gives none; 32 threads a
    # warp); the interpreter drops that option and cannot answer. The launch's value is kept while it
    # runs and given back, only inside the interpreter's patched language (compiled kernels keep theirs).
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    try:
        import triton.language as tl
        from triton.language.extra import cuda
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    inner = getattr(interp, "_patch_lang_core", None)
    function = getattr(interp, "InterpretedFunction", None)
    installed = interp.__dict__.setdefault("_compat_shims_installed", set())
    if inner is None or function is None or "num_warps" in installed:
        return
    installed.add("num_warps")
    launch = {"num_warps": 4}
    run = function.run

    def run_recording(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        before = launch["num_warps"]
        launch["num_warps"] = int(kwargs.get("num_warps") or 4)
        try:
            return run(self, *args, grid=grid, warmup=warmup, **kwargs)
        finally:
            launch["num_warps"] = before

    def num_warps(**_: Any) -> Any:
        return tl.constexpr(launch["num_warps"])

    def num_threads(**_: Any) -> Any:
        return tl.constexpr(launch["num_warps"] * 32)

    def patched(lang: Any, scope: Any) -> None:
        inner(lang, scope)
        scope.set_attr(cuda, "num_warps", num_warps)
        scope.set_attr(cuda, "num_threads", num_threads)

    interp._patch_lang_core = patched
    function.run = run_recording


def _compat_bool_ops() -> None:
    # `a and b`, `a or b` in a kernel: the compiler evaluates the operands in order, lets a constexpr
    # operand end the expression early (a false one an `and`, a true one an `or`) and joins the tensor
    # operands with `logical_and`/`logical_or`. The interpreter runs Python's operator instead, which
    # takes a block tensor's truth and returns one operand whole: `(rows < M) and (cols < N)` becomes
    # `cols < N` and the row bound is lost. Its source rewriter is taught to write each such operator
    # as a call that does what the compiler does (the operands as thunks, so they are evaluated in order
    # and only as far as the compiler evaluates them).
    import ast
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    try:
        import triton.language as tl
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    rewriter = getattr(interp, "FunctionRewriter", None)
    installed = interp.__dict__.setdefault("_compat_shims_installed", set())
    if rewriter is None or "bool_ops" in installed:
        return
    installed.add("bool_ops")

    def bool_op(is_and: bool, *operands: Any) -> Any:
        tensors, value = [], None
        for operand in operands:
            value = operand()
            if not isinstance(value, tl.tensor):
                if bool(value) is not is_and:  # a false constexpr ends an `and`, a true one an `or`
                    return value
                continue
            tensors.append(value)
        if not tensors:
            return value
        joined = tensors[0]
        for other in tensors[1:]:
            joined = joined.logical_and(other) if is_and else joined.logical_or(other)
        return joined

    base = type(rewriter.ast_transformer)

    class BoolOpsAsCompiled(base):  # type: ignore[valid-type, misc]
        def visit_Assign(self, node: Any) -> Any:
            node.value = self.visit(node.value)  # the interpreter's own visit leaves the value unvisited
            return super().visit_Assign(node)

        def visit_BoolOp(self, node: Any) -> Any:
            self.generic_visit(node)
            empty = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
            thunks = [ast.Lambda(args=empty, body=value) for value in node.values]
            call = ast.Call(func=ast.Name(id="_compat_bool_op", ctx=ast.Load()),
                            args=[ast.Constant(isinstance(node.op, ast.And)), *thunks], keywords=[])
            return ast.copy_location(call, node)

    interp._compat_bool_op = bool_op  # the rewriter copies the interpreter's globals into the kernel's
    rewriter.ast_transformer = BoolOpsAsCompiled()



def _compat_scalar_casts() -> None:
    # `x.to(dtype)` with `x` a plain Python number under the interpreter (a `range` loop variable, an int
    # of a tuple assignment): the compiler holds such values as tensors, so the cast is valid there.
    # The interpreter's AST rewriter is extended to turn the receiver of `.to` into a tensor first.
    import ast as _ast
    from typing import Any  # noqa: F401 - generated modules evaluate annotations

    try:
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    rewriter = getattr(interp, "FunctionRewriter", None)
    semantic = getattr(interp, "interpreter_semantic", None)
    installed = interp.__dict__.setdefault("_compat_shims_installed", set())
    if rewriter is None or semantic is None or "scalar_casts" in installed:
        return
    installed.add("scalar_casts")

    def as_tensor(value: Any) -> Any:
        # bool before int: the compiler types a Python bool as int1
        if type(value) in (bool, int, float):
            return semantic.to_tensor(value, False)
        return value

    # The rewritten kernel's globals receive the interpreter module's names: the receiver wrapper is one.
    interp._compat_scalar_receiver = as_tensor
    base = type(rewriter.ast_transformer)

    class CastReceivers(base):  # type: ignore[misc, valid-type]
        def visit_Assign(self, node: Any) -> Any:
            # the interpreter's own visit_Assign rewrites the targets only: the value is visited here
            node.value = self.visit(node.value)
            return super().visit_Assign(node)

        def visit_Attribute(self, node: Any) -> Any:
            self.generic_visit(node)
            if node.attr == "to" and isinstance(node.ctx, _ast.Load):
                wrapped = _ast.Call(func=_ast.Name(id="_compat_scalar_receiver", ctx=_ast.Load()),
                                    args=[node.value], keywords=[])
                node.value = _ast.copy_location(wrapped, node.value)
            return node

    rewriter.ast_transformer = CastReceivers()


# What a generated module carries: the shim, and whether the kernels it holds need it.
_PORTABLE: tuple[tuple[Callable[[], None], Callable[[ast.AST], bool]], ...] = (
    (_compat_old_dot_keywords, lambda fn: uses_old_dot(fn)),  # defined below
    (_compat_constexpr_reflected, lambda fn: True),
    (_compat_global_builtin_aliases, lambda fn: True),
    (_compat_dot_scaled, lambda fn: _calls(fn, "dot_scaled")),
    (_compat_launch_num_warps, lambda fn: _calls(fn, "num_warps") or _calls(fn, "num_threads")),
    (_compat_bool_ops, lambda fn: any(isinstance(n, ast.BoolOp) for n in ast.walk(fn))),
    (_compat_scalar_casts, lambda fn: _calls(fn, "to")),
    (_compat_dtype_value, lambda fn: _reads_attribute(fn, "value")),
    (compat_numpy_math, calls_math),  # interpreter_numpy_math.py: `tanh`, `pow`, ... the interpreter lacks
)

OLD_DOT_KEYWORDS = ("trans_a", "trans_b")


def _calls(fn: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] == name for n in ast.walk(fn))


def _reads_attribute(fn: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == name for n in ast.walk(fn))


def uses_old_dot(fn: ast.AST) -> bool:
    """Whether `fn` calls a `dot` with Triton 2.0's transposition keywords."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "dot" \
                and any(k.arg in OLD_DOT_KEYWORDS for k in node.keywords):
            return True
    return False


def repro_lines(functions: list[ast.AST]) -> list[str]:
    """The lines a generated module holding the jit `functions` carries: each portable shim they need
    (its source, as installed here) and the call installing it at import."""
    lines: list[str] = []
    for shim, needed in _PORTABLE:
        if any(needed(fn) for fn in functions):
            lines += inspect.getsource(shim).rstrip("\n").split("\n") + [f"{shim.__name__}()"]
    return lines


# -- install ----------------------------------------------------------------------------------------


def install() -> None:
    from triton.runtime import interpreter as interp

    for shim, _needed in _PORTABLE:
        shim()
    _unsigned_all_ones(interp)
    patch = getattr(interp, "_patch_lang_tensor", None)
    if patch is not None and not getattr(patch, _MARK, False):
        def patched(tensor: Any, scope: Any) -> None:
            patch(tensor, scope)
            scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

        setattr(patched, _MARK, True)
        interp._patch_lang_tensor = patched


def _unsigned_all_ones(interp: Any) -> None:
    cls = interp.InterpreterBuilder
    inner = cls.get_all_ones_value
    if getattr(inner, _MARK, False):
        return

    def get_all_ones_value(self: Any, type: Any) -> Any:
        np_type = interp._get_np_dtype(type)
        if np.issubdtype(np_type, np.unsignedinteger):
            return interp.TensorHandle(np.full(1, np.iinfo(np_type).max, dtype=np_type), type.scalar)
        return inner(self, type)

    setattr(get_all_ones_value, _MARK, True)
    cls.get_all_ones_value = get_all_ones_value
