"""Divisibility a launch inherits from host code beyond its own function: its callers' tests, and
the block sizes a config chooser returns.

Two readings, both within the launching module, both on `ast` (nothing imported or run):

* **Callers' tests.** A private host function (`_launch(x, w)`: its name starts with `_`, so no
  other module is meant to call it) whose every reference in the module is a call made under
  `if x2d.shape[-1] % 128 == 0:` (or after an `assert`, or after `if ...: raise/return` on the
  negation) starts with that fact, renamed to its own parameters (`x.shape[-1] % 128 == 0`).
* **Chosen sizes.** A block given by a host name that a call of a module function returns
  (`BLOCK_M, BLOCK_K = _select_cfg(M, K)`, `cfg = _select_cfg(M, K)` ... `cfg["BLOCK_K"]`, or a
  local of the chooser such as `BLOCK_K = 256 if K % 256 == 0 else 128`) stands for every value
  the chooser can return there, each with the tests under which it is returned
  (`if K % 512 == 0: return 64, 512`), renamed to the launch's own texts.

A pair (extent, block) is kept whole when every value the block can take divides the extent by
a test on its own path or by a fact at the launch. Names are read through their last assignment
before the line (`M, K = x.shape` makes `K` the text `x.shape[1]`, and `x.shape[-1]` too when the
unpacking names the rank).
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

# A fact `left % right == 0`, as squashed host texts, with the test that states it (for notes).
Fact = tuple[str, str, str]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """A function's parameters, positional-only, ordinary and keyword-only, in order."""
    args = function.args
    return [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def compact_text(node: ast.AST) -> str:
    """The expression's source without whitespace, as tests and arguments are compared."""
    return _squash(ast.unparse(node))


def _conjuncts(test: ast.expr) -> Iterator[tuple[ast.BinOp, bool]]:
    """(`x % y`, whether the conjunct holds when it is 0) for each conjunct of `test`."""
    conjuncts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    for conjunct in conjuncts:
        if isinstance(conjunct, ast.Compare) and len(conjunct.ops) == 1 and isinstance(conjunct.left, ast.BinOp) \
                and isinstance(conjunct.left.op, ast.Mod) and compact_text(conjunct.comparators[0]) == "0":
            if isinstance(conjunct.ops[0], ast.Eq):
                yield conjunct.left, True
            elif isinstance(conjunct.ops[0], ast.NotEq):
                yield conjunct.left, False
        elif isinstance(conjunct, ast.UnaryOp) and isinstance(conjunct.op, ast.Not) \
                and isinstance(conjunct.operand, ast.BinOp) and isinstance(conjunct.operand.op, ast.Mod):
            yield conjunct.operand, True
        elif isinstance(conjunct, ast.BinOp) and isinstance(conjunct.op, ast.Mod):
            yield conjunct, False


def held(test: ast.expr, holds: bool) -> list[ast.BinOp]:
    """The `x % y` that are 0 when `test` is `holds`: each conjunct's on the true side; on the false
    side only a lone `x % y != 0` (the negation of a conjunction says nothing of one conjunct)."""
    conjuncts = list(_conjuncts(test))
    if not holds and len(conjuncts) != 1:
        return []
    return [mod for mod, zero in conjuncts if zero == holds]


class Body:
    """One function body (or the module's), with its assignments in line order: where names are read."""

    def __init__(self, statements: Sequence[ast.stmt]) -> None:
        self.assigns: dict[str, list[tuple[int, ast.expr, int, int]]] = {}  # name -> (line, value, index, count)
        self.checks: list[ast.Assert | ast.If] = []
        for statement in statements:
            for node in own_nodes(statement):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        self._bind(target, node.value, node.lineno)
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                    value = node.value if isinstance(node, ast.AnnAssign) else None
                    self.assigns.setdefault(node.target.id, []).append(
                        (node.lineno, value if value is not None else node.target, -1, 0))
                elif isinstance(node, (ast.For, ast.With, ast.comprehension)):
                    targets = [node.target] if not isinstance(node, ast.With) else \
                        [item.optional_vars for item in node.items if item.optional_vars is not None]
                    for target in targets:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):  # a loop variable: many values, none read
                                self.assigns.setdefault(name.id, []).append((getattr(node, "lineno", 0), name, -1, 0))
                elif isinstance(node, (ast.Assert, ast.If)):
                    self.checks.append(node)
        for entries in self.assigns.values():
            entries.sort(key=lambda entry: entry[0])

    def _bind(self, target: ast.expr, value: ast.expr, line: int) -> None:
        if isinstance(target, ast.Name):
            self.assigns.setdefault(target.id, []).append((line, value, -1, 0))
        elif isinstance(target, (ast.Tuple, ast.List)):
            count = len(target.elts)
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Name):
                    self.assigns.setdefault(element.id, []).append((line, value, index, count))

    def value(self, name: str, line: int) -> tuple[ast.expr, int, int] | None:
        """The value `name` holds at `line` when one assignment before it gives it (not a loop
        variable, not reassigned by augmentation): (value, index into it or -1, element count)."""
        before = [entry for entry in self.assigns.get(name, ()) if entry[0] < line]
        if not before:
            return None
        _, value, index, count = before[-1]
        if isinstance(value, ast.Name) and value.id == name:
            return None
        return value, index, count


