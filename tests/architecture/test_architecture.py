"""The wall: which package may import which, no private name across modules, no import circle, and a
new rule as one folder that discovery finds without an edit anywhere else.

Imports are read from the source with `ast` (those under `if TYPE_CHECKING:` and inside functions
included: a type-level import ties modules together as much as a run-time one does).
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import pytest
import tomllib

from tritonlint.config import Config
from tritonlint.engine import check_source
from tritonlint.rule import all_rules, rules_package

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "tritonlint"

# What each layer may import from the product, besides itself (a rule family: its own folder).
LAYERS: dict[str, tuple[str, ...]] = {
    "tritonlint.source": ("tritonlint.source",),
    "tritonlint.semantic": ("tritonlint.source", "tritonlint.semantic"),
    "tritonlint.fixing": ("tritonlint.source", "tritonlint.semantic", "tritonlint.fixing", "tritonlint.diagnostics"),
    "tritonlint.rules": ("tritonlint.source", "tritonlint.semantic", "tritonlint.fixing", "tritonlint.diagnostics",
                         "tritonlint.rule", "tritonlint.finding"),
}
# Never below the wall, whatever the lists above grow to hold.
ABOVE_THE_WALL = ("tritonlint.rules", "tritonlint.fixing", "tritonlint.engine", "tritonlint.explain",
                  "tritonlint.output", "tritonlint.cli", "tritonlint.verify", "tritonlint.witness",
                  "tritonlint.finding", "tritonlint.rule", "tritonlint.runner")


def module_name(path: Path, root: Path = ROOT) -> str:
    """`tritonlint/semantic/ir.py` -> tritonlint.semantic.ir; `rules/x/y.py` -> tritonlint.rules.x.y
    (the build maps the rules/ folder to tritonlint.rules)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0] == "rules":
        parts = [PACKAGE, "rules", *parts[1:]]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def product_modules(root: Path = ROOT) -> dict[str, Path]:
    paths = [*(root / "tritonlint").rglob("*.py"), *(root / "rules").rglob("*.py")]
    return {module_name(path, root): path for path in sorted(paths)}


MODULES = product_modules()


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: str, path: Path, modules: dict[str, Path] = MODULES) -> list[tuple[str, str]]:
    """(imported product module, name imported from it or "") for every import in a file; `from
    pkg import sub` names the submodule itself."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names if alias.name.split(".")[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, path, node)
            if source.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append((submodule, "") if submodule in modules else (source, alias.name))
    return found


def graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = {target for target, _ in imports_of(module, path, modules)}
        # `import tritonlint.a.b` loads tritonlint.a too, but a package's __init__ holding only its
        # docstring ties nothing together: edges go to the named module.
        edges[module] = {t for t in targets if t in modules and t != module}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _layer(module: str) -> str | None:
    return next((layer for layer in LAYERS if module == layer or module.startswith(layer + ".")), None)


def _family(module: str) -> str | None:
    """`tritonlint.rules.tail_tile.fix` -> tritonlint.rules.tail_tile."""
    parts = module.split(".")
    return ".".join(parts[:3]) if parts[:2] == [PACKAGE, "rules"] and len(parts) > 3 else None


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def layer_violations(modules: dict[str, Path]) -> list[str]:
    bad = []
    for module, path in modules.items():
        layer = _layer(module)
        if layer is None:
            continue
        allowed = LAYERS[layer] + ((_family(module) or module),)
        for target, _ in imports_of(module, path, modules):
            below = layer in ("tritonlint.source", "tritonlint.semantic")
            if not _under(target, allowed) or (below and _under(target, ABOVE_THE_WALL)):
                bad.append(f"{module} imports {target}")
    return bad


def family_violations(modules: dict[str, Path]) -> list[str]:
    bad = []
    for module, path in modules.items():
        family = _family(module)
        if family is None:
            continue
        for target, _ in imports_of(module, path, modules):
            other = _family(target) or (target if target.startswith(f"{PACKAGE}.rules.") else None)
            if other is not None and other != family:
                bad.append(f"{module} imports {target} (another rule family)")
    return bad


def private_imports(modules: dict[str, Path]) -> list[str]:
    """`from m import _name`, and `m._name` on a module bound by an import, across modules."""
    bad = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}
        for target, name in imports_of(module, path, modules):
            if name.startswith("_") and not name.startswith("__") and target != module:
                bad.append(f"{module} imports {target}.{name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and _absolute(module, path, node).split(".")[0] == PACKAGE:
                for alias in node.names:
                    submodule = f"{_absolute(module, path, node)}.{alias.name}"
                    if submodule in modules:
                        bound[alias.asname or alias.name] = submodule
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in modules:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                bad.append(f"{module} uses {bound[node.value.id]}.{node.attr}")
    return bad


# ---------------------------------------------------------------------- the rules of the house


def test_the_scan_sees_every_layer() -> None:
    for layer in LAYERS:
        assert any(_layer(module) == layer for module in MODULES), layer
    assert "tritonlint.rules.tail_tile.finding" in MODULES and "tritonlint.engine" in MODULES


def test_source_and_semantic_import_nothing_above_them_and_each_layer_only_what_it_may() -> None:
    assert layer_violations(MODULES) == []


def test_a_rule_family_never_imports_another() -> None:
    assert family_violations(MODULES) == []


def test_no_private_name_crosses_a_module() -> None:
    assert private_imports(MODULES) == []


def test_the_product_has_no_import_circle() -> None:
    assert circles(graph(MODULES)) == []


def test_the_engine_and_explain_name_no_rule() -> None:
    for name in ("engine", "explain"):
        module = f"{PACKAGE}.{name}"
        text = MODULES[module].read_text(encoding="utf-8")
        assert not re.search(r"\bTL\d{3}\b", text), module
        assert not [t for t, _ in imports_of(module, MODULES[module]) if _under(t, (f"{PACKAGE}.rules",))]


def test_the_build_ships_every_package() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {module_name(path.parent / "__init__.py") for path in
                [*(ROOT / "tritonlint").rglob("__init__.py"), *(ROOT / "rules").rglob("__init__.py")]}
    assert listed == packages


# ---------------------------------------------------------------------- the checks can fail


def test_each_check_sees_what_it_forbids(tmp_path: Path) -> None:
    """A forbidden import of each kind, in a small tree of the same shape, is seen."""
    files = {
        "tritonlint/semantic/low.py": "from tritonlint.rules.a.x import y\nfrom tritonlint.engine import check\n",
        "tritonlint/source/text.py": "from tritonlint.semantic.low import z\n",
        "rules/a/x.py": "from tritonlint.rules.b.y import w\nfrom tritonlint.semantic.low import _hidden\n",
        "rules/b/y.py": "from ..a import x\n",
        "tritonlint/one.py": "import tritonlint.two as two\nprint(two._secret)\n",
        "tritonlint/two.py": "if TYPE_CHECKING:\n    from tritonlint.one import thing\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    modules = product_modules(tmp_path)
    assert "tritonlint.semantic.low imports tritonlint.rules.a.x" in layer_violations(modules)
    assert "tritonlint.semantic.low imports tritonlint.engine" in layer_violations(modules)
    assert "tritonlint.source.text imports tritonlint.semantic.low" in layer_violations(modules)
    assert family_violations(modules) == ["tritonlint.rules.a.x imports tritonlint.rules.b.y (another rule family)",
                                          "tritonlint.rules.b.y imports tritonlint.rules.a.x (another rule family)"]
    assert sorted(private_imports(modules)) == ["tritonlint.one uses tritonlint.two._secret",
                                                "tritonlint.rules.a.x imports tritonlint.semantic.low._hidden"]
    assert ["tritonlint.one", "tritonlint.two"] in circles(graph(modules))


# ---------------------------------------------------------------------- a new rule is one folder

NEW_RULE = '''\
"""TL901: a tl.store of a whole tile whose value is a constant (a rule written for this test)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from tritonlint.finding import AccessFinding
from tritonlint.rule import Rule
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.verdicts import TailHazard


