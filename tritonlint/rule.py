"""The Rule base class, and discovery of the rules shipped in `rules/` (installed as tritonlint.rules)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from tritonlint.finding import Finding
    from tritonlint.semantic.context import KernelContext
    from tritonlint.semantic.ir import Access

# Sections every rule docstring carries, in this order (Ruff's layout).
DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Known problems")


class Rule:
    """A small query over the shared kernel context. Subclasses live in the families of `rules/`.

    A rule asks the `KernelContext` (complete before any rule runs) and yields frozen findings; each
    finding words its message, proposes its fix and places itself in the file. The engine knows no
    rule by name: it runs whatever discovery finds.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, for `tritonlint rules` and SARIF shortDescription
    fixable: ClassVar[bool] = False
    default: ClassVar[bool] = True  # in the default selection; False: only when selected (Config.enabled)

    def check(self, kernel: KernelContext) -> Iterable[Finding]:
        """The findings of this rule in one jit function."""
        raise NotImplementedError

    def explain(self, kernel: KernelContext, access: Access, indent: str) -> list[str]:
        """Lines `check --explain` adds for one access: this rule's own reading of it, reported or not."""
        return []

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The docstring split into its `## Section` parts."""
        doc = inspect.cleandoc(cls.__doc__ or "")
        parts = re.split(r"^## (.+)$", doc, flags=re.MULTILINE)
        return {parts[i].strip(): _dedent(parts[i + 1]) for i in range(1, len(parts) - 1, 2)}

    @classmethod
    def code_block(cls, section: str) -> str:
        """The first ```python block of a doc section (Example / Use instead)."""
        match = re.search(r"```python\n(.*?)```", cls.doc_sections().get(section, ""), flags=re.DOTALL)
        return match.group(1) if match else ""


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")


# Where `rules/` lies in a source checkout, beside the package (installed, it is tritonlint.rules).
CHECKOUT_RULES = Path(__file__).resolve().parent.parent / "rules"


def rules_package() -> ModuleType:
    """`tritonlint.rules`: installed from `rules/`, or, when tritonlint runs from a source checkout
    (`PYTHONPATH=checkout python -m tritonlint`, nothing installed), the `rules/` folder beside it."""
    try:
        return importlib.import_module("tritonlint.rules")
    except ModuleNotFoundError as error:
        if error.name != "tritonlint.rules":
            raise
    folder = CHECKOUT_RULES
    spec = importlib.util.spec_from_file_location("tritonlint.rules", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None or not folder.is_dir():
        raise ModuleNotFoundError("tritonlint.rules: not installed, and no rules/ folder beside the package",
                                  name="tritonlint.rules")
    module = importlib.util.module_from_spec(spec)
    sys.modules["tritonlint.rules"] = module
    spec.loader.exec_module(module)
    import tritonlint

    tritonlint.rules = module  # type: ignore[attr-defined]  # as the import system does for a subpackage
    return module


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class in tritonlint.rules, sorted by code."""
    package = rules_package()
    found: list[type[Rule]] = []
    for module in _modules_under(package):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule and value.__module__ == module.__name__:
                found.append(value)
    return tuple(sorted(found, key=lambda rule: rule.code))


def _modules_under(package: ModuleType) -> Iterator[ModuleType]:
    """Every module of a package and of its subpackages (a rule family is a folder), imported."""
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        yield module
        if info.ispkg:
            yield from _modules_under(module)
