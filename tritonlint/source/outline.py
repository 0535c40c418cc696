"""A cheap first look at a file: its Triton imports and where each `@triton.jit` function lies.

The outline uses the stdlib `ast` parser, which is ten times faster than libcst;
only the kernel functions it finds are then parsed with libcst. Most of a file
that holds kernels is host code, so this keeps libcst's cost to the kernels.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from itertools import accumulate

from tritonlint.source.names import ImportMap
from tritonlint.source.parsed import is_jit, parse_text, read_import, statements

_NEWLINE = re.compile(r"\r\n|\r|\n")

# Wraps an indented (nested) function so libcst can parse it on its own.
NESTED_PREFIX = "if 1:\n"


@dataclass(frozen=True)
class KernelSource:
    """One jit function: its text (decorators included) and where it sits in the file."""

    name: str
    text: str
    start_offset: int  # character offset of the first decorator line
    first_line: int  # 1-based line number of that line
    indented: bool  # nested in a class or function
    # Its stdlib `ast` node: positions of its calls without a libcst position pass.
    function: ast.FunctionDef | ast.AsyncFunctionDef | None = field(default=None, compare=False, repr=False)
    # Jitted by assignment with decorators applied as calls (`f = triton.heuristics({...})(triton.jit(f))`):
    # that statement's text and its first line, where the analysis reads those decorators.
    applied: str = ""
    applied_line: int = 0


@dataclass
class Outline:
    imports: ImportMap
    kernels: list[KernelSource] = field(default_factory=list)
    tree: ast.Module | None = None  # the file's `ast`, for the launch sites in its host code
    aliases: dict[str, str] = field(default_factory=dict)  # `fast = triton.jit(fn)`: fast -> fn

    @property
    def jit_names(self) -> frozenset[str]:
        return frozenset(kernel.name for kernel in self.kernels)


def might_hold_kernels(text: str) -> bool:
    """The pre-filter: a file that never says `jit` and `triton` cannot define a Triton kernel."""
    return "jit" in text and "triton" in text


def line_starts(text: str) -> list[int]:
    """Character offset at which each line starts (index 0 is line 1)."""
    if "\r" not in text:  # the common case, three times faster from the lines' lengths
        return [0, *accumulate(len(line) + 1 for line in text.split("\n")[:-1])]
    return [0] + [match.end() for match in _NEWLINE.finditer(text)]


def outline(text: str) -> Outline:
    """Find imports and jit functions. Raises SyntaxError for code that does not parse."""
    tree = parse_text(text)
    imports = ImportMap()
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    plain: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}  # undecorated: `fn = triton.jit(fn)` makes a kernel
    jitted: dict[str, str] = {}
    applied: dict[str, ast.Assign] = {}  # the function's name -> `f = A(B(triton.jit(f)))` with wrappers
    for node in statements(tree.body):
        if read_import(node, imports):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.decorator_list:
                functions.append(node)
            else:
                plain.setdefault(node.name, node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            jit, wrapped = _jit_call(node.value, imports)
            if jit is not None and len(jit.args) == 1 and isinstance(jit.args[0], ast.Name):
                jitted[jit.args[0].id] = node.targets[0].id
                if wrapped:
                    applied[jit.args[0].id] = node
    result = Outline(imports, tree=tree)
    starts = line_starts(text)
    for name, made in jitted.items():
        if name in plain:
            functions.append(plain[name])
            result.aliases[made] = name
    for function in functions:
        if function.decorator_list and not any(is_jit(decorator, imports) for decorator in function.decorator_list):
            continue
        first = min((decorator.lineno for decorator in function.decorator_list), default=function.lineno)
        last = function.end_lineno or function.lineno
        begin = starts[first - 1]
        end = starts[last] if last < len(starts) else len(text)
        segment = text[begin:end]
        assignment = applied.get(function.name) if not function.decorator_list else None
        written = ""
        if assignment is not None:
            stop = assignment.end_lineno or assignment.lineno
            written = text[starts[assignment.lineno - 1]:starts[stop] if stop < len(starts) else len(text)]
        result.kernels.append(
            KernelSource(function.name, segment, begin, first, indented=segment[:1] in (" ", "\t"),
                         function=function, applied=written,
                         applied_line=assignment.lineno if assignment is not None else 0)
        )
    result.kernels.sort(key=lambda kernel: kernel.start_offset)
    return result


def _jit_call(value: ast.Call, imports: ImportMap) -> tuple[ast.Call | None, bool]:
    """The `triton.jit(f)` call at the heart of `A(...)(B(...)(triton.jit(f)))`, decorators
    applied as calls, and whether it is wrapped in any; (None, False) for anything else."""
    node: ast.expr = value
    wrapped = False
    for _ in range(8):
        if not isinstance(node, ast.Call) or len(node.args) != 1:
            return None, False
        if is_jit(node, imports):
            return node, wrapped
        if not isinstance(node.func, ast.Call):
            return None, False  # a plain function of the kernel: not a decorator applied
        node, wrapped = node.args[0], True
    return None, False
