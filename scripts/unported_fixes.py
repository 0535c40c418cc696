"""List memory accesses that one copy of a Triton kernel guards and another copy does not.

A way to find out-of-bounds bugs that an upstream fix left behind: when a project copies a
kernel (FlagGems backends, vLLM / aphrodite / sglang vendored ops, fla and its copies) and
later adds a mask to one copy, the other copies keep the unmasked access. This script groups
`@triton.jit` functions by name across a folder, and for every `tl.load` / `tl.store` /
`tl.atomic_*` whose pointer expression (whitespace removed) is masked (`mask=`, a positional
mask, or `boundary_check=`) in some copy, prints each copy where the same expression is not.

It never imports the analysed code (it parses it with `ast`). Each row is a candidate to read,
not a finding: most unmasked copies sit in an `EVEN_*` constexpr branch, wrap their offsets
(`% M`), or are guarded by an `if`. Pass `--check-json FILE` (the output of
`tritonlint check --output-format json`, run from the same folder) to mark the rows the checker
already reports; the rest are the places it does not look at.

    cd /work/corpus && python scripts/unported_fixes.py flag-gems
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass

MEMORY_OPS = {"load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas"}


@dataclass(frozen=True)
class Access:
    path: str
    line: int
    function: str
    op: str
    pointer: str
    guarded: bool


def _is_jit(node: ast.FunctionDef) -> bool:
    return any("jit" in ast.unparse(d) for d in node.decorator_list)


def _guarded(call: ast.Call, op: str) -> bool:
    keywords = {k.arg for k in call.keywords}
    if keywords & {"mask", "boundary_check"}:
        return True
    # tl.load(ptr, mask) / tl.store(ptr, value, mask) / tl.atomic_add(ptr, value, mask)
    positional_mask_at = 1 if op == "load" else 2
    return len(call.args) > positional_mask_at


def accesses_in(path: str) -> list[Access]:
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    found: list[Access] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and _is_jit(node)):
            continue
        for call in ast.walk(node):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            if ast.unparse(call.func.value) != "tl" or call.func.attr not in MEMORY_OPS:
                continue
            if not call.args:
                continue
            pointer = re.sub(r"\s+", "", ast.unparse(call.args[0]))
            found.append(
                Access(path, call.lineno, node.name, call.func.attr, pointer, _guarded(call, call.func.attr))
            )
    return found


def python_files(root: str) -> list[str]:
    paths: list[str] = []
    for folder, _, names in os.walk(root):
        paths.extend(os.path.join(folder, n) for n in names if n.endswith(".py"))
    return sorted(paths)


def unported(accesses: list[Access]) -> list[tuple[Access, list[str]]]:
    """Unguarded accesses whose (function, op, pointer) is guarded in another place."""
    guarded_in: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for a in accesses:
        if a.guarded:
            guarded_in[(a.function, a.op, a.pointer)].add(a.path)
    rows = []
    for a in accesses:
        where = guarded_in.get((a.function, a.op, a.pointer))
        if not a.guarded and where:
            rows.append((a, sorted(where)))
    return rows


def reported_lines(check_json: str | None) -> set[tuple[str, int]]:
    if check_json is None:
        return set()
    with open(check_json, encoding="utf-8") as handle:
        return {(os.path.normpath(d["path"]), d["line"]) for d in json.load(handle)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", help="folder to scan (paths are printed relative to the working directory)")
    parser.add_argument("--check-json", help="tritonlint check JSON of the same folder, run from the working directory")
    args = parser.parse_args()
    accesses = [a for p in python_files(args.root) for a in accesses_in(p)]
    reported = reported_lines(args.check_json)
    for access, guarded_elsewhere in unported(accesses):
        mark = ""
        if args.check_json is not None:
            mark = "reported " if (os.path.normpath(access.path), access.line) in reported else "unreported "
        print(
            f"{mark}{access.path}:{access.line}: {access.function}: tl.{access.op}({access.pointer}) unguarded;"
            f" guarded in {len(guarded_elsewhere)} file(s), e.g. {guarded_elsewhere[0]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
