"""Keep Triton's interpreter running kernels that the compiler accepts.

* NumPy releases where a 1-element array no longer converts to int. Triton 3.6's interpreter holds
  every scalar as a one-element array and gives `tl.tensor` an `__index__` of
  `int(self.handle.data)`; NumPy turned that conversion of an array with ndim > 0 from a
  DeprecationWarning (1.25) into a TypeError ("only 0-dimensional arrays can be converted to
  Python scalars"), so any `range(0, K, BLOCK_K)` over a runtime size fails there: `__index__`
  takes the array's single element instead.
* `tl.dot(a, b, trans_a=..., trans_b=...)`: the keywords of older Triton releases, which kernels
  still written for them pass; the interpreter's `dot` rejects them. They mean `tl.trans` of the
  operand first, so that is what the interpreter is given.
* `7 % BLOCK` with `BLOCK` a constexpr: the compiler folds both sides to Python values, the
  interpreter hands the kernel `tl.constexpr` objects, which lack the reflected `%`, `<<`, `>>`,
  `&`, `|`, `^` of a plain int. They are added, computing on the constexpr's value as the
  compiler does.
* `~x` on an unsigned integer: the interpreter builds its all-ones operand as `np.full(1, -1,
  dtype=uint32)`, which NumPy 2 refuses ("Python integer -1 out of bounds for uint32"). All ones
  of an unsigned type is its largest value, which is what it is given.

Installed once per process, before a kernel runs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

_MARK = "_tritonlint_scalar_index"
# Reflected operators `tl.constexpr` lacks in some Triton releases, by the operator they reflect.
_REFLECTED: dict[str, Callable[[Any, Any], Any]] = {
    "__rmod__": operator.mod, "__rlshift__": operator.lshift, "__rrshift__": operator.rshift,
    "__rand__": operator.and_, "__ror__": operator.or_, "__rxor__": operator.xor,
}


def install() -> None:
    from triton.runtime import interpreter as interp

    _constexpr_reflected()
    _unsigned_all_ones(interp)
    patch = getattr(interp, "_patch_lang_tensor", None)
    if patch is not None and not getattr(patch, _MARK, False):
        def patched(tensor: Any, scope: Any) -> None:
            patch(tensor, scope)
            scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

        setattr(patched, _MARK, True)
        interp._patch_lang_tensor = patched
    core = getattr(interp, "_patch_lang_core", None)
    if core is not None and not getattr(core, _MARK, False):
        def patched_core(lang: Any, scope: Any) -> None:
            core(lang, scope)
            _old_dot_keywords(lang, scope)

        setattr(patched_core, _MARK, True)
        interp._patch_lang_core = patched_core


def _old_dot_keywords(lang: Any, scope: Any) -> None:
    """`lang.dot` (already the interpreter's) taking `trans_a=`/`trans_b=` as `tl.trans` of the operand."""
    inner = getattr(lang, "dot", None)
    trans = getattr(lang, "trans", None)
    if inner is None or trans is None:
        return

    def dot(a: Any, b: Any, *args: Any, trans_a: bool = False, trans_b: bool = False, **kwargs: Any) -> Any:
        return inner(trans(a) if _truth(trans_a) else a, trans(b) if _truth(trans_b) else b, *args, **kwargs)

    scope.set_attr(lang, "dot", dot)


def _truth(value: Any) -> bool:
    return bool(getattr(value, "value", value))


def _constexpr_reflected() -> None:
    import triton.language as tl

    cls = tl.constexpr
    for name, op in _REFLECTED.items():
        if name in vars(cls) or any(name in vars(base) for base in cls.__mro__[1:-1]):
            continue

        def reflected(self: Any, other: Any, op: Callable[[Any, Any], Any] = op) -> Any:
            return tl.constexpr(op(getattr(other, "value", other), self.value))

        setattr(cls, name, reflected)


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
