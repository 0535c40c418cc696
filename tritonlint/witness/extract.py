"""Cut a kernel, the jit helpers it calls and the globals they read out of a file into a module that runs alone.

The analysed module is never imported: its other imports may need a GPU, a package that is not
installed, or run code at import. The generated module holds a fixed header (triton, tl, math,
torch), the module-level names the kernel reads (constants, helpers from sibling modules), and
then the kernel's own file's jit functions at their original lines shifted by `offset`, so a line
the interpreter guard reports maps back to the analysed file by subtracting `offset`.
`triton.autotune` is dropped (the synthesizer picks one of its configs); `triton.heuristics` is
kept, so flags it computes follow the sizes of the launch.
"""

from __future__ import annotations

import ast
import builtins
import copy
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from tritonlint.verify.interpreter_compat import repro_lines

HEADER = [
    "import math",
    "import functools",
    "import triton",
    "import triton.language as tl",
    "import torch",
    "from triton.language.extra import libdevice",
    "class _TritonlintUnresolved:  # a module-level value that could not be computed here",
    "    def __getattr__(self, name): return self",
    "    def __call__(self, *args, **kwargs): return self",
]
# Modules a kernel file imports that are safe and useful to import in the generated module too.
_KEPT_MODULES = ("triton", "math", "functools", "torch", "typing", "numpy", "operator", "enum", "os")
# Names a re-export such as `from pkg.triton_utils import tl, triton` stands for.
_REEXPORTS = {"tl": "import triton.language as tl", "triton": "import triton",
              "language": "import triton.language as language", "libdevice": ""}
_BUILTINS = set(dir(builtins))
# How many names deep a foreign definition is followed (a helper's helper, a re-export of a re-export):
# a kernel's epilogue reaches `triton.language.target_info` through five steps in packages that vendor
# their numerics helpers, and a step costs one file read at most.
MAX_IMPORT_DEPTH = 8


class ExtractError(Exception):
    """The kernel cannot be cut out of its file (the reason is the message)."""


@dataclass
class Kernel:
    """A jit function found in a file."""

    name: str
    node: ast.FunctionDef
    first_line: int  # of the first decorator
    last_line: int
    decorators: list[str] = field(default_factory=list)  # source text of each decorator
    autotune: ast.Call | None = None  # the triton.autotune(...) decorator, if any
    wrapped: bool = False  # made a kernel by `k = triton.jit(f)`, not by a decorator
    heuristics: ast.Call | None = None


@dataclass
class Extracted:
    """The generated module's text and what the synthesizer needs to know about it."""

    source: str
    offset: int  # generated line = original line + offset, for lines of the kernel's file
    kernel: Kernel
    helpers: dict[str, Kernel]  # every jit function the kernel reaches, by name (the kernel included)
    file_kernels: dict[str, Kernel]  # every jit function of the file


def _is_jit_decorator(node: ast.expr) -> bool:
    text = ast.unparse(node)
    head = text.split("(")[0]
    return head.split(".")[-1] in ("jit", "autotune", "heuristics") and "jit" in text or \
        head.split(".")[-1] == "jit"


def _decorator_kind(node: ast.expr) -> str:
    head = ast.unparse(node.func if isinstance(node, ast.Call) else node).split(".")[-1]
    return head


