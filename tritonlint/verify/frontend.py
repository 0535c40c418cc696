"""The child `check --fix` runs once per run: does Triton's frontend accept each fixed kernel?

Read from stdin: a JSON list of {"path", "original", "fixed"} (file texts). For every jit function
whose text the fix changed, the original and the fixed kernel are each cut out of their file
(`witness.extract`: the analysed module is never imported, only the kernel, the jit helpers it
reaches and the module-level names they read) and lowered to Triton IR for sm_90 on the CPU
(`compile_check.compile_ttir`: code generation and the TTIR passes, no launch), under one guessed
specialization: pointers for the parameters loaded or stored through, `i32` for the others, each
constexpr its default, the string it is compared with, False for a flag, else 16.

Written to stdout: a JSON object {path: reason} naming each file with a fixed kernel the frontend
rejects while it accepts the original under the same specialization. Where the original itself does
not lower (a helper out of reach, a guess the kernel refuses), nothing is said about the fix.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tritonlint.witness.extract import ExtractError, Kernel, extract, jit_functions
from tritonlint.witness.uses import Uses, defaults_of, is_constexpr, params_of

TILE = 16


def main() -> int:
    items = json.load(sys.stdin)
    rejected: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="tritonlint-frontend-") as folder:
        for index, item in enumerate(items):
            reason = _rejection(Path(item["path"]), item["original"], item["fixed"], Path(folder), index)
            if reason is not None:
                rejected[item["path"]] = reason
    json.dump(rejected, sys.stdout)
    return 0


def _rejection(path: Path, original: str, fixed: str, folder: Path, index: int) -> str | None:
    try:
        before, after = jit_functions(ast.parse(original)), jit_functions(ast.parse(fixed))
    except SyntaxError:
        return None
    old_lines, new_lines = original.splitlines(), fixed.splitlines()
    for name, kernel in after.items():
        old = before.get(name)
        if old is None or _text(old, old_lines) == _text(kernel, new_lines):
            continue  # not touched by the fix
        if kernel.node.args.vararg or kernel.node.args.kwarg:
            continue
        if _lower(path, original, name, folder, f"o{index}") is not None:
            continue  # the original does not lower under the guessed specialization: no verdict
        problem = _lower(path, fixed, name, folder, f"f{index}")
        if problem is not None:
            return f"Triton's frontend rejects the fixed kernel `{name}`: {problem}"
    return None


def _text(kernel: Kernel, lines: list[str]) -> str:
    return "\n".join(lines[kernel.first_line - 1:kernel.last_line])


def _lower(path: Path, text: str, name: str, folder: Path, tag: str) -> str | None:
    """None when the kernel lowers to TTIR, else the frontend's words (its first line)."""
    try:
        extracted = extract(path, text, name)
    except (ExtractError, SyntaxError, OSError) as error:
        return f"cannot be cut out of its file ({error})"
    module_path = folder / f"k_{tag}_{name}.py"
    module_path.write_text(extracted.source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"tritonlint_frontend_{tag}_{name}", module_path)
    if spec is None or spec.loader is None:
        return "cannot be loaded"
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the generated module's own failure, reported as such
        return f"{type(error).__name__}: {error}"
    function = getattr(module, name, None)
    if function is None:
        return "not found in the generated module"
    signature, constexprs = specialization(extracted.kernel, extracted.helpers)
    from tritonlint.verify.compile_check import compile_ttir

    try:
        compile_ttir(function, signature, constexprs)
    except Exception as error:  # noqa: BLE001 - any frontend refusal (CompilationError and its causes)
        return _first_line(error)
    return None


def _first_line(error: BaseException) -> str:
    """The line of the frontend's message that says what is wrong (not the source excerpt it quotes)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    said = next((line for line in reversed(lines) if not line.startswith(("^", "~"))), "")
    return f"{type(error).__name__}: {said}"[:300]


def specialization(kernel: Kernel, helpers: dict[str, Kernel]) -> tuple[dict[str, str], dict[str, Any]]:
    """(signature, constexprs) to lower a kernel with: see the module's docstring."""
    uses = Uses(kernel, helpers)
    pointers = _pointer_params(uses)
    defaults = defaults_of(kernel.node)
    signature: dict[str, str] = {}
    constexprs: dict[str, Any] = {}
    for arg in params_of(kernel.node):
        if is_constexpr(arg):
            constexprs[arg.arg] = _constexpr_value(uses, arg.arg, defaults.get(arg.arg))
        else:
            signature[arg.arg] = "*fp32" if arg.arg in pointers else "i32"
    return signature, constexprs


def _pointer_params(uses: Uses) -> set[str]:
    """Parameters at the base of a loaded or stored pointer: the first term of its sum, through locals."""
    found: set[str] = set()
    pending = list(uses.accesses)
    seen = 0
    while pending and seen < 256:
        node = pending.pop()
        seen += 1
        while isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            node = node.left
        if isinstance(node, ast.Call) and node.args:  # `tl.make_block_ptr(base, ...)`, `X.to(...)`
            node = node.args[0] if not isinstance(node.func, ast.Attribute) or node.func.attr != "to" else node.func.value
        if isinstance(node, ast.Name):
            if node.id in uses.params:
                found.add(node.id)
            pending.extend(uses.defs.get(node.id, ()))
    return found


def _constexpr_value(uses: Uses, name: str, default: ast.expr | None) -> Any:
    if default is not None:
        try:
            return ast.literal_eval(default)
        except ValueError:
            pass
    for compare in uses.compares:
        if name in {n.id for n in ast.walk(compare) if isinstance(n, ast.Name)}:
            for side in [compare.left, *compare.comparators]:
                if isinstance(side, ast.Constant) and isinstance(side.value, (str, bool)):
                    return side.value if isinstance(side.value, str) else False
    for node in ast.walk(uses.fn):
        test = node.test if isinstance(node, (ast.If, ast.IfExp, ast.While)) else \
            node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) else None
        if isinstance(test, ast.Name) and test.id == name:
            return False  # an evenness flag: its tail side, where fixes land
    return TILE


if __name__ == "__main__":
    raise SystemExit(main())
