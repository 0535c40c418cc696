"""Autotune pruners that keep a size a multiple of a block: `triton.autotune(configs=[...],
prune_configs_by={"early_config_prune": prune})` where `prune` returns only the configs whose
`BLOCK_N` divides the launch's `N`.

Triton's autotuner calls the pruner with the configs, the launch's positional arguments by name
(`named_args`) and its keyword arguments (`**kwargs`), and benchmarks and runs only what it
returns, whenever it has more than one config to choose from. A pruner whose every kept config
passed `n % block_n == 0`, with `n` read from the launch's `N` and `block_n` from that config's
`BLOCK_N`, keeps every launch's `N` a multiple of the `BLOCK_N` it runs with.

Read with `ast` in the kernel's own module, never run. Two forms: a list built empty and only
appended to under the test (`kept = []` ... `if n % block_n == 0: kept.append(config)` ...
`return kept`), and a comprehension filtered by it (`return [c for c in configs if ...]`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence

from tritonlint.source.parsed import ast_dotted


def module_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    """The module's top-level functions by name (a later `def` of a name wins): where a pruner is looked up."""
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _pruners(function: ast.FunctionDef | ast.AsyncFunctionDef,
             functions: Mapping[str, ast.FunctionDef]) -> list[ast.FunctionDef]:
    """The module functions the kernel's `@triton.autotune(..., prune_configs_by=...)` decorators name,
    where the autotuner calls them: with a single config it never does."""
    found: list[ast.FunctionDef] = []
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and (ast_dotted(decorator.func) or "").split(".")[-1] == "autotune"):
            continue
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg is not None}
        configs = keywords.get("configs", decorator.args[0] if decorator.args else None)
        if configs is None or _count(configs) < 2:
            continue
        prune = _pruner(keywords.get("prune_configs_by"), functions)
        if prune is not None:
            found.append(prune)
    return found


def pruned_multiples(function: ast.FunctionDef | ast.AsyncFunctionDef, functions: Mapping[str, ast.FunctionDef],
                     params: Sequence[str], display: str) -> dict[tuple[str, str], str]:
    """(size, block) kernel parameters that the kernel's autotune pruner keeps multiples, each with
    the pruner's test and place (for notes); {} when there is no such pruner. `functions` is
    `module_functions` of the kernel's module, taken once per file (per kernel, a file of thousands
    of kernels spent most of its launch search building it)."""
    found: dict[tuple[str, str], str] = {}
    for prune in _pruners(function, functions):
        for (size, block), test in _kept_multiples(prune).items():
            if size in params and block in params and size != block:
                found.setdefault((size, block), f"the autotune pruner `{prune.name}` keeps only configs with "
                                                f"`{test.strip()}` ({display}:{prune.lineno})")
    return found


