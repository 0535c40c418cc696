"""Launches with padded rows, for validating a fix where the plain launch is no oracle.

On a launch whose rows are packed (row stride = row length), an unmasked over-read of a row's partial
tail lands in the next row, inside the tensor: the guard sees nothing to zero-fill, the original
reads real data there, and its outputs differ from a correctly masked fix's. Give the rows a stride
longer than the row (padding at least a tile), and the over-read leaves the row into its padding.
The original runs with the padding zero bits (what the guard's zero fill gives past a tensor); the
fixed kernel runs with it poisoned (all bits set: NaN in every float type), so a fix that still
reads past the row shows in its outputs. Only the rows' valid prefixes are compared.
"""

from __future__ import annotations

import dataclasses

from tritonlint.witness.extract import Extracted
from tritonlint.witness.synth import Arg, Launch
from tritonlint.witness.uses import Uses


def padded_rows(extracted: Extracted, launch: Launch, pad: int) -> tuple[Launch, Launch] | None:
    """(the original's launch, padding zero bits; the fixed kernel's, padding poisoned), where the launch
    has row strides equal to the size it makes partial and every tensor laid out with them is a plain
    matrix (rows of that stride, unit-stride columns); else None."""
    if launch.axis is None or launch.axis not in launch.sizes:
        return None
    extent = launch.sizes[launch.axis]
    uses = Uses(extracted.kernel, extracted.helpers)
    pointers = uses.pointers()
    strides = uses.stride_params() - set(pointers)
    ints = {a.name: a.value for a in launch.args if a.kind == "int"}
    rows = {name for name, value in ints.items() if name in strides and value == extent}
    if not rows or extent <= 0:
        return None
    sizes = {a.name for a in launch.args if a.kind == "int"} - strides
    laid_out: set[str] = set()
    for p, exprs in pointers.items():
        dims = [d for expr in exprs for d in uses.dims(expr, sizes, strides) if d != (None, None)]
        used = {stride for stride, _bound in dims if stride in rows}
        if not used:
            continue
        others = {stride for stride, _bound in dims if stride is not None and stride not in rows}
        # Another stride (a batch's, a head's) counts elements of packed rows: padding would break it.
        if any(ints.get(o, 1) != 1 for o in others if not o.isdigit()) or any(o.isdigit() and o != "1" for o in others):
            return None
        laid_out.add(p)
    if not laid_out:
        return None
    length = extent + pad

    def build(poison: bool) -> Launch:
        args: list[Arg] = []
        for a in launch.args:
            if a.name in rows:
                args.append(dataclasses.replace(a, value=length))
            elif a.name in laid_out and a.kind == "tensor":
                numel = -(-a.numel // extent) * length
                args.append(dataclasses.replace(a, numel=numel, pad=(length, extent), pad_poison=poison))
            else:
                args.append(a)
        return dataclasses.replace(launch, args=args, label=f"{launch.label}, rows padded to {length}")

    return build(False), build(True)


def in_padding(launch: Launch, name: str, where: list[int]) -> bool:
    """Whether every flat index `where` of tensor `name` lies in its rows' padding."""
    arg = next((a for a in launch.args if a.name == name), None)
    if arg is None or arg.pad is None:
        return False
    length, valid = arg.pad
    return bool(where) and all(i % length >= valid for i in where)
