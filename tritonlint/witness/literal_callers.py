"""Callers whose sizes are literals: a test or a benchmark beside the kernel (Triton's tutorials put the
kernel, its entry point, a pytest and a `triton.testing` benchmark in one module), or a tensor allocated
at a literal size.

The caller reading (caller_padding) follows a launch's size up to the tensor a caller made. Where that
tensor is allocated here (`torch.empty((Z, H, N_CTX, D), ...)`, `torch.randn(...)`, through
`.normal_()`, `.requires_grad_()`, `.to(...)` and the like), its dimension is

* a literal: that one value;
* a parameter of a function decorated with `pytest.mark.parametrize` (one name or a comma list, a list of
  literal values or tuples, `pytest.param(...)` entries, stacked decorators): the values listed for it;
* a parameter of a `triton.testing.perf_report` benchmark: the `x_vals` of every `Benchmark` whose
  `x_names` names it (literals, or `[2**i for i in range(a, b)]` and other integer arithmetic on one
  range's variable), or its literal in `args={...}`; the benchmarks given directly, as a list, a
  comprehension, or a module-level list built by `.append` / `.extend`.

A call of the decorated function in its own module (`if __name__ == "__main__": test_op(1, 2, 1024)`)
is one more caller, its literal one more value. Strict: a value that is no integer literal, a parameter no
decorator lists, a decorated function passed on or imported by another module (it would run at other
sizes), or a benchmark list used another way reads nothing. Never imported: the text only.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from tritonlint.witness.int_literals import int_literal
from tritonlint.witness.package_files import parsed_file

# The values one caller launches a size at: (who, with what), then its values.
Literals = tuple[tuple[str, tuple[int, ...]], ...]
Sized = tuple[int, str, Literals]  # gcd of the values (0 when all are 0), the note, the callers with values

_ALLOCATORS = ("empty", "zeros", "ones", "randn", "rand", "full")
# Methods that keep a tensor's shape: a dimension read after them is the one before.
SHAPE_KEEPING = ("contiguous", "to", "half", "float", "bfloat16", "double", "cuda", "cpu", "clone", "detach",
                 "requires_grad_", "normal_", "uniform_", "zero_", "fill_")
_RANGE_LIMIT = 4096  # values of one benchmark comprehension read at most
_SHOWN = 6  # values a note lists at most


def allocated_size(value: ast.expr, dim: int) -> ast.expr | None:
    """The size written at `dim` of the `torch.<allocator>(...)` that `value` is, through shape-keeping
    methods and `.transpose(a, b)`; None when `value` is no such allocation."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and not (isinstance(value.func.value, ast.Name) and value.func.value.id == "torch"):
        method = value.func.attr
        if method == "transpose" and len(value.args) == 2 and not value.keywords:
            a, b = int_literal(value.args[0]), int_literal(value.args[1])
            if a is None or b is None or a < 0 or b < 0:
                return None
            dim = b if dim == a else a if dim == b else dim
        elif method not in SHAPE_KEEPING:
            return None
        value = value.func.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _ALLOCATORS
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "torch" and value.args):
        return None
    if any(isinstance(a, ast.Starred) for a in value.args):
        return None
    if isinstance(value.args[0], (ast.Tuple, ast.List)):
        sizes = value.args[0].elts
    elif value.func.attr == "full":
        return None  # `torch.full(size, fill)`: the size is the first argument, a tuple
    else:
        sizes = value.args
    if any(isinstance(s, ast.Starred) for s in sizes) or dim >= len(sizes):
        return None
    return sizes[dim]


def literal_sizes(path: Path, files: Callable[[str], Iterable[Path]], function: ast.FunctionDef, size: ast.expr,
                  line: int) -> Sized | None:
    """The values the size text `size` takes in `function` at `line`: a literal, or the parameter values a
    test or benchmark decorator lists. None when it is neither, or they cannot all be read. `files(name)`:
    the package's files that mention `name` (where the function may be imported)."""
    where = f"{path.name}:{line}"
    value = int_literal(size)
    if value is not None:
        if value < 0:
            return None
        label = f"`{function.name}` allocates it at size {value} ({where})"
        return value, label, ((label, (value,)),)
    if not isinstance(size, ast.Name):
        return None
    name = size.id
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
    if name not in params or _assigned(function, name):
        return None
    tree = parsed_file(str(path))
    if tree is None or not any(statement is function for statement in tree.body):
        return None
    found = _decorator_values(tree, function, name)
    if found is None:
        return None
    values, how, kind = found
    direct = _direct_values(files, path, tree, function, kind, name)
    if not values or direct is None:
        return None
    values = sorted({*values, *(v for v, _ in direct)})
    shown = ", ".join(str(v) for v in values[:_SHOWN]) + (", ..." if len(values) > _SHOWN else "")
    called = "".join(f"; called at {path.name}:{at}" for _, at in direct)
    label = f"`{function.name}` runs {name} at {shown} ({how}, {path.name}:{function.lineno}{called})"
    multiple = 0
    for v in values:
        multiple = math.gcd(multiple, v)
    return multiple, label, ((label, tuple(values)),)


