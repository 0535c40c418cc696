"""Names: how `tl.load` and `triton.jit` are spelled in a file, whatever it imported them as."""

from __future__ import annotations

import re
from typing import ClassVar

import libcst as cst

from tritonlint.source.stripped_code import stripped_code
from tritonlint.source.tree_caches import tree_cache

_EMPTY_MODULE = cst.Module(body=[])
_SPACE = re.compile(r"\s+")


def code_of(node: cst.CSTNode) -> str:
    """The node's source with all whitespace removed: a key two spellings of one expression share."""
    kind = type(node)
    if (kind is cst.Name or kind is cst.Integer) and not node.lpar:  # type: ignore[attr-defined]
        return node.value  # type: ignore[attr-defined,no-any-return]  # most calls: no printing needed
    return _printed(node)


@tree_cache(maxsize=1 << 12)
def _printed(node: cst.CSTNode) -> str:
    """`code_of` by printing, cached: a third of the calls print a node printed before (nodes are
    immutable and hash by identity). Spelled from the node's fields where it can be (the same text,
    a tenth of the time), else printed by libcst."""
    spelled = stripped_code(node)
    return _SPACE.sub("", spelled if spelled is not None else _EMPTY_MODULE.code_for_node(node))


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


class ImportMap:
    """Maps local names to the Triton objects they stand for.

    Re-exports count: `from vllm.triton_utils import tl, triton` binds `tl` and
    `triton` as the real modules, because projects wrap the import to make triton
    optional, and a checker that trusted only `import triton` would miss them.
    """

    DEFAULTS: ClassVar[dict[str, str]] = {"tl": "triton.language", "triton": "triton"}

    def __init__(self) -> None:
        self.bindings: dict[str, str] = dict(self.DEFAULTS)

    def add_import(self, module: str, asname: str | None) -> None:
        if module == "triton" or module.startswith("triton."):
            local = asname or module.split(".")[0]
            self.bindings[local] = module if asname else local
        elif asname in ("tl", "triton"):
            self.bindings[asname] = self.DEFAULTS[asname]

    def add_from(self, module: str, name: str, asname: str | None) -> None:
        local = asname or name
        if module == "triton" or module.startswith("triton."):
            self.bindings[local] = f"{module}.{name}"
        elif name == "tl" or name == "language":
            self.bindings[local] = "triton.language"
        elif name == "triton":
            self.bindings[local] = "triton"
        elif name in ("jit", "autotune", "heuristics") and "triton" in module:
            self.bindings[local] = f"triton.{name}"

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """`tl.load` -> `triton.language.load`; None when the head is not a Triton binding."""
        return self.qualify_dotted(dotted(node))

    def qualify_dotted(self, name: str | None) -> str | None:
        if name is None:
            return None
        head, _, rest = name.partition(".")
        bound = self.bindings.get(head)
        if bound is None:
            return None
        return f"{bound}.{rest}" if rest else bound


def language_member(qualified: str | None) -> str | None:
    """`triton.language.load` / `triton.language.core.load` -> `load`."""
    if qualified and qualified.startswith("triton.language."):
        return qualified.rsplit(".", 1)[1]
    return None


def is_jit_decorator(qualified: str | None) -> bool:
    return qualified in ("triton.jit", "triton.runtime.jit.jit")
