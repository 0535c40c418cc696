"""The value for a scalar parameter the synthesizer has no size, stride or flag reading for, where the
kernel or its host says it is an integer: a launch that passes a float there runs other arithmetic than
the real one (`a_idx * a_batch1` stored as an index becomes a float; `offset % out_batch1` a float
remainder). Without such a sign the parameter stays a float value (data: a scale, an epsilon).

An integer is what the kernel declares (`a_batch1: tl.int64`, `n: int`), what the host passes as an
int literal (`kernel[grid](x, 0, ...)`) or as a size it reads (`x.shape[0]`, `x.numel()`, directly or
through a local of the launching function), what the kernel's own default is, or a parameter the kernel
feeds to integer-only arithmetic (`t % width`, `t // width`, shifts, bitwise operators)."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from tritonlint.witness.int_literals import int_literal

_INT_TYPES = frozenset({"int", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
_INT_ONLY_OPS = (ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
_SIZE_CALLS = frozenset({"numel", "size", "stride", "dim", "element_size", "len", "cdiv", "next_power_of_2"})
NEUTRAL = 1  # neither a zero divisor nor a scale that hides what the other operand is


def int_scalar(fn: ast.FunctionDef, param: str, passed: str | None, host: Mapping[str, str], default: Any,
               size: int | None) -> int | None:
    """The int to launch `param` with, or None where nothing says it is an integer: the host's int literal
    (`passed`, the launch's text for it, None where it passes none), else the kernel's default literal
    (`default`), else the size the synthesizer gives it (`size`, the value shown beside the others), else 1.
    `host` is the launching function's locals (name -> the text assigned), for a name the launch passes."""
    literal = _int_literal(passed)
    for value in (literal, default):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    arg = next((a for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs] if a.arg == param), None)
    if arg is None:
        return None
    declared = arg.annotation is not None and _annotated_int(arg.annotation)
    measured = _host_size(passed) or _host_size(host.get((passed or "").strip()))
    if not (declared or measured or _in_int_only_arithmetic(fn, param)):
        return None
    return size if size is not None and size > 0 else NEUTRAL


def _int_literal(text: str | None) -> int | None:
    return int_literal(_parsed(text))


def _host_size(text: str | None) -> bool:
    """A host text that is an int by what it reads: `x.shape[0]`, `x.size(1)`, `x.numel()`, `len(x)`,
    `x.stride(0)`, `triton.cdiv(n, b)`."""
    node = _parsed(text)
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            node.func.id if isinstance(node.func, ast.Name) else ""
        return name in _SIZE_CALLS
    return False


def _parsed(text: str | None) -> ast.expr | None:
    if not text:
        return None
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


def _annotated_int(annotation: ast.expr) -> bool:
    """`tl.int64`, `tl.uint32`, `int`: the last name of the annotation is an integer type."""
    text = ast.unparse(annotation).replace("'", "").replace('"', "")
    return text.rpartition(".")[2] in _INT_TYPES


def _in_int_only_arithmetic(fn: ast.FunctionDef, param: str) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, _INT_ONLY_OPS) and any(
                isinstance(side, ast.Name) and side.id == param for side in (node.left, node.right)):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.op, _INT_ONLY_OPS) \
                and isinstance(node.value, ast.Name) and node.value.id == param:
            return True
    return False
