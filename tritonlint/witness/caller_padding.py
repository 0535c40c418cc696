"""A size that every caller pads, further up than the launching function: `N_CTX=q.shape[2]` in a
launcher whose `q` each path into it has padded to a multiple of M (`pad = (M - n % M) % M`,
`q = torch.cat([q, torch.zeros(..., pad, ...)], dim=1)` under `if pad > 0:`, then `q.transpose(1, 2)`).

The reading follows the tensor up the calls, as text, never importing anything:

* in a function, a size argument is a tensor's dimension (`q.shape[2]`, `q.size(2)`, or a name unpacked
  from `q.shape` / `q.shape[:3]`); the tensor's latest assignment before the line is followed through
  `.transpose(a, b)`, `.contiguous()` and a padding `torch.cat` (the dimension moved as they move it);
  a parameter goes to the function's callers;
* a module function's callers are its calls in the module and in the package's modules that import it
  by its own name; `forward` of a class deriving from `torch.autograd.Function` is called by
  `Cls.apply(...)` (and by calls of a name bound to `Cls.apply`), its arguments binding after `ctx`;
* `backward` of such a class reads `ctx.saved_tensors`: the tensor at that position of the forward's
  `ctx.save_for_backward(...)` is followed in the forward.

Every path must pad: a function nobody calls (an entry point), a caller at module level, an argument the
reading cannot follow, an assignment under another condition, or a name used in a way the reading does
not follow (passed as a value, imported under another name) leaves the size unknown. Witness-only: it
marks a confirmation latent (`padded_latent`) when the run's size is no multiple of M and the run's tile
divides M, which is what the callers' padding makes of every launch they make.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from pathlib import Path
from typing import Any

from tritonlint.witness.analysis import module_numbers, own_nodes
from tritonlint.witness.int_literals import int_literal
from tritonlint.witness.literal_callers import (
    SHAPE_KEEPING,
    Literals,
    allocated_size,
    literal_sizes,
)
from tritonlint.witness.package_files import package_root, parsed_file

_DEPTH = 6  # calls followed up at most
# The multiple, the note saying which caller pads and how, and the callers that run the size at literal
# values (a test, a benchmark: literal_callers) with those values; the multiple divides them all.
Padded = tuple[int, str, Literals]


def caller_padded(launch: Any, finding_file: Path) -> dict[str, Padded]:
    """Kernel parameter -> (M, note) for the launch's size arguments that every path into the launching
    function pads to a multiple of M. The launch's place names its file (`ops.py:41`), read beside
    `finding_file`."""
    where = getattr(launch, "where", "")
    file_text, _, line_text = where.rpartition(":")
    path = finding_file.parent / Path(file_text).name
    if not line_text.isdigit() or not path.is_file():
        return {}
    tree = parsed_file(str(path))
    if tree is None:
        return {}
    line = int(line_text)
    found = _enclosing(tree, line)
    if found is None:
        return {}
    function, owner = found
    reader = _Reader(path)
    out: dict[str, Padded] = {}
    for param, text in getattr(launch, "args", {}).items():
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
        dim = _size_of(node, function, line)
        if dim is None:
            continue
        padded = reader.tensor(path, function, owner, dim[0], dim[1], line, _DEPTH)
        if padded is not None:
            out[param] = padded
    return out


def padded_latent(padded: dict[str, Padded], axis: str | None, extent: Any, tile: str | None, tile_value: Any) -> str:
    """Why the run's size is one the callers' padding never launches, if it is."""
    if axis is None or axis not in padded or not isinstance(extent, int) or isinstance(extent, bool):
        return ""
    if not isinstance(tile_value, int) or isinstance(tile_value, bool) or tile_value <= 0:
        return ""
    multiple, note, literals = padded[axis]
    if multiple <= 0 or extent % multiple == 0 or multiple % tile_value:
        return ""  # a padded size overruns too (or this one is padded already): the padding proves nothing
    if literals:  # tests or benchmarks among the callers: their values, not a padding, make the multiple
        return (f"every caller gives {axis} a multiple of {multiple}, a whole number of {tile} ({tile_value} here) "
                f"({note})")
    return f"the callers pad {axis} to a multiple of {multiple}, a whole number of {tile} ({tile_value} here) ({note})"


def literal_overrun(padded: dict[str, Padded], axis: str | None, tile: str | None, tile_value: Any) -> str:
    """The callers that run the size at a literal value no multiple of the run's tile: a partial tile, as the
    run's, so that test or benchmark runs out of bounds too (said in the reason; the finding stays firing)."""
    if axis is None or axis not in padded:
        return ""
    if not isinstance(tile_value, int) or isinstance(tile_value, bool) or tile_value <= 0:
        return ""
    out = []
    for label, values in padded[axis][2]:
        partial = [v for v in values if v % tile_value]
        if partial:
            out.append(f"{label}: {axis}={partial[0]} is no multiple of {tile} ({tile_value} here), a partial tile "
                       "as in this run, so that caller would run out of bounds too")
    return "; ".join(dict.fromkeys(out))