def own_nodes(node: ast.AST) -> list[ast.AST]:
    """`node` and what it holds, short of nested functions, lambdas and classes (their names are theirs),
    in the order of a recursive walk (each node, then its children's in `ast.iter_child_nodes` order):
    one stack, where a generator per node was most of the time a launch's scope took to read."""
    found: list[ast.AST] = []
    pending = [node]
    while pending:
        current = pending.pop()
        found.append(current)
        children: list[ast.AST] = []
        for name in current._fields:
            value = getattr(current, name, None)
            if isinstance(value, ast.AST):
                if not isinstance(value, _OWN_SCOPES):
                    children.append(value)
            elif isinstance(value, list):
                children += [item for item in value if isinstance(item, ast.AST) and not isinstance(item, _OWN_SCOPES)]
        children.reverse()
        pending += children
    return found


_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class _Inline(ast.NodeTransformer):
    """A host expression with each name read through its assignment before `line`."""

    def __init__(self, body: Body, line: int, depth: int) -> None:
        self.body, self.line, self.depth = body, line, depth

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if self.depth <= 0:
            return node
        found = self.body.value(node.id, self.line)
        if found is None:
            return node
        value, index, count = found
        if index >= 0:
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == count:
                value = value.elts[index]
            else:
                value = ast.Subscript(value, ast.Constant(index))
        return inline(value, self.body, self.line, self.depth - 1)


def inline(node: ast.expr, body: Body, line: int, depth: int = 3) -> ast.expr:
    """`node` with its names replaced by their values before `line` (a few levels deep)."""
    copied = ast.parse(ast.unparse(node), mode="eval").body
    result = _Inline(body, line, depth).visit(copied)
    assert isinstance(result, ast.expr)
    return result


def aliases(text: str, body: Body, line: int) -> set[str]:
    """The texts naming the same host value as `text` at `line`: itself, its inlined form, and for
    `K` of `M, K = x.shape` (rank 2) both `x.shape[1]` and `x.shape[-1]`, `x.size(1)`, `x.size(-1)`."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return {text}
    found = {text, compact_text(inline(node, body, line))}
    if isinstance(node, ast.Name):
        bound = body.value(node.id, line)
        if bound is not None and bound[1] >= 0 and not isinstance(bound[0], (ast.Tuple, ast.List)):
            value, index, count = bound
            base = compact_text(inline(value, body, line))
            shape = re.fullmatch(r"(.+)\.shape", base)
            if shape is not None:
                for i in (index, index - count):
                    found |= {f"{shape.group(1)}.shape[{i}]", f"{shape.group(1)}.size({i})"}
    return found


_PARAM = "_tritonlint_param_"  # marks a callee's parameter while a caller's text is renamed


class _Rename(ast.NodeTransformer):
    """A caller's expression in the callee's terms: each argument's subexpression becomes the parameter."""

    def __init__(self, bound: Mapping[str, str]) -> None:
        self.bound = bound  # squashed argument text -> parameter name

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.expr):
            name = self.bound.get(compact_text(node))
            if name is not None:
                return ast.Name(_PARAM + name, ast.Load())
        return super().generic_visit(node)