def jit_functions(tree: ast.Module) -> dict[str, Kernel]:
    """Every function decorated with a `jit` (however imported), at any nesting, by name."""
    found: dict[str, Kernel] = {}
    wrapped = _jitted_by_assignment(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        kinds = [_decorator_kind(d) for d in node.decorator_list]
        if "jit" not in kinds and node.name not in wrapped:
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        kernel = Kernel(node.name, node, first, node.end_lineno or node.lineno, wrapped="jit" not in kinds)
        if "jit" not in kinds:
            kernel.heuristics, kernel.autotune = wrapped[node.name]
        for d, kind in zip(node.decorator_list, kinds):
            if kind == "autotune" and isinstance(d, ast.Call):
                kernel.autotune = d
            elif kind == "heuristics" and isinstance(d, ast.Call):
                kernel.heuristics = d
        found.setdefault(node.name, kernel)
    return found


def _jitted_by_assignment(tree: ast.Module) -> dict[str, tuple[ast.Call | None, ast.Call | None]]:
    """Functions made kernels after their definition, by name: `k = triton.jit(f)`, or with the
    decorators applied as calls, `k = triton.autotune(...)(triton.heuristics({...})(triton.jit(f)))`;
    each with the `triton.heuristics(...)` and `triton.autotune(...)` calls of its assignment, read as
    the decorators would be."""
    out: dict[str, tuple[ast.Call | None, ast.Call | None]] = {}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
            continue
        calls = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]
        jitted = [c.args[0].id for c in calls if _decorator_kind(c) == "jit" and c.args and isinstance(c.args[0], ast.Name)]
        if len(jitted) != 1:
            continue
        heuristics = next((c for c in calls if _decorator_kind(c) == "heuristics"), None)
        autotune = next((c for c in calls if _decorator_kind(c) == "autotune"), None)
        out[jitted[0]] = (heuristics, autotune)
    return out


def _literal_heuristics(decorator: ast.expr) -> bool:
    """False for `triton.heuristics(values)` with no dict literal (`runtime.get_heuristic_config("mm")`):
    a table the generated module cannot build, dropped like autotune; the launch then passes the
    values it names as constexprs (the synthesizer reads heuristics from dict literals only)."""
    if _decorator_kind(decorator) != "heuristics":
        return True
    return isinstance(decorator, ast.Call) and bool(decorator.args) and isinstance(decorator.args[0], ast.Dict)


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} | \
        {n.value.id for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}