def _enclosing(tree: ast.Module, line: int) -> tuple[ast.FunctionDef, ast.ClassDef | None] | None:
    """The innermost host function (a module function or a method) whose body holds `line`, and its class."""
    best: tuple[ast.FunctionDef, ast.ClassDef | None] | None = None

    def visit(statements: list[ast.stmt], owner: ast.ClassDef | None) -> None:
        nonlocal best
        for statement in statements:
            if not statement.lineno <= line <= (statement.end_lineno or 0):
                continue
            if isinstance(statement, ast.FunctionDef):
                best = (statement, owner)
                visit(statement.body, None)
            elif isinstance(statement, ast.ClassDef):
                visit(statement.body, statement)

    visit(tree.body, None)
    return best


def _assignments(function: ast.FunctionDef, name: str, before: int) -> list[tuple[ast.Assign, int | None]]:
    """The `name = ...` statements of the function before line `before` (nested ones included, other scopes
    not), each with its element's position where the target is a tuple, in line order."""
    out: list[tuple[ast.Assign, int | None]] = []
    for node in own_nodes(function):
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With)) or node.lineno >= before:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(node, ast.With):
            targets = [item.optional_vars for item in node.items]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == name:
                out.append((node, None) if isinstance(node, ast.Assign) else (_UNREADABLE, None))
            elif isinstance(target, (ast.Tuple, ast.List)):
                for index, element in enumerate(target.elts):
                    if isinstance(element, ast.Starred) or (isinstance(element, ast.Name) and element.id == name):
                        out.append((node, index) if isinstance(node, ast.Assign)
                                   and not isinstance(element, ast.Starred) else (_UNREADABLE, None))
                        break
    out.sort(key=lambda pair: pair[0].lineno)
    return out


_UNREADABLE = ast.Assign(targets=[], value=ast.Constant(None), lineno=0)


def _shape_index(node: ast.expr) -> tuple[str, int] | None:
    """(tensor, dim) for `t.shape[d]` / `t.size(d)` with a literal, non-negative d."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.value.value, ast.Name):
        dim = int_literal(node.slice)
        return (node.value.value.id, dim) if dim is not None and dim >= 0 else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" \
            and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and not node.keywords:
        dim = int_literal(node.args[0])
        return (node.func.value.id, dim) if dim is not None and dim >= 0 else None
    return None


def _unpacked_shape(node: ast.expr) -> str | None:
    """The tensor of `t.shape` or `t.shape[:k]` (unpacked element by element from its first dimension)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is None \
            and node.slice.step is None:
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def _size_of(node: ast.expr, function: ast.FunctionDef, line: int) -> tuple[str, int] | None:
    """(tensor, dim) whose size the host text `node` is, in `function` before `line`."""
    direct = _shape_index(node)
    if direct is not None or not isinstance(node, ast.Name):
        return direct
    assigned = _assignments(function, node.id, line)
    if len(assigned) != 1:
        return None  # none, or reassigned: which value reaches the line is not one reading
    statement, index = assigned[0]
    if index is None:
        return _shape_index(statement.value)
    tensor = _unpacked_shape(statement.value)
    return (tensor, index) if tensor is not None else None


def _is_autograd_function(owner: ast.ClassDef | None) -> bool:
    """A class deriving from `torch.autograd.Function` (by its base, as written: `torch.autograd.Function`,
    `autograd.Function`, or `Function` imported from `torch.autograd`)."""
    if owner is None:
        return False
    for base in owner.bases:
        text = ast.unparse(base)
        if text in ("torch.autograd.Function", "autograd.Function", "Function"):
            return True
    return False


