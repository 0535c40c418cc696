"""Run the vllm_matmul_ogs harness on a Hopper GPU: original vs fixed triton_kernels, poisoned fills.

For each variant (the original vendored package, and a fixed copy) and each fill byte, the harness
runs in its own subprocess with the bytes after its inputs set to the fill; the table gives the
NaN count of the output, the error against the dequantized torch reference and whether the output
is allclose to it. Optionally (when ``compute-sanitizer`` is on the PATH) one original and one fixed
run go under ``compute-sanitizer --tool memcheck`` with PYTORCH_NO_CUDA_MEMORY_CACHING=1 and each
input in an allocation of its own exact size, so that an overread is an out-of-bounds access.

The fixed tree is, by default, the original with the upstream fix applied to the Hopper scale load
(``matmul_ogs_details/_matmul_ogs.py:327``); ``--fixed DIR`` takes another tree instead (for
example the output of ``tritonlint check --fix``).

Usage (on the device, from the repository root):
    python3 harnesses/vllm_matmul_ogs/run_h200.py [--original .vllm_tk/original] [--fixed DIR]
        [--fills 0x00,0xfe,0xff] [--sanitizer auto|on|off] [--out $OUT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BUGGY_LINE = "w_scales = unswizzle_mxfp4_scale_hopper(tl.load(WMxScalePtrs), mx_axis=1, num_warps=num_warps)"
KERNEL_FILE = Path("triton_kernels/matmul_ogs_details/_matmul_ogs.py")
# The upstream fix (triton-lang/triton, vllm-project/vllm#47303): mask the Hopper scale load on the
# non-EVEN_K path, keep the even path free of a mask.
FIX_TEMPLATE = """\
{i}if EVEN_K:
{i}    hopper_scale_mask = tl.full([PACKED_MX_BLOCK], True, dtype=tl.int1)
{i}else:
{i}    hopper_scale_mask = (offs_k_scale // 32) * MX_PACK_DIVISOR < k
{i}w_scales = unswizzle_mxfp4_scale_hopper(
{i}    tl.load(WMxScalePtrs, mask=hopper_scale_mask[None, :], other=0),
{i}    mx_axis=1, num_warps=num_warps)
"""


def make_fixed_tree(original: Path, dest: Path) -> str:
    """Copy ``original`` to ``dest`` and apply the upstream mask; return the unified diff."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(original, dest, ignore=shutil.ignore_patterns("__pycache__"))
    path = dest / KERNEL_FILE
    lines = path.read_text().splitlines(keepends=True)
    hits = [n for n, line in enumerate(lines) if line.strip() == BUGGY_LINE]
    if len(hits) != 1:
        raise SystemExit(f"expected the buggy line once in {path}, found {len(hits)}")
    n = hits[0]
    indent = lines[n][: len(lines[n]) - len(lines[n].lstrip())]
    new = lines[:n] + [FIX_TEMPLATE.format(i=indent)] + lines[n + 1:]
    path.write_text("".join(new))
    return "".join(difflib.unified_diff(lines, "".join(new).splitlines(keepends=True),
                                        f"a/{KERNEL_FILE}", f"b/{KERNEL_FILE}"))


# ----------------------------------------------------------------------------------------------
# child: one harness run in this process
# ----------------------------------------------------------------------------------------------

def child() -> int:
    import hashlib

    import torch

    sys.path.insert(0, str(HERE))
    import harness

    t0 = time.time()
    res = harness.run("cuda")
    info = dict(harness.LAST_INFO)
    out = res["out"]
    outf = out.float()
    stats: dict[str, Any] = {
        "seconds": round(time.time() - t0, 1),
        "out_shape": list(out.shape),
        "out_dtype": str(out.dtype),
        "nan": int(torch.isnan(outf).sum()),
        "inf": int(torch.isinf(outf).sum()),
        "out_sha256": hashlib.sha256(out.contiguous().view(torch.uint8).cpu().numpy().tobytes()).hexdigest(),
    }
    nan_mask = torch.isnan(outf)
    if stats["nan"]:
        rows = nan_mask.any(dim=1).nonzero().flatten()
        cols = nan_mask.any(dim=0).nonzero().flatten()
        offs = [0]
        for h in info["hist"]:
            offs.append(offs[-1] + h)
        experts = sorted({next(e for e in range(len(info["hist"])) if offs[e] <= r < offs[e + 1]) for r in rows.tolist()})
        stats.update(nan_rows=int(rows.numel()), nan_cols=[int(cols.min()), int(cols.max())],
                     nan_ncols=int(cols.numel()), nan_experts=experts)
    if "ref" in res:
        ref = res["ref"]
        finite = torch.isfinite(outf)
        refmax = float(ref.abs().max())
        diff = (outf - ref).abs()
        stats.update(
            ref_nan=int(torch.isnan(ref).sum()),
            ref_absmax=refmax,
            max_err_rel=float(diff[finite].max()) / refmax if bool(finite.any()) else None,
            l2_err_rel=float(torch.linalg.vector_norm(diff[finite]) / torch.linalg.vector_norm(ref[finite])),
            allclose=bool(torch.allclose(outf, ref, rtol=1e-2, atol=1e-2 * refmax)),
        )
    print("RESULT " + json.dumps({"info": info, "stats": stats}), flush=True)
    return 0


# ----------------------------------------------------------------------------------------------
# parent
# ----------------------------------------------------------------------------------------------

def sh(cmd: str) -> str:
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60, check=False).stdout.strip()
    except Exception as exc:  # noqa: BLE001 - a missing tool is reported, not fatal
        return f"({exc})"