def renamed(text: str, bound: Mapping[str, str]) -> str | None:
    """A caller's text in the callee's parameters; None when it names anything else of the caller
    (a caller's `x` is not the callee's `x`)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    result = _Rename(bound).visit(node)
    assert isinstance(result, ast.expr)
    names = [n.id for n in ast.walk(result) if isinstance(n, ast.Name)]
    if not all(name.startswith(_PARAM) for name in names):
        return None
    return compact_text(result).replace(_PARAM, "")


def _call_bindings(function: ast.FunctionDef, call: ast.Call) -> dict[str, ast.expr] | None:
    """Parameter -> argument of a call of `function`; None when a `*args`/`**kw` hides the binding."""
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if len(call.args) > len(params):
        return None
    bound = dict(zip(params, call.args))
    bound |= {k.arg: k.value for k in call.keywords if k.arg is not None}
    return bound


def facts_at(ifs: Sequence[tuple[ast.expr, bool]], body: Body, line: int, display: str,
             expand: Callable[[ast.expr], ast.expr] | None = None) -> list[Fact]:
    """What the host tests say is 0 at `line`: the `if` tests around it, the `assert`s before it, and
    the `if x % y != 0: raise/return` before it; each with the test's text and place. `expand`
    reads a predicate's call as the test it returns (`predicates.py`)."""
    facts: list[Fact] = []

    def held_by(test: ast.expr, holds: bool) -> list[ast.BinOp]:
        if expand is not None:
            test = expand(test)
            # `not supported(x)` read as `not (a and k % 256 == 0)`: its false side is the test's true one.
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.BoolOp):
                test, holds = test.operand, not holds
        return held(test, holds)

    def add(mods: list[ast.BinOp], where: str) -> None:
        for mod in mods:
            for left in aliases(compact_text(mod.left), body, line):
                facts.append((left, compact_text(inline(mod.right, body, line)), where))
                facts.append((left, compact_text(mod.right), where))

    for test, side in ifs:
        add(held_by(test, side), f"`if {ast.unparse(test)}:` at {display}:{test.lineno}")
    for node in body.checks:
        if node.lineno >= line:
            continue
        if isinstance(node, ast.Assert):
            add(held_by(node.test, True), f"`assert {ast.unparse(node.test)}` at {display}:{node.lineno}")
        elif node.body and isinstance(node.body[-1], (ast.Raise, ast.Return)) and not node.orelse:
            exit_ = "raise" if isinstance(node.body[-1], ast.Raise) else "return"
            add(held_by(node.test, False), f"`if {ast.unparse(node.test)}: {exit_}` at {display}:{node.lineno}")
    return facts


class _LazyBody:
    """A `Body` built on first use: most bodies a module holds never see a call that is asked about."""

    def __init__(self, statements: Sequence[ast.stmt]) -> None:
        self.statements = statements
        self.built: Body | None = None

    def get(self) -> Body:
        if self.built is None:
            self.built = Body(self.statements)
        return self.built


