"""The sm_90 compile check: which launched specializations to compile, and what their TTIR says of each fix."""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path
from typing import Any

from tritonlint.verify.records import Fix, RunResult
from tritonlint.verify.sanitizer import relative_to
from tritonlint.verify.trees import fix_conditions


@functools.lru_cache(maxsize=64)
def evenness_flags_of(path: Path) -> dict[str, dict[str, bool]]:
    """Per kernel of a file, its evenness flags and the value that promises full tiles.

    `check`'s own recogniser: a flag is known by how the kernel uses it, by a heuristics lambda,
    and by its name only as a last hint (`MASK_K=False` and `DIVISIBLE_N=True` are flags too).
    """
    from tritonlint.config import Config
    from tritonlint.engine import evenness_flags

    try:
        return evenness_flags(path.read_text(encoding="utf-8"), Config())
    except (OSError, UnicodeDecodeError):
        return {}


def all_even(path: Path, kernel: str, consts: dict[str, Any]) -> bool:
    """Whether a specialization sets every evenness flag of the kernel that it sets to the value
    that promises full tiles (and sets at least one)."""
    even = evenness_flags_of(path).get(kernel, {})
    flags = [consts[name] == value for name, value in even.items() if isinstance(consts.get(name), bool)]
    return bool(flags) and all(flags)


def eval_flags(expr: str, consts: dict[str, Any]) -> bool | None:
    """Evaluate a flag condition (names, and/or/not, ==, parentheses) under constexprs; None if unknown."""
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        return None

    def ev(n: ast.AST) -> Any:
        if isinstance(n, ast.Name):
            if n.id not in consts:
                raise KeyError(n.id)
            return consts[n.id]
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.BoolOp):
            vals = [ev(v) for v in n.values]
            return all(vals) if isinstance(n.op, ast.And) else any(vals)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return not ev(n.operand)
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq)):
            a, b = ev(n.left), ev(n.comparators[0])
            return (a == b) if isinstance(n.ops[0], ast.Eq) else (a != b)
        raise ValueError(ast.dump(n))

    try:
        return bool(ev(node))
    except (KeyError, ValueError):
        return None


def launched_specs(trees: dict[str, Path], runs: list[RunResult], fixes: list[Fix]) -> list[dict[str, Any]]:
    """The launched specializations of every kernel in a fixed file, once each (`rel`: its file;
    `evenness_flags`: its kernel's flags, by `check`'s recogniser, with the value that promises
    full tiles, so that the compile child flips those and no other constexpr)."""
    specs: dict[str, dict[str, Any]] = {}
    fixed_files = {f.path for f in fixes}
    for r in runs:
        if r.tree not in trees:
            continue
        for s in r.specs:
            rel = relative_to(trees[r.tree], s.get("path", ""))
            if rel in fixed_files:
                # The same launch in both trees differs only by the tree's path.
                key = {k: v for k, v in s.items() if k != "path"}
                specs.setdefault(json.dumps({**key, "rel": rel}, sort_keys=True, default=str), {**s, "rel": rel})
    for spec in specs.values():
        spec["evenness_flags"] = evenness_flags_of(trees["original"] / spec["rel"]).get(spec["kernel"], {})
    return list(specs.values())


def _variant(spec: dict[str, Any], label: str, var: dict[str, Any], before: dict[str, Any],
             touched: set[int], conds: dict[int, list[str]], trees: dict[str, Path],
             item: dict[str, Any]) -> None:
    """Judge one compiled variant (the launched constexprs, or an evenness flag flipped) into `item`."""
    acc_after = var["accesses"]
    acc_before = before["variants"].get(label, {}).get("accesses", [])
    keys_a = [(a["op"], a["masked"], a["type"]) for a in acc_after]
    keys_b = [(a["op"], a["masked"], a["type"]) for a in acc_before]
    consts = var.get("constexprs") or spec.get("constexprs", {})
    # Every evenness flag on its full-tile side: no tile is partial. With EVEN_M true and
    # EVEN_N false, N tiles are still partial and the fix rightly masks there.
    even = all_even(trees["original"] / spec["rel"], spec["kernel"], consts)
    fast_lines = {ln for ln, cs in conds.items() if cs and all(eval_flags(c, consts) for c in cs)}
    # Unmasked on purpose: the fix's own condition holds, or (for an unconditional
    # fix) no tile is partial in this specialization.
    bad = [a for a in acc_after if not a["masked"] and a["line"] in touched
           and a["path"] and relative_to(trees["fixed"], a["path"]) == spec["rel"]
           and not (a["line"] in fast_lines or (a["line"] not in conds and even))]
    # The fix promises an unchanged fast path where all its conditions hold.
    fast_path = bool(conds) and set(conds) <= fast_lines
    var_sum: dict[str, Any] = {"unmasked_touched": [f"{spec['rel']}:{a['line']}" for a in bad],
                               "same_as_original": keys_a == keys_b,
                               "fix_fast_path": fast_path, "all_even": even,
                               "unmasked": [f"{relative_to(trees['fixed'], a['path'] or '?')}:{a['line']}"
                                            for a in acc_after if not a["masked"]]}
    item[label] = var_sum
    if fast_path and keys_a != keys_b:
        item["ok"] = False
        item["problems"].append(f"{label}: the fix's unmasked specialization changed the kernel's loads/stores")
    elif even and keys_a != keys_b:
        item.setdefault("notes", []).append(
            f"{label}: the fix masks the even specialization too (unconditional mask)")
    if bad:
        item["ok"] = False
        item["problems"].append(f"{label}: tail access(es) the fix touched still unmasked "
                                f"in TTIR at {', '.join(var_sum['unmasked_touched'])}")


def summarize(specs: list[dict[str, Any]], results: dict[str, list[dict[str, Any]]],
              fixes: list[Fix], trees: dict[str, Path]) -> list[dict[str, Any]]:
    """Per launched specialization, whether the fixed tree's TTIR keeps what the fix promises."""
    summary = []
    for i, spec in enumerate(specs):
        before, after = results["original"][i], results["fixed"][i]
        item: dict[str, Any] = {"kernel": spec["kernel"], "path": spec["rel"],
                                "constexprs": spec.get("constexprs", {}), "ok": True, "problems": []}
        if before.get("error") or after.get("error"):
            item["ok"] = None  # could not tell
            item["problems"].append(before.get("error") or after.get("error"))
            summary.append(item)
            continue
        touched: set[int] = set()
        for f in fixes:
            if f.path == spec["rel"]:
                touched.update(range(f.fixed_lines[0], f.fixed_lines[1] + 1))
        # Conditions under which the fix deliberately leaves an access unmasked
        # (`mask=None if EVEN_K else ...`), per touched line of the fixed file.
        conds = fix_conditions(trees["fixed"] / spec["rel"], touched)
        for label, var in after["variants"].items():
            _variant(spec, label, var, before, touched, conds, trees, item)
        summary.append(item)
    return summary