def versions() -> dict[str, str]:
    code = ("import torch, triton, sys; p = torch.cuda.get_device_properties(0); "
            "print(sys.version.split()[0], torch.__version__, torch.version.cuda, triton.__version__, "
            "p.name.replace(' ', '_'), f'sm_{p.major}{p.minor}', p.multi_processor_count, sep='|')")
    py = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False).stdout.strip().split("|")
    keys = ["python", "torch", "torch_cuda", "triton", "gpu", "capability", "sms"]
    v = dict(zip(keys, py))
    v["driver"] = sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader")
    v["compute_sanitizer"] = sh("compute-sanitizer --version | tail -1") if shutil.which("compute-sanitizer") else "absent"
    v["date_utc"] = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    v["host"] = sh("uname -r")
    return v


def run_child(root: Path, env_extra: dict[str, str], timeout: int, prefix: list[str] | None = None,
              log: Path | None = None) -> dict[str, Any]:
    env = dict(os.environ, VLLM_TK_ROOT=str(root), PYTHONUNBUFFERED="1", **env_extra)
    cmd = (prefix or []) + [sys.executable, str(Path(__file__).resolve()), "--child"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO, check=False)
        text, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as exc:
        text = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        text += "\n[timed out]"
        rc = 124
    wall = round(time.time() - t0, 1)
    if log:
        log.write_text(" ".join(cmd) + "\n" + text)
    result: dict[str, Any] = {"rc": rc, "wall_s": wall}
    m = re.search(r"^RESULT (.*)$", text, re.MULTILINE)
    if m:
        result.update(json.loads(m.group(1)))
    else:
        result["error"] = text[-3000:]
    s = re.search(r"ERROR SUMMARY: (\d+) error", text)
    if s:
        result["sanitizer_errors"] = int(s.group(1))
        result["sanitizer_sample"] = [ln.strip() for ln in text.splitlines()
                                      if "Invalid __global__" in ln or "is out of bounds" in ln
                                      or "bytes after the nearest allocation" in ln][:6]
    return result