def pruned_at_most(function: ast.FunctionDef | ast.AsyncFunctionDef, functions: Mapping[str, ast.FunctionDef],
                   params: Sequence[str], display: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Block parameter -> (size parameter, where) for each block the kernel's autotune pruner sets no
    larger than a launch argument: the pruner returns only configs it builds itself
    (`kept.append(triton.Config({"BLOCK_N": block_n, ...}))`), each giving the block
    `min(tile, N)` with `N` read from the launch (`named_args["N"]`). {} when there is no such pruner.
    `functions`: `module_functions` of the kernel's module, as for `pruned_multiples`."""
    found: dict[str, dict[str, str]] = {}
    for prune in _pruners(function, functions):
        for block, size in _built_at_most(prune).items():
            if size in params and block in params and size != block:
                found.setdefault(block, {}).setdefault(
                    size, f"the autotune pruner `{prune.name}` sets `{block} = min(..., {size})` ({display}:{prune.lineno})")
    return {block: tuple(sizes.items()) for block, sizes in found.items()}


def _built_at_most(prune: ast.FunctionDef) -> dict[str, str]:
    """Config key -> launch argument for each key that every config the pruner returns sets to a
    `min(...)` of that argument; {} unless every returned config is one the pruner builds."""
    args = prune.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if len(positional) < 2:
        return {}
    sources = {positional[1]} | ({args.kwarg.arg} if args.kwarg is not None else set())
    assigned = _assignments(prune)
    returns = list(_returns(prune.body))
    if not returns or not all(isinstance(r, ast.Name) for r in returns):
        return {}
    common: dict[str, str] | None = None
    for returned in returns:
        assert isinstance(returned, ast.Name)
        values = assigned.get(returned.id, [])
        if len(values) != 1 or not (isinstance(values[0], ast.List) and not values[0].elts):
            return {}
        appended: list[ast.expr] = []
        for node in ast.walk(prune):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == returned.id \
                    and node.attr != "append":
                return {}  # extended, inserted into: not only what the pruner appends
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == returned.id:
                if len(node.args) != 1:
                    return {}
                appended.append(node.args[0])
        if not appended:
            return {}
        for value in appended:
            here = _config_at_most(value, assigned, sources)
            common = here if common is None else {k: v for k, v in common.items() if here.get(k) == v}
            if not common:
                return {}
    return common or {}


def _config_at_most(value: ast.expr, assigned: Mapping[str, list[ast.expr | None]], sources: set[str]) -> dict[str, str]:
    """Key -> launch argument for the `min(..., arg)` keys of a `Config({...})` built here (through one local)."""
    if isinstance(value, ast.Name):
        values = assigned.get(value.id, [])
        if len(values) != 1 or values[0] is None:
            return {}
        value = values[0]
    if not (isinstance(value, ast.Call) and (ast_dotted(value.func) or "").split(".")[-1] == "Config"
            and value.args and isinstance(value.args[0], ast.Dict)):
        return {}
    found: dict[str, str] = {}
    for key, given in zip(value.args[0].keys, value.args[0].values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        bounds = _min_of(given, assigned)
        for bound in bounds:
            size = _read(bound, assigned, lambda node: _either_key(node, sources))
            if size:
                found[key.value] = size
                break
    return found


def _either_key(node: ast.expr, sources: set[str]) -> str:
    """The launch argument a read gives, through a conditional whose both sides read it
    (`kwargs["N"] if "N" in kwargs else named_args["N"]`)."""
    if isinstance(node, ast.IfExp):
        keys = {_either_key(node.body, sources), _either_key(node.orelse, sources)}
        return keys.pop() if len(keys) == 1 else ""
    return _key(node, sources, "launch")


def _min_of(node: ast.expr, assigned: Mapping[str, list[ast.expr | None]]) -> list[ast.expr]:
    """The arguments of the `min(...)` the node is (directly, or a local whose only value it is)."""
    if isinstance(node, ast.Name):
        values = assigned.get(node.id, [])
        if len(values) != 1 or values[0] is None:
            return []
        node = values[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min" and not node.keywords \
            and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args):
        return list(node.args)
    return []


def _count(configs: ast.expr) -> int:
    """How many configs a literal list (or a comprehension over literal lists) holds; 0 if unknown."""
    if isinstance(configs, (ast.List, ast.Tuple)):
        return 0 if any(isinstance(e, ast.Starred) for e in configs.elts) else len(configs.elts)
    if isinstance(configs, ast.ListComp) and all(not g.ifs for g in configs.generators):
        total = 1
        for generator in configs.generators:
            if not isinstance(generator.iter, (ast.List, ast.Tuple)):
                return 0
            total *= len(generator.iter.elts)
        return total
    return 0


def _pruner(value: ast.expr | None, functions: Mapping[str, ast.FunctionDef]) -> ast.FunctionDef | None:
    if not isinstance(value, ast.Dict):
        return None
    for key, given in zip(value.keys, value.values):
        if isinstance(key, ast.Constant) and key.value == "early_config_prune" and isinstance(given, ast.Name):
            return functions.get(given.id)
    return None


def _kept_multiples(prune: ast.FunctionDef) -> dict[tuple[str, str], str]:
    """(launch argument, config key) pairs every config the pruner returns was tested a multiple of."""
    args = prune.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if len(positional) < 2:
        return {}
    sources = {positional[1]} | ({args.kwarg.arg} if args.kwarg is not None else set())
    returns = list(_returns(prune.body))
    if not returns:
        return {}
    assigned = _assignments(prune)
    common: dict[tuple[str, str], str] | None = None
    for returned in returns:
        here: dict[tuple[str, str], str] = {}
        if isinstance(returned, ast.ListComp) and len(returned.generators) == 1 \
                and isinstance(returned.elt, ast.Name) and isinstance(returned.generators[0].target, ast.Name) \
                and returned.generators[0].target.id == returned.elt.id:
            for test in returned.generators[0].ifs:
                here |= _tested(test, True, returned.elt.id, sources, assigned)
        elif isinstance(returned, ast.Name):
            here = _appended_under(prune, returned.id, sources, assigned)
        common = here if common is None else {pair: test for pair, test in common.items() if pair in here}
        if not common:
            return {}
    return common or {}


def _returns(statements: Sequence[ast.stmt]) -> Iterator[ast.expr | None]:
    """What each `return` of the function's own body gives (not its nested functions')."""
    for statement in statements:
        if isinstance(statement, ast.Return):
            yield statement.value
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        else:
            for field in ("body", "orelse", "finalbody"):
                yield from _returns(getattr(statement, field, []))
            for handler in getattr(statement, "handlers", ()):
                yield from _returns(handler.body)


def _assignments(function: ast.FunctionDef) -> dict[str, list[ast.expr | None]]:
    """Every value each local name is given in the function (None for a loop target or `+=`)."""
    found: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        found.setdefault(name.id, []).append(node.value if target is name else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            found.setdefault(node.target.id, []).append(
                node.value if isinstance(node, ast.AnnAssign) else None)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    found.setdefault(name.id, []).append(None)
    return found


def _appended_under(prune: ast.FunctionDef, kept: str, sources: set[str],
                    assigned: Mapping[str, list[ast.expr | None]]) -> dict[tuple[str, str], str]:
    """The pairs every `kept.append(config)` is made under, when `kept` starts empty and nothing
    else adds to it or passes it on."""
    values = assigned.get(kept, [])
    if len(values) != 1 or not (isinstance(values[0], ast.List) and not values[0].elts):
        return {}
    appends: list[ast.Call] = []
    for node in ast.walk(prune):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == kept:
            if node.attr != "append":
                return {}
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == kept and node.func.attr == "append":
                appends.append(node)
            elif any(isinstance(a, ast.Name) and a.id == kept for a in node.args) \
                    and not (isinstance(node.func, ast.Name) and node.func.id in ("len", "bool")):
                return {}  # passed on: may be filled elsewhere
    if not appends:
        return {}
    common: dict[tuple[str, str], str] | None = None
    for call, tests in _calls_with_tests(prune.body, ()):
        if call not in appends:
            continue
        if len(call.args) != 1 or not isinstance(call.args[0], ast.Name):
            return {}
        here: dict[tuple[str, str], str] = {}
        for test, holds in tests:
            here |= _tested(test, holds, call.args[0].id, sources, assigned)
        common = here if common is None else {pair: test for pair, test in common.items() if pair in here}
        if not common:
            return {}
    return common or {}


def _calls_with_tests(statements: Sequence[ast.stmt], tests: tuple[tuple[ast.expr, bool], ...]
                      ) -> Iterator[tuple[ast.Call, tuple[tuple[ast.expr, bool], ...]]]:
    """Each call in the statements, with the `if` tests around it (test, on its true side)."""
    for statement in statements:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field, value in ast.iter_fields(statement):
            if field in ("body", "orelse", "finalbody", "handlers"):
                continue
            for node in value if isinstance(value, list) else [value]:
                if isinstance(node, ast.AST):
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Call):
                            yield inner, tests
        if isinstance(statement, ast.If):
            yield from _calls_with_tests(statement.body, (*tests, (statement.test, True)))
            yield from _calls_with_tests(statement.orelse, (*tests, (statement.test, False)))
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _calls_with_tests(getattr(statement, field, []), tests)
        for handler in getattr(statement, "handlers", ()):
            yield from _calls_with_tests(handler.body, tests)


def _tested(test: ast.expr, holds: bool, config: str, sources: set[str],
            assigned: Mapping[str, list[ast.expr | None]]) -> dict[tuple[str, str], str]:
    """(launch argument, config key) for each `n % block == 0` the test holds on that side, `n` read
    from the launch's arguments and `block` from the config `config`."""
    conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    if not holds and len(conjuncts) != 1:
        return {}
    found: dict[tuple[str, str], str] = {}
    for conjunct in conjuncts:
        mod = _zero_mod(conjunct, holds)
        if mod is None:
            continue
        size = _read(mod.left, assigned, lambda node: _key(node, sources, "launch"))
        block = _read(mod.right, assigned, lambda node: _key(node, {config}, "config"))
        if size and block:
            found[(size, block)] = ast.unparse(conjunct) if holds else f"not ({ast.unparse(conjunct)})"
    return found


def _zero_mod(test: ast.expr, holds: bool) -> ast.BinOp | None:
    """`x % y` when the test on that side says it is 0."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.BinOp) \
            and isinstance(test.left.op, ast.Mod) and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value == 0 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)) \
            and isinstance(test.ops[0], ast.Eq) == holds:
        return test.left
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and holds \
            and isinstance(test.operand, ast.BinOp) and isinstance(test.operand.op, ast.Mod):
        return test.operand
    return None


def _read(node: ast.expr, assigned: Mapping[str, list[ast.expr | None]], key: Callable[[ast.expr], str]) -> str:
    """The key `node` reads, directly or through a local whose every value reads the same key."""
    direct = key(node)
    if direct:
        return direct
    if isinstance(node, ast.Name):
        values = assigned.get(node.id, [])
        keys = {key(value) if value is not None else "" for value in values}
        if len(keys) == 1 and values:
            return keys.pop()
    return ""


def _key(node: ast.expr, owners: set[str], kind: str) -> str:
    """`P` of `named_args["P"]`, `kwargs.get("P")` (kind "launch"), or of `config.kwargs["P"]`,
    `config.all_kwargs()["P"]` (kind "config"), with the owner among `owners`."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        owner, name = node.value, node.slice.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        owner, name = node.func.value, node.args[0].value
    else:
        return ""
    if kind == "config":
        if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Attribute) and owner.func.attr == "all_kwargs" \
                and not owner.args:
            owner = owner.func.value
        elif isinstance(owner, ast.Attribute) and owner.attr == "kwargs":
            owner = owner.value
        else:
            return ""
    return name if isinstance(owner, ast.Name) and owner.id in owners else ""