def _assigned(function: ast.FunctionDef, name: str) -> bool:
    """The function binds `name` itself somewhere (the parameter's value is then not the decorator's alone)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def _decorator_values(tree: ast.Module, function: ast.FunctionDef,
                      name: str) -> tuple[list[int], str, str] | None:
    """(values, how they are given, "pytest" or "bench") for the parameter `name` of the decorated function."""
    found: list[tuple[list[int] | None, str, str]] = []
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        func = ast.unparse(decorator.func)
        if func == "parametrize" or func.endswith("mark.parametrize"):
            names = _argnames(decorator)
            if names is None:
                return None  # a parametrization the reading cannot name: it may be the size's
            if name in names:
                found.append((_parametrized(decorator, names.index(name), len(names)), "pytest.mark.parametrize",
                              "pytest"))
        elif func == "perf_report" or func.endswith("testing.perf_report"):
            found.append((_benchmarked(tree, decorator, name), "triton.testing.perf_report", "bench"))
    if len(found) != 1 or found[0][0] is None:
        return None  # listed by none, by two, or with a value that is no literal
    values, how, kind = found[0]
    assert values is not None
    return sorted(set(values)), how, kind


def _argnames(decorator: ast.Call) -> list[str] | None:
    given = decorator.args[0] if decorator.args else next(
        (k.value for k in decorator.keywords if k.arg == "argnames"), None)
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return [part.strip() for part in given.value.split(",") if part.strip()]
    if isinstance(given, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in given.elts):
        return [str(e.value).strip() for e in given.elts if isinstance(e, ast.Constant)]
    return None


def _parametrized(decorator: ast.Call, position: int, width: int) -> list[int] | None:
    """The literal values a `parametrize` gives the name at `position` of its `width` names."""
    if any(k.arg == "indirect" for k in decorator.keywords):
        return None  # the values go to a fixture, which makes what it likes of them
    rows = decorator.args[1] if len(decorator.args) > 1 else next(
        (k.value for k in decorator.keywords if k.arg == "argvalues"), None)
    if not isinstance(rows, (ast.List, ast.Tuple)):
        return None
    out: list[int] = []
    for row in rows.elts:
        if isinstance(row, ast.Call) and ast.unparse(row.func) in ("pytest.param", "param"):  # pytest.param(..., marks=...)
            elements: list[ast.expr] = list(row.args)
        elif width == 1:
            elements = [row]
        elif isinstance(row, (ast.Tuple, ast.List)):
            elements = list(row.elts)
        else:
            return None
        if len(elements) != width or any(isinstance(e, ast.Starred) for e in elements):
            return None
        value = int_literal(elements[position])
        if value is None or value < 0:
            return None
        out.append(value)
    return out


def _benchmarked(tree: ast.Module, decorator: ast.Call, name: str) -> list[int] | None:
    """The values every `Benchmark` of a `perf_report` gives the parameter `name`."""
    if len(decorator.args) != 1 or decorator.keywords:
        return None
    benchmarks = _benchmarks(tree, decorator.args[0], decorator)
    if not benchmarks:
        return None
    out: list[int] = []
    for benchmark in benchmarks:
        values = _benchmark_values(benchmark, name)
        if values is None:
            return None
        out += values
    return out


def _is_benchmark(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func).rpartition(".")[2] == "Benchmark"


def _benchmarks(tree: ast.Module, given: ast.expr, decorator: ast.Call, nested: bool = False) -> list[ast.Call] | None:
    """The `Benchmark(...)` calls a perf_report's argument holds: one, a list of them, a comprehension of one,
    or (at the top) a module-level list built of them; None when one part is something else."""
    if _is_benchmark(given):
        assert isinstance(given, ast.Call)
        return [given]
    if isinstance(given, (ast.List, ast.Tuple)):
        parts = [_benchmarks(tree, e, decorator, True) for e in given.elts]
        return None if any(p is None for p in parts) else [b for p in parts for b in p or []]
    if isinstance(given, ast.ListComp):
        return _benchmarks(tree, given.elt, decorator, True)
    if isinstance(given, ast.Name) and not nested:
        return _built_list(tree, given.id, decorator)
    return None


def _built_list(tree: ast.Module, name: str, decorator: ast.Call) -> list[ast.Call] | None:
    """The Benchmarks the module-level list `name` holds where the decorator reads it: its latest top-level
    binding before the decorator (`configs = []`; Triton's tutorial binds the name to its autotune configs
    first), then `.append(Benchmark(...))`, `.extend([...])`, `+= [...]` at module level (in loops too) up to
    the decorator. None on any other use in that span, any use after the decorator before the next binding
    (the decorated function holds the list itself), or any use in a function's body."""
    def binds(statement: ast.stmt) -> bool:
        return isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name
    at = decorator.lineno
    earlier = [s for s in tree.body if binds(s) and s.lineno < at]
    if not earlier:
        return None
    start = earlier[-1]
    assert isinstance(start, ast.Assign)
    until = min((s.lineno for s in tree.body if binds(s) and s.lineno > at), default=1 << 30)
    parents: dict[int, ast.AST] = {}
    in_bodies: set[int] = set()
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for part in (node.body if isinstance(node.body, list) else [node.body]):
                in_bodies |= {id(n) for n in ast.walk(part)}
    found = [] if _empty(start.value) else _benchmarks(tree, start.value, decorator, True)
    if found is None:
        return None
    out = list(found)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name) or node is start.targets[0] \
                or node is decorator.args[0]:
            continue
        if id(node) in in_bodies:
            return None  # a function may change the list where this reading cannot see
        if node.lineno < start.lineno or node.lineno >= until:
            continue  # another list bound to the name
        if node.lineno > at:
            return None
        parent = parents.get(id(node))
        grand = parents.get(id(parent)) if parent is not None else None
        if isinstance(parent, ast.AugAssign) and parent.target is node and isinstance(parent.op, ast.Add):
            more = _benchmarks(tree, parent.value, decorator, True)
        elif isinstance(parent, ast.Attribute) and parent.value is node and isinstance(grand, ast.Call) \
                and grand.func is parent and len(grand.args) == 1 and not grand.keywords \
                and parent.attr in ("append", "extend"):
            argument = grand.args[0]
            more = _benchmarks(tree, argument, decorator, True) \
                if parent.attr == "extend" or _is_benchmark(argument) else None
        else:
            return None  # read another way: filtered, passed on, rebound where this reading cannot see
        if more is None:
            return None
        out += more
    return out