def _padding_test(test: ast.expr, pad: str) -> bool:
    """`if pad > 0:` / `if pad != 0:` / `if pad:`: the other way round leaves no pad to add."""
    if isinstance(test, ast.Name):
        return test.id == pad
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and test.left.id == pad and int_literal(test.comparators[0]) == 0:
        return isinstance(test.ops[0], (ast.Gt, ast.NotEq))
    return False


class _Reader:
    """Follows one tensor dimension up the calls of one package."""

    def __init__(self, path: Path) -> None:
        self.root = package_root(path)

    def tensor(self, path: Path, function: ast.FunctionDef, owner: ast.ClassDef | None, tensor: str, dim: int,
               line: int, depth: int, use: int | None = None) -> Padded | None:
        """(M, note, literals) when `tensor`'s dimension `dim` is a multiple of M at `line` of `function` on
        every path (`use`: the line that reads it, where `line` is an assignment passed over on the way)."""
        use = line if use is None else use
        if depth <= 0:
            return None
        tree = parsed_file(str(path))
        if tree is None:
            return None
        assigned = _assignments(function, tensor, line)
        if not assigned:
            params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
            if tensor not in params:
                return None
            return self.callers(path, tree, function, owner, params.index(tensor), dim, depth - 1)
        statement, index = assigned[-1]
        if statement is _UNREADABLE:
            return None
        value = statement.value
        if index is not None:
            return self.saved(path, function, owner, value, index, dim, depth)
        parents = _parents(function)
        conditions = _conditions(statement, parents, function)
        cat = _padding_cat(value, tensor, dim, function, statement.lineno)
        if cat is not None:
            pad = cat
            multiple = self.pad_multiple(path, function, pad, tensor, dim, statement.lineno)
            if multiple is None or any(not _padding_test(test, pad) for test in conditions):
                return None
            rounding = _assignments(function, pad, statement.lineno)[0][0]
            return multiple, (f"`{function.name}` pads dim {dim} of `{tensor}` to a multiple of {multiple}: "
                              f"`{ast.unparse(rounding)}` at {path.name}:{rounding.lineno}, "
                              f"`torch.cat` on dim {dim} at {path.name}:{statement.lineno}"), ()
        size = allocated_size(value, dim)
        if size is not None:  # made here: at a literal size, or a test's or benchmark's listed values
            if not _reaches(statement, parents, function, use):
                return None
            return literal_sizes(path, lambda name: _package_files(str(self.root), name), function, size,
                                 statement.lineno)
        moved = _moved(value, dim)
        if conditions:
            if moved == (tensor, dim):  # `q = q.to(...)` under a condition: the dimension either way
                return self.tensor(path, function, owner, tensor, dim, statement.lineno, depth - 1, use)
            return None  # the other way round keeps the value before: not one reading
        if moved is None:
            return None
        source, source_dim = moved
        return self.tensor(path, function, owner, source, source_dim, statement.lineno, depth - 1)

    def pad_multiple(self, path: Path, function: ast.FunctionDef, pad: str, tensor: str, dim: int,
                     line: int) -> int | None:
        """M where `pad = (M - n % M) % M`, n the size of `tensor`'s `dim`, unchanged up to `line`."""
        assigned = _assignments(function, pad, line)
        if len(assigned) != 1 or assigned[0][1] is not None or assigned[0][0] is _UNREADABLE:
            return None
        statement = assigned[0][0]
        rounded = _rounding(statement.value, path)
        if rounded is None:
            return None
        size, multiple = rounded
        read = _size_of(size, function, statement.lineno)
        if read != (tensor, dim):
            return None
        # The tensor is not reassigned between the size read and the padding.
        read_line = _read_line(size, function, statement.lineno)
        if any(read_line < s.lineno < line for s, _ in _assignments(function, tensor, line)):
            return None
        return multiple

    def saved(self, path: Path, function: ast.FunctionDef, owner: ast.ClassDef | None, value: ast.expr,
              index: int, dim: int, depth: int) -> Padded | None:
        """`a, b = ctx.saved_tensors` in `backward`: the forward's `ctx.save_for_backward(...)` at `index`."""
        params = [a.arg for a in function.args.args]
        if not (_is_autograd_function(owner) and params and isinstance(value, ast.Attribute)
                and value.attr == "saved_tensors" and isinstance(value.value, ast.Name) and value.value.id == params[0]):
            return None
        assert owner is not None
        forward = next((s for s in owner.body if isinstance(s, ast.FunctionDef) and s.name == "forward"), None)
        if forward is None or not forward.args.args:
            return None
        ctx = forward.args.args[0].arg
        saves = [n for n in own_nodes(forward) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr == "save_for_backward" and isinstance(n.func.value, ast.Name) and n.func.value.id == ctx]
        if len(saves) != 1 or any(isinstance(a, ast.Starred) for a in saves[0].args) or index >= len(saves[0].args):
            return None
        saved = saves[0].args[index]
        if not isinstance(saved, ast.Name):
            return None
        return self.tensor(path, forward, owner, saved.id, dim, saves[0].lineno, depth - 1)

    def callers(self, path: Path, tree: ast.Module, function: ast.FunctionDef, owner: ast.ClassDef | None,
                position: int, dim: int, depth: int) -> Padded | None:
        """The padding every caller of `function` gives its argument at `position`; None if one does not."""
        if owner is not None:
            if function.name != "forward" or not _is_autograd_function(owner) or position < 1:
                return None
            if any(file.resolve() != path.resolve() and _imports(parsed_file(str(file)), owner.name, path.stem)
                   for file in _package_files(str(self.root), owner.name)):
                return None  # applied in another module too: not read
            calls = _apply_calls(tree, owner.name, path)
            for alias in _apply_aliases(tree, owner.name):  # `attention = _attention.apply`, imported by name
                elsewhere = self.module_calls(path, alias)
                if calls is None or elsewhere is None:
                    return None
                calls += [found for found in elsewhere if found[0].resolve() != path.resolve()]
            position -= 1  # `apply`'s arguments bind after `ctx`
            name = function.args.args[position + 1].arg
        else:
            if not any(statement is function for statement in tree.body):
                return None  # a nested function: its callers are its enclosing function's business
            calls = self.module_calls(path, function.name)
            name = function.args.args[position].arg if position < len(function.args.args) else ""
        if not calls:
            return None  # an entry point, or a use the reading cannot follow
        notes: list[str] = []
        literals: Literals = ()
        multiple = 0
        for call_path, call_tree, call in calls:
            argument = _argument(call, position, name)
            found = _enclosing(call_tree, call.lineno)
            if argument is None or found is None:
                return None
            caller, caller_owner = found
            moved = _moved(argument, dim) if not isinstance(argument, ast.Name) else (argument.id, dim)
            if moved is None or not _read_when_defined(caller, call, moved[0]):
                return None
            padded = self.tensor(call_path, caller, caller_owner, moved[0], moved[1], call.lineno, depth)
            if padded is None:
                return None
            step, note, more = padded
            multiple = math.gcd(multiple, step)
            notes.append(note)
            literals += tuple(pair for pair in more if pair not in literals)
        shown = "; ".join(dict.fromkeys(notes))
        return multiple, shown, literals

    def module_calls(self, path: Path, name: str) -> list[tuple[Path, ast.Module, ast.Call]] | None:
        """Every call of the module function `name`, in its module and the package's modules that import it
        by name; None when a use is one this reading does not follow."""
        out: list[tuple[Path, ast.Module, ast.Call]] = []
        for file in _package_files(str(self.root), name):
            tree = parsed_file(str(file))
            if tree is None:
                return None
            if file.resolve() != path.resolve() and not _imports(tree, name, path.stem):
                continue
            calls = _calls_of(tree, name)
            if calls is None:
                return None
            out += [(file, tree, call) for call in calls]
        return out


