"""Do applied fixes still compile? `check --fix --unsafe-fixes` on a copy of each package, then
Triton's frontend (TTIR for sm_90, no GPU) on every kernel the fix changed, before and after.

The package is never imported: each changed file's jit functions (and its top-level constants)
are copied into a module of their own, re-decorated with a plain `@triton.jit`, and compiled in
a subprocess with a guessed signature (pointer parameters `*fp32`, or `*i32` where the loads read
integers; other parameters `i32`; constexprs their default, else 64), beside what the file imports
from modules found next to it (one level, read as text). A kernel whose original does
not compile under that guess (a helper imported from elsewhere, a constexpr that must be a
string) is counted as unjudged, never as broken.

    python scripts/fix_compiles.py /work/corpus attn-gym trl --before /tmp/base  # figures, both sides

`--before ROOT` runs the fixer of another checkout (put first on PYTHONPATH) for the same figures.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run in a subprocess per file: builds the module, compiles each named kernel, prints JSON.
_COMPILER = r'''
import json, sys, importlib.util, traceback
sys.setrecursionlimit(10000)
path, jobs = sys.argv[1], json.loads(sys.argv[2])
from tritonlint.verify.compile_check import compile_ttir
results = {}
try:
    spec = importlib.util.spec_from_file_location("kernels_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
except Exception as error:
    print(json.dumps({name: "module: " + repr(error)[:300] for name in jobs}))
    sys.exit(0)
for name, (signature, constexprs) in jobs.items():
    try:
        compile_ttir(getattr(module, name), signature, constexprs)
        results[name] = "ok"
    except Exception as error:
        lines = [l for l in str(error).splitlines() if l.strip()]
        results[name] = (type(error).__name__ + ": " + " | ".join(lines[-6:]))[:800]
print(json.dumps(results))
'''


def _is_jit(node: ast.FunctionDef) -> bool:
    return any("jit" in ast.unparse(d) for d in node.decorator_list)


def _definitions(source: str, tree: ast.Module, wanted: set[str] | None = None) -> list[str]:
    """Top-level constants (`BLOCK = 128`, `exp = tl.exp`, `info = torch.finfo(...)`) and jit functions
    (re-decorated with a plain `@triton.jit`) of a module; only the `wanted` names when given."""
    parts = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(
                getattr(node, "value", None), (ast.Constant, ast.UnaryOp, ast.Call, ast.BinOp, ast.Attribute, ast.Name)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            text = ast.get_source_segment(source, node)
            if text and names and (wanted is None or names & wanted) and "os." not in text:
                parts.append(f"try:\n    {text.replace(chr(10), ' ')}\nexcept Exception:\n    pass")
        if isinstance(node, ast.FunctionDef) and _is_jit(node) and (wanted is None or node.name in wanted):
            start = node.lineno if not node.decorator_list else node.decorator_list[0].lineno
            lines = source.splitlines()[start - 1:node.end_lineno]
            # Drop the decorators (autotune, heuristics, jit with options), keep the function.
            def_at = next(i for i, line in enumerate(lines) if re.match(r"\s*(async\s+)?def\s", line))
            parts.append("@triton.jit\n" + "\n".join(lines[def_at:]))
    return parts


def _imported(path: Path, tree: ast.Module) -> list[str]:
    """The definitions the file imports with `from module import name` from a module found beside it
    (one level, read, never imported): helpers (`exp`, `resolve_lengths`) and constants."""
    parts = []
    folder = path.resolve().parent
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.module or "triton" in node.module.split(".")[0]:
            continue
        module_parts = node.module.split(".")
        bases = [folder.parents[node.level - 2] if node.level > 1 else folder] if node.level else [folder, *folder.parents]
        for base in bases:
            candidate = base.joinpath(*module_parts)
            found = next((f for f in (candidate.with_suffix(".py"), candidate / "__init__.py") if f.is_file()), None)
            if found is None:
                continue
            try:
                text = found.read_text(errors="replace")
                parts += _definitions(text, ast.parse(text), {a.name for a in node.names})
            except (OSError, SyntaxError, ValueError):
                pass
            break
    return parts


def _module_text(path: Path, source: str) -> str | None:
    """The file's jit functions and top-level constants, with what it imports from beside it, under
    the standard Triton imports."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    parts = ["import math", "import torch", "import triton", "import triton.language as tl",
             "from triton.language import constexpr"]
    parts += _imported(path, tree)
    parts += _definitions(source, tree)
    return "\n\n".join(parts) + "\n"