def _empty(node: ast.expr) -> bool:
    return isinstance(node, (ast.List, ast.Tuple)) and not node.elts


_BENCHMARK_FIELDS = ("x_names", "x_vals", "line_arg", "line_vals", "line_names", "plot_name", "args")


def _benchmark_values(benchmark: ast.Call, name: str) -> list[int] | None:
    """The values one Benchmark runs `name` at: its `x_vals` where `x_names` lists it, else its `args` entry."""
    fields: dict[str, ast.expr] = dict(zip(_BENCHMARK_FIELDS, benchmark.args))
    for keyword in benchmark.keywords:
        if keyword.arg is None:
            return None
        fields[keyword.arg] = keyword.value
    line_arg = fields.get("line_arg")
    if isinstance(line_arg, ast.Constant) and line_arg.value == name:
        return None
    x_names = fields.get("x_names")
    if not (isinstance(x_names, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in x_names.elts)):
        return None
    names = [e.value for e in x_names.elts if isinstance(e, ast.Constant)]
    if name in names:
        x_vals = fields.get("x_vals")
        return _x_values(x_vals, names.index(name), len(names)) if x_vals is not None else None
    args = fields.get("args")
    if not isinstance(args, ast.Dict):
        return None
    for key, value in zip(args.keys, args.values):
        if key is None:
            return None  # `**other`: may hold it
        if isinstance(key, ast.Constant) and key.value == name:
            literal = int_literal(value)
            return [literal] if literal is not None and literal >= 0 else None
    return None


