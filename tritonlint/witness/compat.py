"""Old Triton keyword arguments the installed Triton dropped, mapped to what they meant.

`tl.dot(a, b, trans_a=..., trans_b=...)` (Triton 2.0) multiplied `a` and `b` after transposing
the ones flagged: exactly `tl.dot(tl.trans(a), tl.trans(b))` for the flagged operands. Kernels still
written that way do not run under today's interpreter (`dot() got an unexpected keyword argument
'trans_b'`), so the generated module installs a `tl.dot` that accepts them and transposes, and
nothing else changes: the other arguments pass through as they are.

`tl.constexpr` in Triton 3.6 has `__mod__`, `__lshift__`, `__rshift__`, `__and__`, `__xor__` but
not their reflected forms, so `5 % BLOCK` (a plain int on the left, as the interpreter leaves
literals) raises `unsupported operand type(s) for %: 'int' and 'constexpr'` under the interpreter,
while the compiler, which wraps the literal in a constexpr first, computes `constexpr(5 % BLOCK)`.
The generated module adds the reflected forms with that same value, and only where missing.
"""

from __future__ import annotations

import ast

# Installed only in modules whose kernels use the old keywords (so other repros stay plain).
DOT_SHIM = '''\
def _compat_dot(input, other, *args, trans_a=False, trans_b=False, _semantic=None, **kwargs):
    # Triton 2.0's `trans_a`/`trans_b`: transpose the operand before the product.
    if tl.core._unwrap_if_constexpr(trans_a):
        input = _compat_trans(input, _semantic=_semantic)
    if tl.core._unwrap_if_constexpr(trans_b):
        other = _compat_trans(other, _semantic=_semantic)
    return _compat_dot_orig(input, other, *args, _semantic=_semantic, **kwargs)
_compat_dot_orig, _compat_trans = tl.dot, tl.trans
_compat_dot.__triton_builtin__ = True
tl.dot = _compat_dot'''

CONSTEXPR_SHIM = '''\
def _compat_reflected(op):
    # `other OP constexpr`, as the compiler computes it: constexpr(other OP value).
    return lambda self, other: tl.constexpr(op(tl.core._unwrap_if_constexpr(other), self.value))
for _name, _op in (("mod", lambda a, b: a % b), ("lshift", lambda a, b: a << b), ("rshift", lambda a, b: a >> b),
                   ("and", lambda a, b: a & b), ("xor", lambda a, b: a ^ b), ("or", lambda a, b: a | b)):
    if not hasattr(tl.constexpr, f"__r{_name}__"):
        setattr(tl.constexpr, f"__r{_name}__", _compat_reflected(_op))'''

OLD_DOT_KEYWORDS = ("trans_a", "trans_b")


def uses_old_dot(fn: ast.AST) -> bool:
    """Whether `fn` calls a `dot` with Triton 2.0's transposition keywords."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "dot" \
                and any(k.arg in OLD_DOT_KEYWORDS for k in node.keywords):
            return True
    return False