def fmt(x: Any, spec: str = "") -> str:
    if x is None:
        return "-"
    return format(x, spec) if spec else str(x)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--original", type=Path, default=REPO / ".vllm_tk" / "original")
    ap.add_argument("--fixed", type=Path, default=None, help="a fixed tree (default: apply the upstream mask)")
    ap.add_argument("--fills", default="0x00,0xfe,0xff")
    ap.add_argument("--extra", default="scale@0xff",
                    help="extra rows poisoning only some inputs: TARGETS@FILL;... ('' for none)")
    ap.add_argument("--sanitizer", choices=["auto", "on", "off"], default="auto")
    ap.add_argument("--timeout", type=int, default=240, help="per harness run, seconds")
    ap.add_argument("--budget", type=int, default=420, help="skip the sanitizer runs past this many seconds")
    ap.add_argument("--work", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "tritonlint_vllm_matmul_ogs")
    ap.add_argument("--out", type=Path, default=Path(os.environ["OUT"]) if os.environ.get("OUT") else None)
    a = ap.parse_args(argv)
    if a.child:
        return child()

    t_start = time.time()
    out = a.out or (a.work / "out")
    out.mkdir(parents=True, exist_ok=True)
    if not (a.original / KERNEL_FILE).is_file():
        raise SystemExit(f"no triton_kernels under {a.original}: run scripts/fetch_vllm_triton_kernels.sh")
    v = versions()
    print("versions:", json.dumps(v), flush=True)
    if a.fixed is None:
        fixed = a.work / "fixed"
        diff = make_fixed_tree(a.original, fixed)
        fixed_label = "fixed (upstream mask, applied by run_h200.py)"
    else:
        fixed = a.fixed
        orig_src = (a.original / KERNEL_FILE).read_text().splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(orig_src, (fixed / KERNEL_FILE).read_text().splitlines(keepends=True),
                                            f"a/{KERNEL_FILE}", f"b/{KERNEL_FILE}"))
        fixed_label = f"fixed ({fixed})"
    (out / "fix.diff").write_text(diff)
    print(f"original: {a.original.resolve()}\n{fixed_label}: {fixed.resolve()}\nfix diff:\n{diff}", flush=True)

    variants = [("original", a.original), ("fixed", fixed)]
    fills = [f.strip() for f in a.fills.split(",") if f.strip()]
    plan: list[tuple[str, Path, str, str]] = [(n, r, f, "x,w,scale") for n, r in variants for f in fills]
    for item in filter(None, a.extra.split(";")):
        targets, fill = item.split("@")
        plan += [(n, r, fill, targets) for n, r in variants]
    rows: list[dict[str, Any]] = []
    for name, root, fill, targets in plan:
        r = run_child(root, {"TRITONLINT_FILL": fill, "TRITONLINT_POISON": "tail",
                                   "TRITONLINT_POISON_TARGETS": targets}, a.timeout)
        r.update(variant=name, fill=fill, targets=targets)
        rows.append(r)
        st = r.get("stats", {})
        print(f"[{time.time() - t_start:6.1f}s] {name:8s} fill={fill} targets={targets}: rc={r['rc']} "
              f"wall={r['wall_s']}s nan={st.get('nan')} allclose={st.get('allclose')}"
              + (f"\n{r['error']}" if "error" in r else ""), flush=True)

    san: list[dict[str, Any]] = []
    have = shutil.which("compute-sanitizer") is not None
    if a.sanitizer == "on" or (a.sanitizer == "auto" and have):
        for name, root in variants:
            left = a.budget - (time.time() - t_start)
            if left < 60:
                print(f"sanitizer {name}: skipped, {left:.0f}s of the budget left", flush=True)
                continue
            prefix = ["compute-sanitizer", "--tool", "memcheck", "--kernel-name", "kns=matmul_ogs",
                      "--print-limit", "8"]
            env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1", "TRITONLINT_POISON": "none",
                   "TRITONLINT_NO_REF": "1", "TRITONLINT_FILL": "0x00"}
            log = out / f"sanitizer_{name}.log"
            r = run_child(root, env, int(min(a.timeout, left - 20)), prefix=prefix, log=log)
            left = a.budget - (time.time() - t_start)
            if "sanitizer_errors" not in r and r["rc"] != 124 and left > 60:
                # an older compute-sanitizer may not know --kernel-name: check every kernel instead
                print(f"sanitizer {name}: no summary with --kernel-name (rc={r['rc']}), retrying unfiltered",
                      flush=True)
                r = run_child(root, env, int(min(a.timeout, left - 20)), prefix=prefix[:3] + prefix[5:], log=log)
            r.update(variant=name)
            san.append(r)
            print(f"[{time.time() - t_start:6.1f}s] sanitizer {name}: rc={r['rc']} wall={r['wall_s']}s "
                  f"errors={r.get('sanitizer_errors')} nan={r.get('stats', {}).get('nan')}", flush=True)
    elif a.sanitizer != "off":
        print("compute-sanitizer not on the PATH: skipped", flush=True)

    (out / "results.json").write_text(json.dumps({"versions": v, "runs": rows, "sanitizer": san,
                                                  "fix_diff": diff}, indent=1))
    # ------------------------------------------------------------------ summary, printed last
    first = next((r for r in rows if "info" in r), None)
    print("\n== vLLM 0.24.0 triton_kernels matmul_ogs, MXFP4 Hopper path ==")
    print("versions: " + ", ".join(f"{k} {v[k]}" for k in v))
    if first:
        i = first["info"]
        print(f"shape: x {i['x'][0]} bf16, w {i['w'][0]} {i['w'][2]}, scale {i['scale'][0]} {i['scale'][2]} "
              f"({i['scale_nbytes']} bytes), E={len(i['hist'])}, top-{topk_from(i)}")
        print(f"opt flags: {i.get('opt_flags')}, EVEN_K={i.get('EVEN_K')}; last K tile at "
              f"{i.get('last_k_tile_start')}, reads {i.get('bytes_read_past_each_scale_row')} bytes past each "
              f"scale row; NaN predicted for an unmasked load with a NaN fill: "
              f"{i.get('predicted_nan_if_unmasked_and_fill_is_nan')} (last expert: {i['hist'][-1]} rows x cols "
              f"{i.get('last_row_real_columns')})")
    hdr = f"{'variant':9s} {'fill':5s} {'poisoned':10s} {'NaN(out)':>9s} {'max|err|/max|ref|':>18s} " \
          f"{'rel L2':>9s} {'allclose':>8s} {'bytes after scale':>17s} {'out sha256':>12s}  {'s':>5s}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        st, i = r.get("stats", {}), r.get("info", {})
        after = i.get("bytes_after_scale")
        after_s = "-" if not after else ",".join(f"0x{b:02x}" for b in after)
        print(f"{r['variant']:9s} {r['fill']:5s} {r['targets']:10s} {fmt(st.get('nan')):>9s} "
              f"{fmt(st.get('max_err_rel'), '.4%'):>18s} {fmt(st.get('l2_err_rel'), '.2e'):>9s} "
              f"{fmt(st.get('allclose')):>8s} {after_s:>17s} {st.get('out_sha256', '-')[:12]:>12s}  "
              f"{r['wall_s']:5.1f}" + ("" if r["rc"] == 0 else f"  rc={r['rc']}"))
    for r in rows:
        if r.get("stats", {}).get("nan"):
            st = r["stats"]
            print(f"  {r['variant']} {r['fill']} {r['targets']}: NaN in {st['nan_rows']} rows (experts "
                  f"{st['nan_experts']}), {st['nan_ncols']} columns {st['nan_cols'][0]}..{st['nan_cols'][1]}")
    for r in san:
        print(f"compute-sanitizer memcheck, {r['variant']}: {r.get('sanitizer_errors')} errors "
              f"(rc={r['rc']}, {r['wall_s']}s)")
        for line in r.get("sanitizer_sample", [])[:4]:
            print("   ", line)
    ok_rows = [r for r in rows if r["variant"] == "fixed"]
    shas = [r.get("stats", {}).get("out_sha256") for r in ok_rows]
    same = bool(shas) and None not in shas and len(set(shas)) == 1
    o0 = next((r for r in rows if r["variant"] == "original" and int(r["fill"], 0) == 0
               and r["targets"] == "x,w,scale"), None)
    f0 = next((r for r in rows if r["variant"] == "fixed" and int(r["fill"], 0) == 0
               and r["targets"] == "x,w,scale"), None)
    print(f"fixed outputs identical for every fill: {same}; fixed == original on fill 0x00: "
          f"{bool(o0 and f0 and o0.get('stats', {}).get('out_sha256') is not None and o0['stats']['out_sha256'] == f0.get('stats', {}).get('out_sha256'))}")
    print(f"total {time.time() - t_start:.0f}s")
    return 0


def topk_from(info: dict[str, Any]) -> int:
    return round(sum(info["hist"]) / max(1, info["x"][0][0]))


if __name__ == "__main__":
    sys.exit(main())