class CallIndex:
    """The calls of each of `names` in a module, each with the `if` tests around it and the body it
    is in, and every other reference to one of them (a function passed as a value may be called
    anywhere), found in one walk of the module for all the names."""

    def __init__(self, tree: ast.Module, names: set[str], lines: Sequence[int] | None = None) -> None:
        """`lines`, sorted, holds every line where one of `names` may be read (None: any line): a
        statement spanning none of them holds no reference and is not walked."""
        self.names = names
        self.lines = lines
        self.calls: dict[str, list[tuple[ast.Call, tuple[tuple[ast.expr, bool], ...], _LazyBody]]] = {}
        self.refs: dict[str, list[ast.Name]] = {}
        if names and lines != []:
            self._statements(tree.body, (), _LazyBody(tree.body))

    def _names_one(self, statement: ast.stmt) -> bool:
        if self.lines is None:
            return True
        first = statement.lineno
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([first, *(decorator.lineno for decorator in statement.decorator_list)])
        at = bisect.bisect_left(self.lines, first)
        return at < len(self.lines) and self.lines[at] <= (statement.end_lineno or statement.lineno)

    def found(self, name: str) -> tuple[list[tuple[ast.Call, tuple[tuple[ast.expr, bool], ...], Body]],
                                        list[ast.Name]]:
        calls = [(call, ifs, body.get()) for call, ifs, body in self.calls.get(name, ())]
        return calls, self.refs.get(name, [])

    def _statements(self, statements: Sequence[ast.stmt], ifs: tuple[tuple[ast.expr, bool], ...],
                    body: _LazyBody) -> None:
        for statement in statements:
            if not self._names_one(statement):
                continue
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._statements(statement.body, (), _LazyBody(statement.body))
                for decorator in statement.decorator_list + statement.args.defaults:
                    self._references(decorator, ifs, body)
                continue
            if isinstance(statement, ast.ClassDef):
                self._statements(statement.body, (), _LazyBody(statement.body))
                continue
            for field, value in ast.iter_fields(statement):
                if field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    continue
                for node in value if isinstance(value, list) else [value]:
                    if isinstance(node, ast.AST):
                        self._references(node, ifs, body)
            if isinstance(statement, ast.If):
                self._statements(statement.body, (*ifs, (statement.test, True)), body)
                self._statements(statement.orelse, (*ifs, (statement.test, False)), body)
                continue
            for field in ("body", "orelse", "finalbody"):
                inner_statements = getattr(statement, field, None)
                if isinstance(inner_statements, list):
                    self._statements(inner_statements, ifs, body)
            for handler in getattr(statement, "handlers", ()):
                self._statements(handler.body, ifs, body)
            for case in getattr(statement, "cases", ()):
                self._statements(case.body, ifs, body)

    def _references(self, node: ast.AST, ifs: tuple[tuple[ast.expr, bool], ...], body: _LazyBody) -> None:
        called: set[int] = set()
        names: list[ast.Name] = []
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name):
                if inner.id in self.names:
                    names.append(inner)
            elif isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in self.names:
                self.calls.setdefault(inner.func.id, []).append((inner, ifs, body))
                called.add(id(inner.func))
        for name in names:
            if id(name) not in called:
                self.refs.setdefault(name.id, []).append(name)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def dead_private_functions(tree: ast.Module, index: CallIndex | None = None) -> list[ast.FunctionDef]:
    """The module's private functions that nothing in the module calls or names: under the reading
    `caller_facts` already makes of a private function (no other module is meant to call it), dead."""
    dead = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and _private(statement.name):
            naming = _index_naming(tree, statement.name, index)
            if not naming.calls.get(statement.name) and not naming.refs.get(statement.name):
                dead.append(statement)
    return dead


def live_caller_facts(tree: ast.Module, function: ast.FunctionDef, display: str,
                      expand: Callable[[ast.expr], ast.expr] | None = None,
                      index: CallIndex | None = None) -> list[Fact]:
    """`caller_facts` with the calls made from a dead private function left out (`_quantize_then_run`
    calling the launcher untested, while nothing calls `_quantize_then_run`), each fact's note
    naming the dead caller; [] when no caller is dead (then `caller_facts` says all there is)."""
    if not _private(function.name):
        return []
    dead = [f for f in dead_private_functions(tree, index) if f is not function]

    def holder(call: ast.Call) -> ast.FunctionDef | None:
        return next((f for f in dead if f.lineno <= call.lineno <= (f.end_lineno or f.lineno)), None)

    def in_dead(call: ast.Call) -> bool:
        return holder(call) is not None

    calls = _index_naming(tree, function.name, index).calls.get(function.name, ())
    skipped = sorted({f"`{f.name}` ({display}:{f.lineno})" for call, _, _ in calls if (f := holder(call)) is not None})
    if not skipped:
        return []
    facts = caller_facts(tree, function, display, expand, index, skip=in_dead)
    note = "; the untested call in " + ", ".join(skipped) + " is dead: nothing in the module calls it"
    return [(left, right, where + note) for left, right, where in facts]


def _index_naming(tree: ast.Module, name: str, index: CallIndex | None) -> CallIndex:
    """`index` when it was built for this tree and names `name` (one walk of the module for every
    function asked about), else an index of `name` alone."""
    return index if index is not None and name in index.names else CallIndex(tree, {name})


