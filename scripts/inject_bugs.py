"""Recall on injected bugs: break correct accesses of real kernels, keep the breakages a run proves,
and count how many of those `check` reports.

For every `tl.load`/`tl.store` of a jit function that carries a mask and has no finding today, one
injection of each kind that applies:

- `drop-mask`: the mask (and `other=`) removed; expected TL101 (load) or TL102 (store).
- `weaken-mask`: the first `<` of the mask made `<=` (one lane past the end); expected TL104, or
  TL101/TL102 on a tail path.
- `drop-other`: a load whose `other=` is minus infinity loses it (Triton fills those lanes with 0);
  expected TL105.
- `other-zero`: a load whose `other=` is minus infinity gets `0.0` instead; expected TL105. TL105
  reads an explicit `other=0.0` beside a max as the author's word on the data's range, so this kind
  measures what that choice costs.

The judge is the witness, run on a diagnostic made up from the injection alone (the access's place
and the expected rule, no note from the checker), so that whether `check` saw the bug does not
decide whether the bug counts. An injection counts only when the witness confirms it (latent ones
apart); recall per rule = confirmed injections that `check` reports on that line / confirmed ones.

Each package is copied to a temporary folder and one file is changed at a time (the corpus is shared).

    python scripts/inject_bugs.py [--per-package 12] [--kinds drop-mask,weaken-mask,other-zero]
                                  [--timeout 40] [--json OUT] PACKAGE_DIR...
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KINDS = ("drop-mask", "weaken-mask", "drop-other", "other-zero")
MINUS_INF = re.compile(r"^\s*(-\s*float\(\s*['\"]inf['\"]\s*\)|float\(\s*['\"]-inf['\"]\s*\)|-\s*(math|np|numpy)\.inf)\s*$")


@dataclass(frozen=True)
class Injection:
    file: str  # relative to the package root
    line: int
    end_line: int
    column: int  # 1-based, of the call
    kind: str
    access: str  # "load" | "store"
    expected: str  # rule code
    text: str  # the whole mutated file


def _jit_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    def jitted(fn: ast.FunctionDef) -> bool:
        return any("jit" in ast.unparse(d) for d in fn.decorator_list)

    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and jitted(n)]


def _access(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr in ("load", "store") and isinstance(f.value, ast.Name) \
            and f.value.id in ("tl", "triton_language"):
        return f.attr
    return None


def _parts(call: ast.Call, access: str) -> tuple[ast.expr | None, ast.expr | None]:
    """The call's mask and other (keyword or positional)."""
    kw = {k.arg: k.value for k in call.keywords}
    pos_mask = 1 if access == "load" else 2
    mask = kw.get("mask") or (call.args[pos_mask] if len(call.args) > pos_mask else None)
    other = kw.get("other") or (call.args[2] if access == "load" and len(call.args) > 2 else None)
    return mask, other


def _replace_call(text: str, call: ast.Call, new: ast.Call) -> str:
    """The file with `call` replaced by `new`, unparsed, keeping every later line where it was: the
    newlines the old call spanned go inside the new call's parentheses."""
    lines = text.splitlines(keepends=True)

    def offset(line: int, byte_col: int) -> int:  # ast columns count UTF-8 bytes
        return sum(len(x) for x in lines[:line - 1]) + len(lines[line - 1].encode()[:byte_col].decode())

    start = offset(call.lineno, call.col_offset)
    end = offset(call.end_lineno, call.end_col_offset)  # type: ignore[arg-type]
    body = ast.unparse(new)
    spanned = call.end_lineno - call.lineno  # type: ignore[operator]
    if spanned:
        body = body[:-1] + "\n" * spanned + ")"
    return text[:start] + body + text[end:]


def _weakened(mask: ast.expr) -> ast.expr | None:
    """The mask with its first `<` made `<=` (None when it has no `<`)."""
    import copy

    mask = copy.deepcopy(mask)
    for node in ast.walk(mask):
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if isinstance(op, ast.Lt):
                    node.ops[i] = ast.LtE()
                    return mask
                if isinstance(op, ast.Gt):  # `N > offs`
                    node.ops[i] = ast.GtE()
                    return mask
    return None