@dataclass(frozen=True)
class ConstantStoreFinding(AccessFinding):
    value: str

    def message(self) -> str:
        return f"tl.store writes the constant {self.value} to every lane"


class ConstantStore(Rule):
    code = "TL901"
    name = "constant-store"
    summary = "a tl.store writes a constant"

    def check(self, kernel: KernelContext) -> Iterator[ConstantStoreFinding]:
        for access in kernel.accesses:
            value = access.call.args[1].value if len(access.call.args) > 1 else None
            if access.kind == "store" and isinstance(value, (cst.Float, cst.Integer)):
                walk = kernel.walker.walks(access)[0]
                hazard = TailHazard(access, walk, "always", "the value is written in the call")
                yield ConstantStoreFinding(hazard, kernel, value.value)
'''

KERNEL = '''\
import triton
import triton.language as tl


@triton.jit
def fill(Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, 0.0, mask=offs < n)
'''


@pytest.fixture
def one_more_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A rule family in a folder of its own, found by the discovery `check` uses (the rules
    package's search path), with no edit to the engine, the IR, explain or the configuration."""
    folder = tmp_path / "constant_store"
    folder.mkdir()
    (folder / "__init__.py").write_text('"""TL901, for the test."""\n')
    (folder / "rule.py").write_text(NEW_RULE)
    package = rules_package()
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path)])
    all_rules.cache_clear()
    yield
    all_rules.cache_clear()
    for name in [n for n in sys.modules if n.startswith(f"{package.__name__}.constant_store")]:
        del sys.modules[name]


@pytest.mark.usefixtures("one_more_folder")
def test_a_new_rule_is_one_folder() -> None:
    assert "TL901" in [rule.code for rule in all_rules()]
    report = check_source("fill.py", KERNEL, Config(), strict=True)
    (finding,) = [d for d in report.diagnostics if d.code == "TL901"]
    assert (finding.line, finding.column, finding.name) == (8, 5, "constant-store")
    assert finding.message == "tl.store writes the constant 0.0 to every lane"
    assert textwrap.dedent(KERNEL).splitlines()[finding.line - 1].strip().startswith("tl.store(")


def test_without_the_folder_the_rule_is_not_there() -> None:
    assert "TL901" not in [rule.code for rule in all_rules()]
    assert not [d for d in check_source("fill.py", KERNEL, Config(), strict=True).diagnostics if d.code == "TL901"]