def _x_values(x_vals: ast.expr, position: int, width: int) -> list[int] | None:
    """`x_vals` for the x name at `position`: a scalar entry goes to every x name (as `Mark._run` does)."""
    if isinstance(x_vals, (ast.List, ast.Tuple)):
        rows: list[object] = []
        for e in x_vals.elts:
            row = _evaluate(e, {})
            if row is None:
                return None
            rows.append(row)
    elif isinstance(x_vals, ast.ListComp):
        rows_found = _range_rows(x_vals)
        if rows_found is None:
            return None
        rows = list(rows_found)
    else:
        return None
    out: list[int] = []
    for row in rows:
        if isinstance(row, tuple):
            if len(row) != width:
                return None
            row = row[position]
        if not isinstance(row, int) or row < 0:
            return None
        out.append(row)
    return out


def _range_rows(comprehension: ast.ListComp) -> list[object] | None:
    """`[expr for i in range(a, b, c)]` with integer literals: the entries, computed."""
    if len(comprehension.generators) != 1:
        return None
    generator = comprehension.generators[0]
    if generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name):
        return None
    it = generator.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords
            and 1 <= len(it.args) <= 3):
        return None
    bounds = [int_literal(a) for a in it.args]
    if any(b is None for b in bounds):
        return None
    span = range(*[b for b in bounds if b is not None])
    if len(span) > _RANGE_LIMIT:
        return None
    out: list[object] = []
    for i in span:
        row = _evaluate(comprehension.elt, {generator.target.id: i})
        if row is None:
            return None
        out.append(row)
    return out


def _evaluate(node: ast.expr, names: dict[str, int]) -> object | None:
    """An integer (or a tuple of them) that literal arithmetic on `names` makes; None for anything else."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Tuple | ast.List):
        parts = [_evaluate(e, names) for e in node.elts]
        return None if any(not isinstance(p, int) for p in parts) else tuple(parts)
    value = int_literal(node)
    if value is not None:
        return value
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, names), _evaluate(node.right, names)
        if not isinstance(a, int) or not isinstance(b, int):
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Pow) and 0 <= b <= 64:
            return int(a ** b)
        if isinstance(node.op, ast.LShift) and 0 <= b <= 64:
            return a << b
        if isinstance(node.op, ast.FloorDiv) and b:
            return a // b
    return None


def _direct_values(files: Callable[[str], Iterable[Path]], path: Path, tree: ast.Module,
                   function: ast.FunctionDef, kind: str, param: str) -> list[tuple[int, int]] | None:
    """(value, line) for each call of the decorated function in its own module (`if __name__ == "__main__":
    test_op(1, 2, 1024)`) with a literal for the parameter; None when one passes something else, the module
    reads its name another way (a benchmark's `bench.run(...)` apart, with no keyword for the parameter), or
    another module of the package imports it."""
    name = function.name
    positional = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    out: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        use = _use_of(tree, node)
        if kind == "bench" and isinstance(use, ast.Call) and isinstance(use.func, ast.Attribute) \
                and use.func.attr == "run" and all(k.arg not in (None, param) for k in use.keywords):
            continue
        if not (isinstance(use, ast.Call) and use.func is node) or any(isinstance(a, ast.Starred) for a in use.args):
            return None
        index = positional.index(param) if param in positional else len(use.args)
        given = use.args[index] if index < len(use.args) else next(
            (k.value for k in use.keywords if k.arg == param), None)
        value = int_literal(given) if given is not None else None
        if value is None or value < 0 or any(k.arg is None for k in use.keywords):
            return None
        out.append((value, use.lineno))
    for file in files(name):
        if file.resolve() == path.resolve():
            continue
        other = parsed_file(str(file))
        if other is None:
            continue
        if any(isinstance(n, ast.ImportFrom) and (n.module or "").rpartition(".")[2] == path.stem
               and any(a.name in (name, "*") for a in n.names) for n in ast.walk(other)):
            return None
    return out


def _use_of(tree: ast.Module, name: ast.Name) -> ast.AST | None:
    """The call that reads `name` as its function, or as the object of the method it calls."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (node.func is name or (isinstance(node.func, ast.Attribute)
                                                                  and node.func.value is name)):
            return node
    return None