@functools.lru_cache(maxsize=64)
def _package_files(root: str, name: str) -> tuple[Path, ...]:
    """The package's files that mention `name` (where its callers can be)."""
    named = re.compile(rf"\b{re.escape(name)}\b")
    # The plain substring test first (a word match implies it): the regex over thousands of texts took seconds.
    return tuple(file for file, text in _package_texts(root) if name in text and named.search(text))


@functools.lru_cache(maxsize=2)
def _package_texts(root: str) -> tuple[tuple[Path, str], ...]:
    """Every Python file under `root` with its text, read once per run: each name asked about searches them
    all, and reading a package of thousands of files again for each name took most of a corpus run."""
    out = []
    for file in sorted(Path(root).rglob("*.py")):
        try:
            out.append((file, file.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return tuple(out)


def _imports(tree: ast.Module | None, name: str, module: str) -> bool:
    """The module imports `name` from a module whose last part is `module` (under its own name only: an
    `as` elsewhere is caught by `_calls_of`, which finds no call)."""
    if tree is None:
        return True  # unreadable: as if it did (the caller gives up)
    return any(isinstance(node, ast.ImportFrom) and (node.module or "").rpartition(".")[2] == module
               and any(alias.name == name for alias in node.names) for node in ast.walk(tree))


def _calls_of(tree: ast.Module, name: str) -> list[ast.Call] | None:
    """The calls of `name` in the module; None when the name is used otherwise (a value passed on, an
    import under another name): called where this reading cannot see."""
    called: set[int] = set()
    out: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            called.add(id(node.func))
            out.append(node)
        elif isinstance(node, ast.ImportFrom) and any(a.name == name and a.asname not in (None, name)
                                                      for a in node.names):
            return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in called:
            return None
    return out


def _apply_calls(tree: ast.Module, owner: str, path: Path) -> list[tuple[Path, ast.Module, ast.Call]] | None:
    """`Cls.apply(...)` calls in the module, and calls of a module-level name bound to `Cls.apply`; None when
    `Cls` or such a name is used another way (it may be applied where this reading cannot see)."""
    aliases = _apply_aliases(tree, owner)
    out: list[tuple[Path, ast.Module, ast.Call]] = []
    used: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (_is_apply(node.func, owner)
                                           or (isinstance(node.func, ast.Name) and node.func.id in aliases)):
            out.append((path, tree, node))
            used.add(id(node.func))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_apply(node.value, owner):
            used.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_apply(node, owner) and id(node) not in used:
            return None
        if isinstance(node, ast.Name) and node.id in aliases and isinstance(node.ctx, ast.Load) \
                and not any(id(node) == u for u in used):
            return None
    return out


def _apply_aliases(tree: ast.Module, owner: str) -> set[str]:
    """Module-level names bound to `Cls.apply` (Triton's tutorials: `attention = _attention.apply`)."""
    return {t.id for s in tree.body if isinstance(s, ast.Assign) and _is_apply(s.value, owner)
            for t in s.targets if isinstance(t, ast.Name)}


def _is_apply(node: ast.expr, owner: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "apply" and isinstance(node.value, ast.Name) \
        and node.value.id == owner


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args[:position + 1]) or any(k.arg is None for k in call.keywords):
        return None
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _parents(function: ast.FunctionDef) -> dict[int, ast.AST]:
    out: dict[int, ast.AST] = {}
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _conditions(statement: ast.stmt, parents: dict[int, ast.AST], function: ast.FunctionDef) -> list[ast.expr]:
    """The tests of the `if`s around `statement` within the function; a loop, `try` or `with` around it
    counts as an unreadable condition (a constant False test)."""
    out: list[ast.expr] = []
    node: ast.AST = statement
    while id(node) in parents and parents[id(node)] is not function:
        parent = parents[id(node)]
        if isinstance(parent, ast.If):
            out.append(parent.test if node in parent.body else ast.Constant(False))
        elif isinstance(parent, (ast.For, ast.While, ast.Try, ast.AsyncFor)):
            out.append(ast.Constant(False))
        node = parent
    return out


def _reaches(statement: ast.stmt, parents: dict[int, ast.AST], function: ast.FunctionDef, use: int) -> bool:
    """Every path to line `use` runs `statement` (an earlier line): each `if` around it holds `use` in the
    same branch. A loop or `try` around it: not read."""
    node: ast.AST = statement
    while id(node) in parents and parents[id(node)] is not function:
        parent = parents[id(node)]
        if isinstance(parent, ast.If):
            branch = parent.body if any(node is s for s in parent.body) else parent.orelse
            if not branch[0].lineno <= use <= (branch[-1].end_lineno or 0):
                return False
        elif isinstance(parent, (ast.For, ast.While, ast.Try, ast.AsyncFor)):
            return False
        node = parent
    return True


def _read_when_defined(caller: ast.FunctionDef, call: ast.Call, name: str) -> bool:
    """A call inside a lambda reads `name` when the lambda runs: the lambda does not bind it, and the caller
    does not assign it after the lambda (its value then is the one at the lambda's line)."""
    for node in ast.walk(caller):
        if isinstance(node, ast.Lambda) and any(n is call for n in ast.walk(node.body)):
            bound = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            if name in bound or node.args.vararg or node.args.kwarg:
                return False
            after = _assignments(caller, name, 1 << 30)
            if any(s is _UNREADABLE or s.lineno >= call.lineno for s, _ in after):
                return False
    return True


def _moved(value: ast.expr, dim: int) -> tuple[str, int] | None:
    """(tensor, dim) that `value`'s dimension `dim` is: through `.transpose(a, b)` and the methods that keep
    the shape (`.contiguous()`, `.to(...)`, `.half()`, ...)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        func = value.func
        method = func.attr
        if method in SHAPE_KEEPING:
            value = func.value
        elif method == "transpose" and len(value.args) == 2 and not value.keywords:
            a, b = int_literal(value.args[0]), int_literal(value.args[1])
            if a is None or b is None or a < 0 or b < 0:
                return None
            dim = b if dim == a else a if dim == b else dim
            value = func.value
        else:
            return None
    if isinstance(value, ast.IfExp):  # `q.contiguous() if not q.is_contiguous() else q`: one tensor either way
        body, orelse = _moved(value.body, dim), _moved(value.orelse, dim)
        return body if body is not None and body == orelse else None
    return (value.id, dim) if isinstance(value, ast.Name) else None


_ALLOCATORS = ("zeros", "empty", "ones", "full", "randn", "rand", "zeros_like")


def _padding_cat(value: ast.expr, tensor: str, dim: int, function: ast.FunctionDef, line: int) -> str | None:
    """The pad's name in `torch.cat([tensor, torch.zeros(..., pad, ...)], dim=dim)`."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("cat", "concat")
            and len(value.args) >= 1 and isinstance(value.args[0], (ast.List, ast.Tuple))):
        return None
    given = [k.value for k in value.keywords if k.arg == "dim"] + value.args[1:2]
    if len(given) != 1 or int_literal(given[0]) != dim:
        return None
    parts = value.args[0].elts
    if len(parts) != 2 or not (isinstance(parts[0], ast.Name) and parts[0].id == tensor):
        return None
    pad = parts[1]
    if isinstance(pad, ast.Name):  # `padding = torch.zeros(...)` bound first
        bound = _assignments(function, pad.id, line)
        if len(bound) != 1 or bound[0][1] is not None or bound[0][0] is _UNREADABLE:
            return None
        pad = bound[0][0].value
    if isinstance(pad, ast.Call) and isinstance(pad.func, ast.Attribute) and pad.func.attr in _ALLOCATORS:
        sizes = pad.args[0].elts if len(pad.args) == 1 and isinstance(pad.args[0], (ast.Tuple, ast.List)) else pad.args
        size = sizes[dim] if dim < len(sizes) else None
        if isinstance(size, ast.Name):
            return size.id
    return None


def _rounding(value: ast.expr, path: Path) -> tuple[ast.expr, int] | None:
    """(n, M) for `(M - n % M) % M` (M a literal or a module constant)."""
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mod)):
        return None
    outer = _constant(value.right, path)
    inner = value.left
    if outer is None or not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub)):
        return None
    if _constant(inner.left, path) != outer:
        return None
    rest = inner.right
    if isinstance(rest, ast.BinOp) and isinstance(rest.op, ast.Mod) and _constant(rest.right, path) == outer:
        return rest.left, outer
    return None


def _constant(node: ast.expr, path: Path) -> int | None:
    """A positive integer written here or bound to a module-level name of the file at `path`."""
    value = int_literal(node)
    if value is None and isinstance(node, ast.Name):
        bound = module_numbers(_text(path)).get(node.id)
        value = bound if isinstance(bound, int) else None
    return value if value is not None and value > 0 else None


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _read_line(size: ast.expr, function: ast.FunctionDef, before: int) -> int:
    """The line where the size `size` names was read off its tensor (its assignment's, or `before`)."""
    if isinstance(size, ast.Name):
        assigned = _assignments(function, size.id, before)
        if assigned:
            return assigned[-1][0].lineno
    return before
