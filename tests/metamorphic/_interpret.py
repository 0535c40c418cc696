"""Runs fixture harnesses under Triton's interpreter with tritonlint's bounds guard, one tree after another.

Usage: python _interpret.py JOBS.json OUT.pt, JOBS a list of {"key", "tree", "harness"}. For each
job it imports the harness from its tree (the fixture module beside it), runs `run("cpu")` with
out-of-bounds lanes served the fill byte, and saves {key: {"outputs", "violations", "error"}}.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

import torch
import triton  # noqa: F401  (imported once here, never purged with a tree's modules)

from tritonlint.verify.child import flatten_outputs
from tritonlint.verify.interpreter_guard import InterpreterGuard

FILL = 0xFF  # NaN for floats: an overread shows in the outputs, at the same places in both trees


def run_one(tree: str, harness: str) -> dict[str, object]:
    before = set(sys.modules)
    sys.path.insert(0, tree)
    guard = InterpreterGuard(fill=FILL)
    result: dict[str, object] = {"outputs": {}, "violations": [], "error": None}
    try:
        spec = importlib.util.spec_from_file_location("_metamorphic_harness", os.path.join(tree, harness))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        guard.install()
        try:
            spec.loader.exec_module(module)
            result["outputs"] = flatten_outputs(module.run("cpu"))
        finally:
            guard.uninstall()
        # The tensor's name is left out: renaming parameters changes it. How far and how many
        # lanes ran out of bounds identify the site's behaviour better anyway.
        result["violations"] = sorted({(os.path.basename(v.path), v.line, v.kind, v.max_elements, v.lanes)
                                       for v in guard.violations})
    except Exception:  # noqa: BLE001 - the harness failing is a result to compare, not a crash here
        result["error"] = traceback.format_exc()[-3000:]
    finally:
        sys.path.remove(tree)
        for name in set(sys.modules) - before:  # the next tree has modules of the same names
            where = getattr(sys.modules[name], "__file__", None) or ""
            if name == "_metamorphic_harness" or where.startswith(tree):
                del sys.modules[name]
    return result


def main() -> int:
    with open(sys.argv[1]) as spec:
        jobs = json.load(spec)
    torch.save({job["key"]: run_one(job["tree"], job["harness"]) for job in jobs}, sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
