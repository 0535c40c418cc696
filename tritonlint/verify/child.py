"""Subprocess entry of `tritonlint verify`: runs one harness (or compiles launched kernels) in one tree."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

# Everything this process learns goes into files in --out (report.json, outputs.pt); the parent
# never parses our stdout, which belongs to the harness.


def flatten_outputs(result: Any, prefix: str = "") -> dict[str, Any]:
    """A harness result (tensor, list/tuple, dict, nested) as {dotted name: CPU tensor}."""
    import torch

    out: dict[str, Any] = {}
    if isinstance(result, torch.Tensor):
        out[prefix or "out"] = result.detach().to("cpu").clone()
    elif isinstance(result, dict):
        for k, v in result.items():
            out.update(flatten_outputs(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(result, (list, tuple)):
        for i, v in enumerate(result):
            out.update(flatten_outputs(v, f"{prefix}.{i}" if prefix else str(i)))
    elif isinstance(result, (int, float, bool)):
        out[prefix or "out"] = torch.as_tensor(result)
    elif result is None:
        pass
    else:
        raise TypeError(f"harness returned a {type(result).__name__} at {prefix or 'top level'}; "
                        "expected a tensor, a list of tensors or a dict of them")
    return out


def _load_harness(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("_tritonlint_harness", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load harness {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_tritonlint_harness"] = mod
    spec.loader.exec_module(mod)
    if not callable(getattr(mod, "run", None)):
        raise AttributeError(f"harness {path} defines no run(device) function")  # noqa: TRY004 - a missing name
    return mod


def cmd_run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    report: dict[str, Any] = {"status": "crashed", "fill": args.fill, "device": args.device,
                              "violations": [], "launches": [], "specs": [], "error": None}
    t0 = time.monotonic()
    guard = None
    allocator = None
    recorder = None
    try:
        import torch

        if args.device == "cpu":
            from tritonlint.verify.interpreter_guard import InterpreterGuard

            guard = InterpreterGuard(fill=args.fill)
            guard.install()
        else:
            from tritonlint.verify.cuda_poison import LaunchRecorder, PaddedAllocator

            if not args.no_poison:
                # Before anything touches CUDA: the allocator cannot be swapped once used.
                allocator = PaddedAllocator(args.fill, args.pad_bytes, [args.tree, os.path.dirname(args.harness)])
                allocator.install()
            recorder = LaunchRecorder(allocator)
            recorder.install()
        harness = _load_harness(args.harness)
        result = harness.run(args.device)
        if args.device == "cuda":
            torch.cuda.synchronize()
        outputs = flatten_outputs(result)
        torch.save(outputs, out / "outputs.pt")
        if args.reference and callable(getattr(harness, "reference", None)):
            try:
                ref = harness.reference(args.device)
            except Exception as e:  # re-raised with the contract named
                raise RuntimeError("the harness's reference(device) failed (the verifier calls "
                                   "reference with the device name, like run)") from e
            torch.save(flatten_outputs(ref), out / "reference.pt")
        report["status"] = "ok"
    except BaseException as e:  # noqa: BLE001 - the harness's failure is a result, not our crash
        report["error"] = "".join(traceback.format_exception(type(e), e, e.__traceback__))[-8000:]
    finally:
        if guard is not None:
            guard.uninstall()
            report["violations"] = [v.to_dict() for v in guard.violations]
            report["launches"] = [{"path": p, "kernel": k, "count": n}
                                  for (p, k), n in sorted(guard.launches.items())]
            report["specs"] = list(guard.specs.values())
        if recorder is not None:
            recorder.uninstall()
            rec = recorder.to_dict()
            report["launches"] = rec["launches"]
            report["tensors"] = rec["tensors"]
        if allocator is not None:
            try:
                allocator.check_live()
            except Exception as e:  # noqa: BLE001 - the report is still written
                allocator.errors.append(f"check: {e!r}")
            report["allocator"] = {"fill": args.fill, "pad_bytes": allocator.pad,
                                   "allocations": allocator.count, "bytes": allocator.bytes,
                                   "errors": allocator.errors[:20],
                                   "written_past": [a.to_dict() for a in allocator.overruns]}
        report["elapsed"] = time.monotonic() - t0
        (out / "report.json").write_text(json.dumps(report, default=str))
    return 0 if report["status"] == "ok" else 3


def _resolve_jit(spec: dict[str, Any]) -> Any:
    mod = importlib.import_module(spec["module"])
    fn = getattr(mod, spec["kernel"])
    # Autotuner/Heuristics wrap the JITFunction in `.fn`.
    for _ in range(8):
        if hasattr(fn, "arg_names") and hasattr(fn, "cache_key"):
            return fn
        fn = getattr(fn, "fn", None)
        if fn is None:
            break
    raise TypeError(f"{spec['module']}.{spec['kernel']} is not a @triton.jit function")


def cmd_compile(args: argparse.Namespace) -> int:
    """Compile each launched spec for sm_90, plus a twin per evenness flag flipped, and save the TTIR."""
    from tritonlint.verify.compile_check import compile_ttir, parse_accesses

    specs = json.loads(Path(args.specs).read_text())
    results = []
    for spec in specs:
        item: dict[str, Any] = {"spec": spec, "variants": {}, "error": None}
        try:
            if spec.get("unsupported"):
                raise ValueError(spec["unsupported"])
            if not spec.get("module") or spec["module"].startswith("_tritonlint_harness"):
                raise ValueError("kernel defined in the harness itself is not compiled")
            fn = _resolve_jit(spec)
            variants = {"launched": dict(spec["constexprs"])}
            # The kernel's evenness flags as `check` recognises them (by use, heuristics, name),
            # each flipped: the specialization on the other side of every flag is compiled too.
            flags = spec.get("evenness_flags", {})
            for name, value in spec["constexprs"].items():
                if name in flags and isinstance(value, bool):
                    variants[f"{name}={not value}"] = {**spec["constexprs"], name: not value}
            for label, consts in variants.items():
                ttir = compile_ttir(fn, spec["signature"], consts, full=args.full)
                item["variants"][label] = {"constexprs": consts,
                                           "accesses": [a.to_dict() for a in parse_accesses(ttir)]}
        except Exception as e:  # noqa: BLE001 - one spec that does not compile is a result
            item["error"] = f"{type(e).__name__}: {e}"[-2000:]
        results.append(item)
    Path(args.out, "compile.json").write_text(json.dumps(results, default=str))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tritonlint.verify.child")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--tree", required=True)
    r.add_argument("--harness", required=True)
    r.add_argument("--device", default="cpu")
    r.add_argument("--fill", type=int, default=0)
    r.add_argument("--out", required=True)
    r.add_argument("--reference", action="store_true")
    r.add_argument("--no-poison", action="store_true")
    r.add_argument("--pad-bytes", type=int, default=256 << 10)
    c = sub.add_parser("compile")
    c.add_argument("--tree", required=True)
    c.add_argument("--specs", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--full", action="store_true")
    args = p.parse_args(argv)
    # The tree under test shadows any installed copy of the user's packages.
    tree = os.path.abspath(args.tree)
    sys.path[:] = [tree] + [x for x in sys.path if os.path.abspath(x or ".") != tree]
    code = cmd_run(args) if args.cmd == "run" else cmd_compile(args)
    if args.cmd == "run" and args.device == "cuda":
        # With the padded allocator, tensors freed during interpreter teardown would call back
        # into a finalizing interpreter: leave without teardown (the report is written).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())


def forked_main(argv: list[str], cwd: str, env: dict[str, str], log: str) -> None:
    """Entry of a run forked from the preloaded forkserver (torch and triton already imported).

    Same isolation as a fresh interpreter for what matters here: its own process, session,
    working directory, environment, sys.path and output file; only the import cost is shared.
    """
    os.setsid()  # its own process group, so the parent can kill whatever the harness spawns
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
