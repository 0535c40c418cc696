"""What TL104's readings share: the kernel's stages, the memos, and text helpers for comparing bounds."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import libcst as cst

from tritonlint.semantic.broadcasts import Broadcasts
from tritonlint.semantic.ir import Access
from tritonlint.semantic.paths import Path
from tritonlint.source.names import code_of
from tritonlint.source.tree import names_in

if TYPE_CHECKING:
    from tritonlint.semantic.context import KernelContext

# A packed tile's block size: `BLOCK_K // 2`, `BLOCK_N // PACK`.
PACKED = re.compile(r"\(?(\w+)\)?//\(?\w+\)?")


class Reading:
    """The kernel's stages and the memos every shape's reading uses."""

    def __init__(self, kernel: KernelContext) -> None:
        self.kernel = kernel
        self.ev, self.flow, self.walker = kernel.ev, kernel.flow, kernel.walker
        self._moved_memo: dict[Access, frozenset[str]] = {}
        self._summand_memo: dict[tuple[int, int, Path], tuple[cst.BaseExpression,
                                                              list[tuple[cst.BaseExpression, frozenset[str]]]]] = {}
        self.broadcasts = Broadcasts(kernel.ir, kernel.flow, kernel.ev)

    def _text(self, node: cst.BaseExpression) -> str:
        """An expression as written, on one line."""
        return " ".join(self.kernel.module.code_for_node(node).split())

    def _reads(self, node: cst.BaseExpression, access: Access) -> set[str]:
        """The names an expression is computed from, itself included."""
        return set(names_in(node)) | set(self.flow.build_chain(node, access.order, access.path, access.loops))


def unbroadcast(node: cst.BaseExpression) -> cst.BaseExpression:
    """`offs[:, None]` read as `offs`: a broadcast keeps the units."""
    return node.value if type(node) is cst.Subscript else node


def words(text: str) -> set[str]:
    """The names a host expression reads, calls and numbers left out (`min`, `65536` say nothing of a
    relation)."""
    return set(re.findall(r"\b[A-Za-z_]\w*\b(?!\s*\()", text))


def spaceless(node: cst.BaseExpression) -> str:
    return spaceless_text(code_of(node))


def spaceless_text(text: str) -> str:
    return re.sub(r"\s", "", text)
