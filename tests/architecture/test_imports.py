"""`check` needs no triton or torch: only tritonlint/verify/ and tritonlint/witness/ may import them, and the CLI runs without them."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = {"triton", "torch", "numpy"}
# The dynamic verifier and the witness compile and run kernels: the only places allowed to import them.
ALLOWED = (ROOT / "tritonlint" / "verify", ROOT / "tritonlint" / "witness")
WITNESS = ROOT / "tritonlint" / "witness"
# The witness reaches the analysis through one module, so that moving the analysis rewires one file.
ANALYSIS = ("tritonlint.source", "tritonlint.semantic", "tritonlint.fixing", "tritonlint.engine", "tritonlint.runner", "tritonlint.cli", "tritonlint.output",
            "tritonlint.rules", "tritonlint.config")


def _imported_modules(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))
              and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__")
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.add(node.args[0].value.split(".")[0])
    return found


def _sources() -> list[Path]:
    return sorted([*(ROOT / "tritonlint").rglob("*.py"), *(ROOT / "rules").rglob("*.py")])


def test_the_scan_sees_the_package() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert {"tritonlint/cli.py", "tritonlint/engine.py", "rules/tail_tile/unmasked_tail_load.py"} <= names
    assert all(any(p.is_relative_to(folder) for p in _sources()) for folder in ALLOWED)
    # The scanner itself catches the spellings it claims to.
    sample = "import torch.nn\nfrom triton import jit\nimportlib.import_module('numpy.linalg')\n"
    assert _imported_modules(ast.parse(sample)) == {"torch", "triton", "numpy"}


def test_only_verify_imports_triton_or_torch() -> None:
    offenders = {}
    for path in _sources():
        if any(path.is_relative_to(folder) for folder in ALLOWED):
            continue
        heavy = _imported_modules(ast.parse(path.read_text(encoding="utf-8"))) & HEAVY
        if heavy:
            offenders[path.relative_to(ROOT).as_posix()] = sorted(heavy)
    assert not offenders


def _imported_full(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_only_the_witness_analysis_module_imports_the_analysis() -> None:
    offenders = {}
    for path in sorted(WITNESS.rglob("*.py")):
        if path.name == "analysis.py":
            continue
        reached = sorted(m for m in _imported_full(ast.parse(path.read_text(encoding="utf-8")))
                         if m.startswith(ANALYSIS))
        if reached:
            offenders[path.relative_to(ROOT).as_posix()] = reached
    assert not offenders
    assert _imported_full(ast.parse((WITNESS / "analysis.py").read_text(encoding="utf-8"))) & {
        "tritonlint.engine", "tritonlint.runner"}


def test_check_never_imports_the_witness() -> None:
    program = ("import sys, tritonlint.cli as c; c.main(['check', '--quiet', '--no-cache', '-']); "
               "print(sorted(n for n in sys.modules if n.startswith('tritonlint.witness')))")
    done = subprocess.run([sys.executable, "-c", program], input="", capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_check_runs_with_triton_and_torch_unimportable(tmp_path: Path) -> None:
    # `sys.modules[name] = None` makes any `import name` raise ImportError in that process.
    kernel = tmp_path / "k.py"
    kernel.write_text(textwrap.dedent("""\
        import triton
        import triton.language as tl


        @triton.jit
        def scale(X, Y, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(X + offs, mask=offs < n, other=0.0)
            tl.store(Y + offs, x * 2)
    """))
    program = textwrap.dedent(f"""\
        import sys
        for name in {sorted(HEAVY)!r}:
            sys.modules[name] = None
        from tritonlint.cli import main
        code = main(["check", "--output-format", "json", {str(kernel)!r}])
        loaded = sorted(n for n, m in sys.modules.items() if m is not None and n.split(".")[0] in {sorted(HEAVY)!r})
        print("EXIT", code, "LOADED", loaded, file=sys.stderr)
        code |= main(["check", "--fix", "--diff", {str(kernel)!r}]) << 4
        sys.exit(code)
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert "EXIT 1 LOADED []" in done.stderr, done.stderr
    assert done.returncode == 1 | (1 << 4), done.stderr
    data, _end = json.JSONDecoder().raw_decode(done.stdout)
    assert [(d["code"], d["line"]) for d in data] == [("TL102", 9)]
    assert "+    tl.store(Y + offs, x * 2, mask=offs < n)" in done.stdout


def test_importing_the_cli_loads_no_heavy_module() -> None:
    program = ("import sys, tritonlint.cli, tritonlint.engine, tritonlint.runner, tritonlint.output; "
               "import tritonlint.rule as r; r.all_rules(); "
               f"print(sorted(n for n in sys.modules if n.split('.')[0] in {sorted(HEAVY)!r}))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"