def _functions(source: str) -> dict[str, str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {n.name: ast.get_source_segment(source, n) or "" for n in tree.body
            if isinstance(n, ast.FunctionDef) and _is_jit(n)}


def _signature(path: Path, source: str, name: str) -> tuple[dict[str, str], dict[str, object]]:
    """A guessed signature: the analysis's own reading of pointers and their element types."""
    from tritonlint.config import Config
    from tritonlint.engine import build_contexts, parse_file
    from tritonlint.fixing.types import _pointer_names, element_type  # measurement only

    tree = ast.parse(source)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    pointers: set[str] = set()
    integer_bases: set[str] = set()
    try:
        found, kernels = parse_file(source)
        _contexts, by_name, _ = build_contexts(str(path), source, found, kernels, Config(), None)
        model = by_name.get(name)
        if model is not None:
            pointers = set(_pointer_names(model))
            for access in model.accesses:
                if access.kind == "load" and element_type(model, access) == "int":
                    integer_bases |= {n for n in pointers if n in ast.unparse(ast.parse(
                        model.module.code_for_node(access.pointer).strip(), mode="eval"))}
    except Exception:
        pass
    signature: dict[str, str] = {}
    constexprs: dict[str, object] = {}
    args = function.args.args
    defaults = [None] * (len(args) - len(function.args.defaults)) + list(function.args.defaults)
    for arg, default in zip(args, defaults):
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        if "constexpr" in annotation:
            value = default.value if isinstance(default, ast.Constant) else 64
            constexprs[arg.arg] = value
        elif arg.arg in pointers:
            signature[arg.arg] = "*i32" if arg.arg in integer_bases else "*fp32"
        elif isinstance(default, ast.Constant) and default.value is None:
            constexprs[arg.arg] = None
        else:
            signature[arg.arg] = "i32"
    return signature, constexprs


def _compile(path: Path, names: list[str], source: str, sig_source: str, work: Path) -> dict[str, str]:
    text = _module_text(path, source)
    if text is None:
        return {name: "syntax" for name in names}
    module = work / f"k_{abs(hash((str(path), source))) % 10**12}.py"
    module.write_text(text)
    jobs = {name: _signature(path, sig_source, name) for name in names}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT)
    try:
        out = subprocess.run([sys.executable, "-c", _COMPILER, str(module), json.dumps(jobs)], check=False,
                             capture_output=True, text=True, timeout=300, env=env)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except Exception as error:
        return {name: f"runner: {error!r}"[:200] for name in names}


def _fix(copy: Path, before: str | None) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = before if before else str(ROOT)
    out = subprocess.run([sys.executable, "-m", "tritonlint", "check", "--fix", "--unsafe-fixes", "--no-cache",
                          str(copy)], check=False, capture_output=True, text=True, env=env, timeout=1800)
    summary = [line for line in out.stdout.splitlines() if line.startswith("Found")]
    return summary[-1] if summary else out.stdout.strip().splitlines()[-1:][0] if out.stdout.strip() else out.stderr[-300:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--before", help="root of another checkout whose fixer to run instead")
    parser.add_argument("--json", type=Path, help="write every kernel's verdict here")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fix-compiles-"))
    total = {"changed kernels": 0, "broken by the fix": 0, "unjudged": 0, "still compile": 0}
    records = []
    for package in options.packages:
        source_root = options.corpus / package
        copy = work / package
        shutil.copytree(source_root, copy, ignore=lambda d, names: [n for n in names if not (
            n.endswith(".py") or (Path(d) / n).is_dir())])
        summary = _fix(copy, options.before)
        counts = {"changed kernels": 0, "broken by the fix": 0, "unjudged": 0, "still compile": 0}
        for fixed_path in sorted(copy.rglob("*.py")):
            original_path = source_root / fixed_path.relative_to(copy)
            fixed, original = fixed_path.read_text(errors="replace"), original_path.read_text(errors="replace")
            if fixed == original:
                continue
            before, after = _functions(original), _functions(fixed)
            changed = [name for name in after if name in before and after[name] != before[name]]
            if not changed:
                continue
            was = _compile(original_path, changed, original, original, work)
            now = _compile(fixed_path, changed, fixed, original, work)
            for name in changed:
                counts["changed kernels"] += 1
                verdict = ("unjudged" if was.get(name) != "ok" else
                           "still compile" if now.get(name) == "ok" else "broken by the fix")
                counts[verdict] += 1
                records.append({"package": package, "file": str(fixed_path.relative_to(copy)), "kernel": name,
                                "verdict": verdict, "original": was.get(name), "fixed": now.get(name)})
                if verdict == "broken by the fix":
                    print(f"  BROKEN {package}/{fixed_path.relative_to(copy)}::{name}: {now.get(name)}")
        print(f"{package}: {summary}; " + ", ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
        for key, value in counts.items():
            total[key] += value
    print("total: " + ", ".join(f"{k} {v}" for k, v in total.items()))
    if options.json:
        options.json.write_text(json.dumps(records, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