def injections(text: str, file: str, reported: set[int]) -> list[Injection]:
    """Every injection of every kind into this file's masked accesses that no finding covers today."""
    import copy

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    out: list[Injection] = []
    for fn in _jit_functions(tree):
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            access = _access(call)
            if access is None:
                continue
            lines = set(range(call.lineno, call.end_lineno + 1))  # type: ignore[operator]
            if lines & reported:
                continue
            mask, other = _parts(call, access)
            if mask is None:
                continue
            pos_mask = 1 if access == "load" else 2
            where = {"file": file, "line": call.lineno, "end_line": call.end_lineno,
                     "column": call.col_offset + 1, "access": access}
            # drop-mask
            dropped = copy.deepcopy(call)
            dropped.keywords = [k for k in dropped.keywords if k.arg not in ("mask", "other")]
            dropped.args = dropped.args[:pos_mask]
            out.append(Injection(kind="drop-mask", expected="TL101" if access == "load" else "TL102",
                                 text=_replace_call(text, call, dropped), **where))  # type: ignore[arg-type]
            # weaken-mask
            weak = _weakened(mask)
            if weak is not None:
                weakened = copy.deepcopy(call)
                for k in weakened.keywords:
                    if k.arg == "mask":
                        k.value = weak
                if len(weakened.args) > pos_mask:
                    weakened.args[pos_mask] = weak
                out.append(Injection(kind="weaken-mask", expected="TL104",
                                     text=_replace_call(text, call, weakened), **where))  # type: ignore[arg-type]
            # drop-other, other-zero
            if access == "load" and other is not None and MINUS_INF.match(ast.unparse(other)):
                bare = copy.deepcopy(call)
                bare.keywords = [k for k in bare.keywords if k.arg != "other"]
                bare.args = bare.args[:2]
                out.append(Injection(kind="drop-other", expected="TL105",
                                     text=_replace_call(text, call, bare), **where))  # type: ignore[arg-type]
                zeroed = copy.deepcopy(call)
                for k in zeroed.keywords:
                    if k.arg == "other":
                        k.value = ast.Constant(0.0)
                if len(zeroed.args) > 2:
                    zeroed.args[2] = ast.Constant(0.0)
                out.append(Injection(kind="other-zero", expected="TL105",
                                     text=_replace_call(text, call, zeroed), **where))  # type: ignore[arg-type]
    return out


def _check_json(root: Path, target: str) -> list[dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "tritonlint", "check", "--no-cache", "--exit-zero",
                           "--output-format", "json", target], cwd=root, capture_output=True, text=True, check=False)
    try:
        return list(json.loads(done.stdout or "[]"))
    except json.JSONDecodeError:
        return []


def _walks(path: Path, original: str, line: int, config: Any) -> tuple[str, ...]:
    """What the analysis reads about the correct access before it was broken: the offsets it walks
    and their tiles (`--explain`'s lines), which tell the witness which size to leave partial. They
    are the same whether or not the broken access gets a finding."""
    from tritonlint.explain import explain_source

    try:
        lines, _ = explain_source(str(path), original, line, config)
    except Exception:  # noqa: BLE001 - no notes: the witness tries its default sizes
        return ()
    return tuple(x.strip() for x in lines if x.strip().startswith("walks `") or "is a multiple of" in x)


def _judge(root: Path, inj: Injection, original: str, timeout: float) -> dict[str, Any]:
    """The witness's verdict on the injected access, from a diagnostic made of the injection and of
    what the analysis read about the access before it was broken (never of the finding, if any)."""
    from tritonlint.config import load_config
    from tritonlint.diagnostics import Diagnostic
    from tritonlint.engine import evenness_flags, find_file_launches
    from tritonlint.runner import discover, neighbours_of
    from tritonlint.source.outline import outline
    from tritonlint.witness.runner import witness

    path = root / inj.file
    config = load_config(None)
    file = next(iter(discover([str(path)], config)))
    text = inj.text
    try:
        launches = find_file_launches(str(path), text, outline(text), neighbours_of(file))
    except Exception:  # noqa: BLE001 - launches only add facts
        launches = {}
    flags = evenness_flags(text, config)
    message = f"injected; the masked-off lanes reach `tl.max` at line {inj.line}" if inj.expected == "TL105" \
        else "injected"
    code = inj.expected if inj.expected != "TL104" else ("TL101" if inj.access == "load" else "TL102")
    diag = Diagnostic(code, "injected", message, inj.file, inj.line, inj.column, inj.end_line, inj.column,
                      notes=_walks(path, original, inj.line, config))
    w = witness(path, inj.file, text, diag, launches, flags, None, timeout=timeout)
    status = w.status
    if status == "confirmed" and (w.evidence or {}).get("latent"):
        status = "latent"
    return {"status": status, "reason": w.reason, "seconds": round(w.seconds, 1)}


