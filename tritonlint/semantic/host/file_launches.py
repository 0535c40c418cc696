"""The launches of a file's kernels: in the file itself, and in the neighbouring modules that import them."""

from __future__ import annotations

import ast
import dataclasses
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from tritonlint.semantic.host.host_guards import parameter_names
from tritonlint.semantic.host.launch_cache import remembered
from tritonlint.semantic.host.launches import Launch, find_launches, may_launch
from tritonlint.semantic.host.module_constants import module_constants
from tritonlint.semantic.host.on_demand import OnDemand
from tritonlint.semantic.host.predicates import Imported
from tritonlint.semantic.host.pruners import module_functions, pruned_at_most, pruned_multiples
from tritonlint.source.imports import statements_breadth_first
from tritonlint.source.outline import Outline

# The modules beside a file, (display path, text), read on demand: where its kernels may be launched.
Neighbours = Callable[[], Sequence[tuple[str, str]]]


def find_file_launches(path: str, text: str, found: Outline, neighbours: Neighbours | None) -> dict[str, list[Launch]]:
    """The launches of the file's kernels, by kernel name: in the file itself, and in the neighbouring
    modules that import them (`from .kernels import k`, `from . import kernels`). Only text that
    names a kernel and the file's module is parsed; nothing is imported or run."""
    if neighbours is None:  # (the editor's: the buffer alone, its launches kept while its host code stays)
        return remembered(path, text, found.kernels, found.aliases, lambda: _launches(path, text, found, None))
    return _launches(path, text, found, neighbours)


def _launches(path: str, text: str, found: Outline, neighbours: Neighbours | None) -> dict[str, list[Launch]]:
    params = {k.name: parameter_names(k.function) for k in found.kernels if k.function is not None}
    if not params:
        return {}
    names = {name: name for name in params} | {alias: k for alias, k in found.aliases.items() if k in params}
    launches: list[Launch] = []
    if found.tree is not None and may_launch(text, list(names)):
        launches += find_launches(found.tree, names, params, os.path.basename(path), local=True, text=text,
                                  imported=imported_predicates(found.tree, neighbours))
    stem = os.path.splitext(os.path.basename(path))[0]
    for display, other in neighbours() if neighbours is not None else ():
        if stem not in other or not may_launch(other, list(names)):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a neighbour's `1if x` warns: not ours to print
                tree = ast.parse(other)
        except (SyntaxError, ValueError, RecursionError):
            continue  # reported when that file itself is checked
        local, modules = imported_kernels(tree, stem, names)
        if local or modules:
            launches += find_launches(tree, local, params, os.path.basename(display), frozenset(modules), names,
                                      text=other, imported=imported_predicates(tree, neighbours))
    by_kernel: dict[str, list[Launch]] = {}
    for launch in launches:
        by_kernel.setdefault(launch.kernel, []).append(launch)
    if found.tree is not None and "early_config_prune" in text:
        display = os.path.basename(path)
        functions = module_functions(found.tree)
        for kernel in found.kernels:
            if kernel.function is None or kernel.name not in by_kernel:
                continue
            pruned = pruned_multiples(kernel.function, functions, params[kernel.name], display)
            if pruned:
                # The autotuner prunes before every launch: each launch runs only configs it kept.
                # (read when asked, as the launch's own are: see `_Finder.launch`)
                by_kernel[kernel.name] = [dataclasses.replace(launch, multiples=OnDemand(partial(_merged, pruned, launch.multiples)))
                                          for launch in by_kernel[kernel.name]]
            at_most = pruned_at_most(kernel.function, functions, params[kernel.name], display)
            if at_most:  # (witness-only: `check` does not read `at_most`)
                by_kernel[kernel.name] = [dataclasses.replace(launch, at_most={**at_most, **launch.at_most})
                                          for launch in by_kernel[kernel.name]]
    return by_kernel


def _merged(first: Mapping[tuple[str, str], str], then: Mapping[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    return {**first, **then}


def imported_kernels(tree: ast.Module, stem: str, names: dict[str, str]) -> tuple[dict[str, str], set[str]]:
    """Local names of the kernels a module imports from the module `stem` (`from .kernels import k as
    local`), and local names of that module itself (`from . import kernels`)."""
    local: dict[str, str] = {}
    modules: set[str] = set()
    for node in statements_breadth_first(tree):  # `ast.walk`'s order, without the expressions
        if isinstance(node, ast.ImportFrom):
            if node.module is not None and node.module.split(".")[-1] == stem:
                local.update({alias.asname or alias.name: names[alias.name] for alias in node.names
                              if alias.name in names})
            else:
                modules.update(alias.asname or alias.name for alias in node.names if alias.name == stem)
        elif isinstance(node, ast.Import):
            modules.update(alias.asname for alias in node.names
                           if alias.asname and alias.name.split(".")[-1] == stem)
    return local, modules


def imported_predicates(tree: ast.Module, neighbours: Neighbours | None) -> Imported | None:
    """Finds a function the module imports by name from a module beside it (`from .checks import
    supported`): its definition and that module's integer constants, read on first use."""
    if neighbours is None:
        return None
    sources: dict[str, tuple[str, str]] = {}  # local name -> (module stem, name there)
    for node in statements_breadth_first(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                sources[alias.asname or alias.name] = (node.module.split(".")[-1], alias.name)
    if not sources:
        return None
    modules: dict[str, tuple[dict[str, ast.FunctionDef], dict[str, int]] | None] = {}

    def find(name: str) -> tuple[ast.FunctionDef, Mapping[str, int]] | None:
        if name not in sources:
            return None
        stem, original = sources[name]
        if stem not in modules:
            modules[stem] = _module_functions(stem, neighbours)
        found = modules[stem]
        if found is None or original not in found[0]:
            return None
        return found[0][original], found[1]

    return find


def _module_functions(stem: str, neighbours: Neighbours) -> tuple[dict[str, ast.FunctionDef], dict[str, int]] | None:
    for display, other in neighbours():
        if os.path.splitext(os.path.basename(display))[0] != stem:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(other)
        except (SyntaxError, ValueError, RecursionError):
            return None
        return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}, module_constants(tree)
    return None