def _local_names(fn: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
    return names


def _module_bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    """Top-level statements binding each name (the last one wins, as at import)."""
    out: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        targets: list[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            targets = [stmt.name]
        elif isinstance(stmt, ast.Assign):
            targets = [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            targets = [stmt.target.id]
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            targets = [(a.asname or a.name).split(".")[0] for a in stmt.names]
        elif isinstance(stmt, (ast.If, ast.Try)):
            # `if HAS_X: from x import y` / `try: import x except ...`: the first branch's bindings
            for inner in stmt.body:
                for name, s in _module_bindings(ast.Module(body=[inner], type_ignores=[])).items():
                    out.setdefault(name, s)
            continue
        for name in targets:
            out[name] = stmt
    return out


@dataclass
class _OtherBranches:
    """Where a top-level `if`/`try` binds a name in its first branch: the test choosing that branch
    (None for a `try`) and the assignments of the name in the other branches."""

    test: ast.expr | None
    assignments: list[ast.stmt]


def _other_branch_bindings(tree: ast.Module) -> dict[str, _OtherBranches]:
    """Assignments in the other branches of a top-level `if`/`try` (`if FAST: exp = fast.expf`
    `else: exp = tl.exp`), by name: the generated module evaluates the `if`'s test itself where it
    can (an environment flag) and takes another branch's value where the first cannot be computed
    there (its module is not importable)."""
    out: dict[str, _OtherBranches] = {}
    for stmt in tree.body:
        others: list[ast.stmt] = []
        test: ast.expr | None = None
        if isinstance(stmt, ast.If):
            others, test = list(stmt.orelse), stmt.test
        elif isinstance(stmt, ast.Try):
            others = [s for handler in stmt.handlers for s in handler.body] + list(stmt.orelse)
        for inner in others:
            if not isinstance(inner, (ast.Assign, ast.AnnAssign, ast.If, ast.Try)):
                continue
            for name, s in _module_bindings(ast.Module(body=[inner], type_ignores=[])).items():
                if isinstance(s, (ast.Assign, ast.AnnAssign)):
                    out.setdefault(name, _OtherBranches(test, [])).assignments.append(s)
    return out


def _assignment_chain(stmts: list[ast.stmt], last: list[str]) -> list[str]:
    """`try: <first> except Exception:` then each next assignment in turn, and `last` when all fail."""
    if not stmts:
        return last
    rest = _assignment_chain(stmts[1:], last)
    return ["try:", textwrap.indent(ast.unparse(stmts[0]), "    "), "except Exception:",
            *textwrap.indent("\n".join(rest), "    ").split("\n")]


def _assignment_with_fallbacks(stmt: ast.stmt, others: _OtherBranches | None, last: list[str]) -> list[str]:
    """The assignment, falling back on the other branches' ones; where an `if` chose the branch, its
    test (evaluated here, the first branch when it cannot be) orders them."""
    if others is None:
        return _assignment_chain([stmt], last)
    first = _assignment_chain([stmt, *others.assignments], last)
    if others.test is None:
        return first
    second = _assignment_chain([*others.assignments, stmt], last)
    return ["try:", f"    _tritonlint_branch = bool({ast.unparse(others.test)})", "except Exception:",
            "    _tritonlint_branch = True", "if _tritonlint_branch:",
            *textwrap.indent("\n".join(first), "    ").split("\n"), "else:",
            *textwrap.indent("\n".join(second), "    ").split("\n")]


def _fallback_names(others: _OtherBranches | None) -> set[str]:
    if others is None:
        return set()
    found: set[str] = set()
    for node in [*others.assignments, *([others.test] if others.test is not None else [])]:
        found |= _names_read(node)
    return found


def _resolve_module(path: Path, module: str | None, level: int) -> Path | None:
    """The file a `from module import ...` names, looked up beside the analysed file."""
    parts = (module or "").split(".") if module else []
    if level:
        base = path.parent
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        bases = list(path.parents)[:8]
    for base in bases:
        candidate = base.joinpath(*parts) if parts else base
        for option in (candidate.with_suffix(".py"), candidate / "__init__.py"):
            if parts and option.is_file():
                return option
        if not parts and (candidate / "__init__.py").is_file():
            return candidate / "__init__.py"
    return None


class _Builder:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = text.splitlines()
        try:
            self.tree = ast.parse(text)
        except SyntaxError as error:
            raise ExtractError(f"the file does not parse: {error.msg}") from error
        self.kernels = jit_functions(self.tree)
        self.bindings = _module_bindings(self.tree)
        self.other_bindings = _other_branch_bindings(self.tree)
        self.header: list[str] = list(HEADER)
        self.placed: dict[int, list[str]] = {}  # first original line -> lines of the chunk
        self.done: set[str] = set()
        self.foreign: dict[Path, tuple[ast.Module, dict[str, ast.stmt], str]] = {}
        self.missing: list[str] = []
        # jit functions imported from sibling modules, by the name the kernel calls them: the
        # synthesizer reads how they use the parameters the kernel hands them (a pointer loaded there).
        self.foreign_kernels: dict[str, Kernel] = {}

    def chunk(self, first: int, last: int) -> list[str]:
        return textwrap.dedent("\n".join(self.lines[first - 1:last])).split("\n")

    def want(self, name: str, scope_locals: set[str]) -> None:
        if name in self.done or name in scope_locals or name in _BUILTINS:
            return
        self.done.add(name)
        stmt = self.bindings.get(name)
        # A jit function nested in a function or a class (no binding of its own), or one jitted by
        # assignment (`fn = triton.jit(fn)` binds the name last: the function is cut out, and wrapped
        # after the body as the file does; evaluating the assignment alone finds no `fn` to wrap).
        if stmt is None or (name in self.kernels and self.kernels[name].wrapped):
            if name in self.kernels:
                self.add_function(self.kernels[name].node)
            return
        if isinstance(stmt, ast.FunctionDef):
            self.add_function(stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.add_import(stmt, name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            # A value the generated module cannot compute (`torch.finfo(platform.fp8_dtype())`) still
            # binds its names, to a stand-in, so that a default reading it (`FP8_MAX: tl.constexpr =
            # info.max`) does not stop the kernel's `def`; the launch passes every constexpr itself.
            targets = [n.id for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                       for n in ast.walk(t) if isinstance(n, ast.Name)]
            fallback = [f"    {t} = _TritonlintUnresolved()" for t in targets] or ["    pass"]
            others = self.other_bindings.get(name)
            # What it reads first: the generated module runs top to bottom.
            for inner in sorted(_names_read(stmt) | _fallback_names(others)):
                self.want(inner, set())
            self.header += _assignment_with_fallbacks(stmt, others, fallback)
        elif isinstance(stmt, ast.ClassDef):
            self.header += ["try:", textwrap.indent(ast.unparse(stmt), "    "), "except Exception:", "    pass"]

    def add_function(self, fn: ast.FunctionDef) -> None:
        first = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
        lines = self.chunk(first, fn.end_lineno or fn.lineno)
        # Autotune is dropped: the launch names one config's values itself.
        kept = []
        skip_until = 0
        for d in fn.decorator_list:
            if _decorator_kind(d) in ("autotune",) or _decorator_kind(d) not in ("jit", "heuristics") \
                    or not _literal_heuristics(d):
                for ln in range(d.lineno, (d.end_lineno or d.lineno) + 1):
                    lines[ln - first] = ""
                skip_until = max(skip_until, d.end_lineno or d.lineno)
            else:
                kept.append(d)
        for d in kept:  # spelled through the header's names, whatever alias the file used
            if _decorator_kind(d) == "jit":
                ln = d.lineno - first
                indent = lines[ln][: len(lines[ln]) - len(lines[ln].lstrip())]
                lines[ln] = indent + "@triton.jit"
                for extra in range(d.lineno + 1, (d.end_lineno or d.lineno) + 1):
                    lines[extra - first] = ""
            elif isinstance(d, ast.Call):
                head = ast.unparse(d.func)
                ln = d.lineno - first
                lines[ln] = lines[ln].replace(head, "triton.heuristics", 1)
        self.placed[first] = lines
        scope = _local_names(fn)
        # The dropped decorators' names are not wanted (`libtuner`, whose module needs its own package).
        bare = copy.copy(fn)
        bare.decorator_list = kept
        for name in sorted(_names_read(bare)):
            self.want(name, scope)

    def add_import(self, stmt: ast.Import | ast.ImportFrom, name: str) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if (alias.asname or alias.name).split(".")[0] == name:
                    root = alias.name.split(".")[0]
                    target = _resolve_module(self.path, alias.name, 0) if alias.asname else None
                    if root in _KEPT_MODULES:
                        self.header.append(ast.unparse(ast.Import(names=[alias])))
                    elif target is not None and target.name != "__init__.py":
                        self.add_module_alias(target, name)  # `import lang_ext as tle` beside the file
                    else:
                        self.missing.append(f"module `{alias.name}`")
            return
        alias = next(a for a in stmt.names if (a.asname or a.name) == name)
        module = stmt.module or ""
        if stmt.level == 0 and module.split(".")[0] in _KEPT_MODULES:
            self.header.append(f"from {module} import {alias.name}" + (f" as {alias.asname}" if alias.asname else ""))
            return
        if _REEXPORTS.get(alias.name):
            line = _REEXPORTS[alias.name]
            self.header.append(line if alias.asname is None else line.split(" as ")[0] + f" as {alias.asname}")
            return
        if alias.name == "libdevice":
            return
        target = _resolve_module(self.path, stmt.module, stmt.level)
        if target is None:
            self.missing.append(f"`{name}` from `{'.' * stmt.level}{module}`")
            return
        submodule = target.parent / f"{alias.name}.py" if target.name == "__init__.py" else None
        if submodule is not None and submodule.is_file() and alias.name not in _module_bindings(
                ast.parse(target.read_text(encoding="utf-8", errors="replace"))):
            self.add_module_alias(submodule, name)
            return
        self.add_foreign(target, alias.name, alias.asname or alias.name, 0)

    def add_module_alias(self, path: Path, as_name: str) -> None:
        """A sibling module imported by name (`from pkg.utils import lang_ext as tle`): the attributes
        the file reads through it (`tle.program_id`) are cut out of that module under private names,
        and `tle` binds a namespace holding them."""
        used = sorted({n.attr for n in ast.walk(self.tree) if isinstance(n, ast.Attribute)
                       and isinstance(n.value, ast.Name) and n.value.id == as_name})
        fields = []
        for attr in used:
            private = f"_{as_name}__{attr}"
            before = len(self.missing)
            self.add_foreign(path, attr, private, 1)
            if len(self.missing) == before:
                fields.append(f"{attr}={private}")
        self.header += ["import types as _tritonlint_types",  # one entry a line: the offset counts entries
                        f"{as_name} = _tritonlint_types.SimpleNamespace(" + ", ".join(fields) + ")"]

    def add_foreign(self, path: Path, name: str, as_name: str, depth: int) -> None:
        if depth > MAX_IMPORT_DEPTH:
            self.missing.append(f"`{name}` (imports nested too deep)")
            return
        if path not in self.foreign:
            try:
                text = path.read_text(encoding="utf-8")
                tree = ast.parse(text)
            except (OSError, SyntaxError, UnicodeDecodeError):
                self.missing.append(f"`{name}` from {path.name}")
                return
            self.foreign[path] = (tree, _module_bindings(tree), text)
        tree, bindings, _text = self.foreign[path]
        others = _other_branch_bindings(tree).get(name)
        stmt = bindings.get(name)
        if stmt is None:
            self.missing.append(f"`{name}` from {path.name}")
            return
        if isinstance(stmt, ast.ImportFrom):
            alias = next(a for a in stmt.names if (a.asname or a.name) == name)
            if stmt.level == 0 and (stmt.module or "").split(".")[0] in _KEPT_MODULES:
                self.header.append(f"from {stmt.module} import {alias.name} as {as_name}")
                return
            if _REEXPORTS.get(alias.name):
                self.header.append(_REEXPORTS[alias.name].split(" as ")[0] + f" as {as_name}")
                return
            target = _resolve_module(path, stmt.module, stmt.level)
            if target is None:
                self.missing.append(f"`{name}` from `{stmt.module}`")
                return
            self.add_foreign(target, alias.name, as_name, depth + 1)
            return
        if isinstance(stmt, ast.FunctionDef):
            fn = stmt
            decorators = []
            for d in fn.decorator_list:
                kind = _decorator_kind(d)
                if kind == "jit":
                    decorators.append("@triton.jit")
                elif kind == "heuristics" and isinstance(d, ast.Call) and _literal_heuristics(d):
                    decorators.append("@triton.heuristics(" + ", ".join(ast.unparse(a) for a in d.args) + ")")
            renamed = copy.copy(fn)
            renamed.name = as_name
            if any(_decorator_kind(d) == "jit" for d in fn.decorator_list):
                self.foreign_kernels.setdefault(as_name, Kernel(as_name, fn, fn.lineno, fn.end_lineno or fn.lineno))
            renamed.decorator_list = []
            renamed.returns = None
            body = ast.unparse(renamed)
            # What it reads first: its default values are evaluated when the def runs.
            scope = _local_names(fn)
            for inner in sorted(_names_read(fn)):
                if inner in scope or inner in _BUILTINS or inner in self.done:
                    continue
                self.done.add(inner)
                if inner in bindings:
                    self.add_foreign(path, inner, inner, depth + 1)
            self.header += decorators + body.split("\n")
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            # What it reads first: the generated module runs top to bottom.
            for inner in sorted(_names_read(stmt) | _fallback_names(others)):
                if inner in bindings and inner not in self.done:
                    self.done.add(inner)
                    self.add_foreign(path, inner, inner, depth + 1)
            self.header += _assignment_with_fallbacks(stmt, others, ["    pass"])
            if as_name != name:
                self.header += [f"if {name!r} in globals():", f"    {as_name} = {name}"]
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.split(".")[0] in _KEPT_MODULES:
                    self.header.append(ast.unparse(ast.Import(names=[alias])))

    def build(self, kernel: Kernel) -> Extracted:
        self.add_function(kernel.node)
        self.done.add(kernel.name)
        header = list(dict.fromkeys(self.header[: len(HEADER)])) + self.header[len(HEADER):]
        # The interpreter shims these kernels need (verify/interpreter_compat.py, their one home).
        # Helpers imported from sibling modules count too: their calls run under the same interpreter.
        functions: list[ast.AST] = [k.node for name, k in self.kernels.items() if name in self.done or name == kernel.name]
        header += repro_lines(functions + [k.node for k in self.foreign_kernels.values()])
        offset = len(header)
        body: list[str] = []
        for first in sorted(self.placed):
            chunk = self.placed[first]
            start = first - 1 + offset
            if len(header) + len(body) > start:
                # Overlapping chunks (a nested kernel inside an extracted function): keep what is placed.
                continue
            body += [""] * (start - len(header) - len(body))
            body += chunk
        reached = {name: k for name, k in self.kernels.items() if name in self.done or name == kernel.name}
        for name, k in self.foreign_kernels.items():
            reached.setdefault(name, k)
        body += [_rewrap(name, k) for name, k in reached.items() if k.wrapped and name in self.kernels]
        return Extracted("\n".join(header + body) + "\n", offset, kernel, reached, self.kernels)


def _rewrap(name: str, kernel: Kernel) -> str:
    """The assignment that makes a kernel jitted by assignment one again in the generated module: its
    literal heuristics kept (they set its flags, as in the package), its autotune dropped as for
    decorators (the synthesizer passes one config's values)."""
    if kernel.heuristics is not None and _literal_heuristics(kernel.heuristics):
        args = ", ".join(ast.unparse(a) for a in kernel.heuristics.args)
        return f"{name} = triton.heuristics({args})(triton.jit({name}))"
    return f"{name} = triton.jit({name})"


def extract(path: Path, text: str, kernel_name: str) -> Extracted:
    """The generated module for `kernel_name` of the file `path` (whose text is `text`)."""
    builder = _Builder(path, text)
    kernel = builder.kernels.get(kernel_name)
    if kernel is None:
        raise ExtractError(f"no jit function `{kernel_name}` in {path.name}")
    extracted = builder.build(kernel)
    if builder.missing:
        extracted_missing = ", ".join(dict.fromkeys(builder.missing))
        # Not fatal: an import the kernel never reaches at run time is harmless; the run will say.
        extracted.source = f"# unresolved: {extracted_missing}\n" + extracted.source
        extracted.offset += 1
    return extracted


def enclosing_kernel(text: str, line: int) -> list[str]:
    """The jit functions to launch to reach `line`: the one holding it, or the kernels calling it."""
    tree = ast.parse(text)
    kernels = jit_functions(tree)
    holder = [k for k in kernels.values() if k.node.lineno <= line <= k.last_line]
    if not holder:
        return []
    inner = min(holder, key=lambda k: k.last_line - k.node.lineno)
    callers: dict[str, set[str]] = {}
    for k in kernels.values():
        for n in ast.walk(k.node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in kernels:
                callers.setdefault(n.func.id, set()).add(k.name)
    order: list[str] = []
    frontier = [inner.name]
    seen = {inner.name}
    while frontier:
        name = frontier.pop(0)
        order.append(name)
        for caller in sorted(callers.get(name, ())):
            if caller not in seen:
                seen.add(caller)
                frontier.append(caller)
    # Kernels nobody calls come first: they are what the host launches.
    launched = [n for n in order if n not in callers]
    return launched + [n for n in order if n in callers]