def run_package(package: Path, per_package: int, kinds: set[str], timeout: float, seed: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="tritonlint-inject-") as tmp:
        root = Path(tmp) / package.name
        shutil.copytree(package, root, ignore=shutil.ignore_patterns("*.so", "*.cubin", "*.bin", "*.pt"))
        before = _check_json(root.parent, package.name)
        reported: dict[str, set[int]] = collections.defaultdict(set)
        for d in before:
            rel = str(Path(d["path"]).relative_to(package.name))
            reported[rel] |= set(range(d["line"], d["end_line"] + 1))
        candidates: list[Injection] = []
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(errors="replace")
            if "jit" not in text or "triton" not in text:
                continue
            rel = str(path.relative_to(root))
            candidates += [i for i in injections(text, rel, reported.get(rel, set())) if i.kind in kinds]
        rng = random.Random(f"{seed}:{package.name}")
        chosen: list[Injection] = []
        for kind in sorted(kinds):  # the same share of each kind, so the rare ones are not crowded out
            pool = [i for i in candidates if i.kind == kind]
            chosen += rng.sample(pool, min(len(pool), per_package))
        for inj in chosen:
            path = root / inj.file
            original = path.read_text(errors="replace")
            path.write_text(inj.text)
            try:
                after = _check_json(root.parent, f"{package.name}/{inj.file}")
                hits = sorted({d["code"] for d in after
                               if d["line"] <= inj.end_line and d["end_line"] >= inj.line})
                verdict = _judge(root, inj, original, timeout)
            finally:
                path.write_text(original)
            rows.append({"package": package.name, "file": inj.file, "line": inj.line, "kind": inj.kind,
                         "access": inj.access, "expected": inj.expected, "reported": hits, **verdict})
            print(f"{package.name}:{inj.file}:{inj.line} {inj.kind} -> witness {verdict['status']}, "
                  f"check {','.join(hits) or '-'}", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--per-package", type=int, default=12, help="injections of each kind per package")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--timeout", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json")
    args = parser.parse_args()
    t0 = time.monotonic()
    rows: list[dict[str, Any]] = []
    for p in args.packages:
        rows += run_package(Path(p).resolve(), args.per_package, set(args.kinds.split(",")), args.timeout, args.seed)
    print(f"\n{len(rows)} injections in {time.monotonic() - t0:.0f} s")
    print("| kind | injected | confirmed by the witness | reported by check (any rule) | expected rule | recall |")
    print("| --- | --- | --- | --- | --- | --- |")
    for kind in KINDS:
        mine = [r for r in rows if r["kind"] == kind]
        if not mine:
            continue
        confirmed = [r for r in mine if r["status"] == "confirmed"]
        anyrule = [r for r in confirmed if r["reported"]]
        exact = [r for r in confirmed if r["expected"] in r["reported"]
                 or (kind == "weaken-mask" and {"TL101", "TL102", "TL104"} & set(r["reported"]))]
        recall = f"{100 * len(anyrule) / len(confirmed):.0f} %" if confirmed else "-"
        print(f"| {kind} | {len(mine)} | {len(confirmed)} | {len(anyrule)} | {len(exact)} | {recall} |")
    print("\nconfirmed and not reported:")
    for r in rows:
        if r["status"] == "confirmed" and not r["reported"]:
            print(f"  {r['package']}/{r['file']}:{r['line']} {r['kind']} ({r['access']})")
    causes = collections.Counter((r["status"], re.sub(r"\d+", "N", r["reason"] or "")[:90]) for r in rows
                                 if r["status"] != "confirmed")
    print("\nnot confirmed, by cause:")
    for (status, cause), n in causes.most_common(15):
        print(f"  {n} x {status}: {cause}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