def caller_facts(tree: ast.Module, function: ast.FunctionDef, display: str,
                 expand: Callable[[ast.expr], ast.expr] | None = None, index: CallIndex | None = None,
                 skip: Callable[[ast.Call], bool] | None = None) -> list[Fact]:
    """The facts every call of the private host function `function` in its module makes at its
    entry, in its own parameters' terms; [] when it is public, never called, or referenced other
    than by a call (a function passed on may be called under no test). `index`, when it was built
    for this tree and names the function, saves the walk of the module for each function asked.
    `skip` leaves out the calls it is true of (`live_caller_facts`: those in dead code)."""
    if not _private(function.name):
        return []
    calls, refs = _index_naming(tree, function.name, index).found(function.name)
    if skip is not None:
        calls = [(call, ifs, body) for call, ifs, body in calls if not skip(call)]
    if refs or not calls:
        return []
    common: dict[tuple[str, str], str] | None = None
    for call, ifs, body in calls:
        bound = _call_bindings(function, call)
        if bound is None:
            return []
        # A caller's argument, inlined, stands for the parameter wherever it appears in its facts.
        names: dict[str, str] = {}
        for param, argument in bound.items():
            names[compact_text(argument)] = param
            names.setdefault(compact_text(inline(argument, body, call.lineno)), param)
        here: dict[tuple[str, str], str] = {}
        for left, right, where in facts_at(ifs, body, call.lineno, display, expand):
            left_text, right_text = renamed(left, names), renamed(right, names)
            if left_text is not None and right_text is not None:
                here.setdefault((left_text, right_text), where)
        common = here if common is None else \
            {key: where if here[key] == where else f"{where}, {here[key]}" for key, where in common.items() if key in here}
        if not common:
            return []
    reassigned = Body(function.body).assigns.keys() & set(parameter_names(function))
    return [(left, right, where) for (left, right), where in (common or {}).items()
            if not _names(left) & reassigned and not _names(right) & reassigned]


def _names(text: str) -> set[str]:
    try:
        return {node.id for node in ast.walk(ast.parse(text, mode="eval")) if isinstance(node, ast.Name)}
    except SyntaxError:
        return set()


# A value a block can take: (squashed text, the facts that hold where it is chosen).
Choice = tuple[str, tuple[Fact, ...]]


def choices(text: str, body: Body, line: int, functions: Mapping[str, ast.FunctionDef], display: str,
            depth: int = 6, constants: Mapping[str, int] | None = None) -> list[Choice] | None:
    """Every value the host text of a block can take at `line`, each with the tests its path makes
    (in the launch's terms); None when a value is not a literal reached through names, tuples,
    conditional expressions and module functions' returns. With `constants` (the module's integer
    constants), a name no body assigns is read as the constant (`return (128, 128, _BLOCK_K)`)."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    return _choices(node, body, line, functions, display, depth, constants)


def _choices(node: ast.expr, body: Body, line: int, functions: Mapping[str, ast.FunctionDef], display: str,
             depth: int, constants: Mapping[str, int] | None = None) -> list[Choice] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return [(str(node.value), ())] if node.value > 0 else None
    if depth <= 0:
        return None
    if isinstance(node, ast.IfExp):
        true = _choices(node.body, body, line, functions, display, depth, constants)
        false = _choices(node.orelse, body, line, functions, display, depth, constants)
        if true is None or false is None:
            return None
        where = f"`{ast.unparse(node)}` at {display}:{node.lineno}"
        tested = tuple((compact_text(inline(mod.left, body, line)), compact_text(mod.right), where) for mod in held(node.test, True))
        return [(value, facts + tested) for value, facts in true] + false
    if isinstance(node, ast.Name):
        found = body.value(node.id, line)
        if found is None:
            if constants is not None and node.id in constants and node.id not in body.assigns:
                return [(str(constants[node.id]), ())] if constants[node.id] > 0 else None
            return None
        value, index, count = found
        if index >= 0:
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == count:
                return _choices(value.elts[index], body, line, functions, display, depth - 1, constants)
            return _returned(value, lambda v: _element(v, index, count), body, line, functions, display, depth,
                             constants)
        return _choices(value, body, line, functions, display, depth - 1, constants)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, (str, int)):
        key = node.slice.value
        source = node.value
        if isinstance(source, ast.Name):
            found = body.value(source.id, line)
            if found is None or found[1] >= 0:
                return None
            source = found[0]
        return _returned(source, lambda v: _keyed(v, key), body, line, functions, display, depth, constants)
    return None


def _element(value: ast.expr, index: int, count: int) -> ast.expr | None:
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == count:
        return value.elts[index]
    return None


def _keyed(value: ast.expr, key: str | int) -> ast.expr | None:
    if isinstance(value, ast.Dict):
        for k, v in zip(value.keys, value.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    if isinstance(value, (ast.Tuple, ast.List)) and isinstance(key, int) and -len(value.elts) <= key < len(value.elts):
        return value.elts[key]
    return None


def _returned(call: ast.expr, pick: object, body: Body, line: int, functions: Mapping[str, ast.FunctionDef],
              display: str, depth: int, constants: Mapping[str, int] | None = None) -> list[Choice] | None:
    """The choices of one part (`pick` of each returned value) of what a module function returns."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in functions):
        return None
    function = functions[call.func.id]
    bound = _call_bindings(function, call)
    if bound is None:
        return None
    inner_body = Body(function.body)
    # The chooser's parameters, in the launch's terms (through the launch's own names).
    outer = {param: compact_text(inline(arg, body, line)) for param, arg in bound.items()}
    found: list[Choice] = []
    for returned, tests, at in _returns(function.body, ()):
        if returned is None:
            return None
        for branch, branch_tests in _branches(returned):
            part = pick(branch)  # type: ignore[operator]
            if part is None:
                return None
            values = _choices(part, inner_body, at, functions, display, depth - 1, constants)
            if values is None:
                return None
            path = tuple((compact_text(inline(mod.left, inner_body, at)), compact_text(mod.right),
                          f"`if {ast.unparse(test)}:` at {display}:{test.lineno}")
                         for test in (*tests, *branch_tests) for mod in held(test, True))
            for value, facts in values:
                found.append((value, tuple(_outer(fact, outer) for fact in (*facts, *path))))
    return found or None


