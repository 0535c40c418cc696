"""A program's own scratch page: `P + pid * (BLOCK_M * BLOCK_N) + rows[:, None] * BLOCK_N +
cols[None, :]` with `rows`, `cols` bare aranges. Each program owns one page of exactly its block
sizes (a buffer the grid sizes), and block offsets over two or more dimensions stay inside it. A
row stride that is a block size, not the tensor's, tells a page from a tile."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.ir import LOOP_PREFIX, Access, Fact, Loop, Walk
from tritonlint.semantic.paths import Path
from tritonlint.source.tree import names_in, terms

if TYPE_CHECKING:
    from tritonlint.semantic.stages import Stages

_NOT_VARIABLES = {"tl", "None", "True", "False"}


def fact(kernel: Stages, access: Access, walk: Walk) -> Fact | None:
    if walk.loop is not None or walk.dim is None or not walk.dim.startswith("arange("):
        return None
    ev = kernel.ev
    pointer_dims = ev.dims(access.pointer, access.order, access.path, access.loops)
    offsets = [key for key in pointer_dims if not key.startswith(LOOP_PREFIX)]
    if len(offsets) < 2 or not all(key.startswith("arange(") and key in ev.dim_size for key in offsets):
        return None
    sizes = {token for key in offsets for token in re.findall(r"[^\W\d]\w*", ev.dim_size[key])}
    pages = 0
    for term, order, path, loops in _pointer_terms(kernel, access.pointer, access.order, access.path, access.loops, 0):
        term_dims = ev.dims(term, order, path, loops)
        if any(not key.startswith(LOOP_PREFIX) for key in term_dims):
            # block offsets: only compile-time sizes may scale them (`rows[:, None] * BLOCK_N`)
            others = set(names_in(term)) - sizes - _NOT_VARIABLES - _offset_names(kernel, term, order, path, loops)
            if any(not ev.constexpr(name) for name in others):
                return None
            continue
        if not term_dims:
            continue  # the buffer itself, or a constant
        names = set(names_in(term)) - _NOT_VARIABLES
        indices = {name for name in names if name not in sizes}
        if not sizes <= names or not indices or any(
                any(not key.startswith(LOOP_PREFIX) for key in ev.dims(cst.Name(name), order, path, loops))
                or ev.runtime_stride(name) for name in indices):
            return None
        pages += 1
    if pages != 1:
        return None
    return Fact("scratch-page", "the program writes its own page of exactly its block sizes "
                f"({' x '.join(sorted(sizes))}): block offsets stay inside it")


def _pointer_terms(kernel: Stages, node: cst.BaseExpression, order: int, path: Path, loops: tuple[Loop, ...],
                   depth: int) -> list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]]:
    """The summands of a pointer, looking through names with one definition."""
    found: list[tuple[cst.BaseExpression, int, Path, tuple[Loop, ...]]] = []
    for term in terms(node):
        defs = [d for d in kernel.flow.reaching(term.value, order, path, loops) if d.kind != "param"] \
            if isinstance(term, cst.Name) and depth < 4 else []
        value = defs[0].value if len(defs) == 1 and defs[0].kind == "assign" else None
        if value is not None:
            found.extend(_pointer_terms(kernel, value, defs[0].order, defs[0].path, defs[0].loops, depth + 1))
        else:
            found.append((term, order, path, loops))
    return found


def _offset_names(kernel: Stages, term: cst.BaseExpression, order: int, path: Path,
                  loops: tuple[Loop, ...]) -> set[str]:
    """Names in a term that hold block offsets themselves (`rows`, `cols`)."""
    return {name for name in names_in(term)
            if any(not key.startswith(LOOP_PREFIX) for key in kernel.ev.dims(cst.Name(name), order, path, loops))}