def _outer(fact: Fact, outer: Mapping[str, str]) -> Fact:
    """A chooser's fact in the caller's terms: its parameters replaced by the call's arguments."""
    left, right, where = fact
    try:
        node = ast.parse(left, mode="eval").body
    except SyntaxError:
        return fact

    class _Params(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.expr:
            if name.id in outer:
                return ast.parse(outer[name.id], mode="eval").body
            return name

    return compact_text(_Params().visit(node)), right, where


def _branches(value: ast.expr) -> Iterator[tuple[ast.expr, tuple[ast.expr, ...]]]:
    """`a if t else b` returned: `a` under `t`, `b` under nothing known."""
    if isinstance(value, ast.IfExp):
        for branch, tests in _branches(value.body):
            yield branch, (value.test, *tests)
        yield from _branches(value.orelse)
    else:
        yield value, ()


def _returns(statements: Sequence[ast.stmt], tests: tuple[ast.expr, ...]
             ) -> Iterator[tuple[ast.expr | None, tuple[ast.expr, ...], int]]:
    """Each `return` of a function body (not of nested functions), with the `if` tests around it and its line."""
    for statement in statements:
        if isinstance(statement, ast.Return):
            yield statement.value, tests, statement.lineno
        elif isinstance(statement, ast.If):
            yield from _returns(statement.body, (*tests, statement.test))
            yield from _returns(statement.orelse, tests)
        elif isinstance(statement, (ast.For, ast.While, ast.With, ast.Try)):
            for name in ("body", "orelse", "finalbody"):
                yield from _returns(getattr(statement, name, []), tests)
            for handler in getattr(statement, "handlers", ()):
                yield from _returns(handler.body, tests)


def kept_whole(extent: str, options: Sequence[Choice], body: Body, line: int, facts: Sequence[Fact]) -> str:
    """The tests that keep the host text `extent` a multiple of every value a block can take at
    `line` (its `choices`); "" when some value is not kept: from the facts at the launch, and from
    the tests under which a chooser returns each value."""
    # A value no test's divisor names is kept by none: asked before the extent's aliases (a parse and
    # an inlining each), which most pairs never need.
    if not options or any(all(right != value for _, right, _ in (*path, *facts)) for value, path in options):
        return ""
    names = aliases(extent, body, line)
    used: list[str] = []
    for value, path in options:
        where = next((w for left, right, w in (*path, *facts) if left in names and right == value), "")
        if not where:
            return ""
        if where not in used:
            used.append(where)
    return ", ".join(used)
