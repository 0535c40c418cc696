"""`tritonlint verify`: argument parsing and output for the dynamic verifier."""

from __future__ import annotations

import argparse
import json
import sys

from tritonlint.verify.records import DEFAULT_FILLS, VerifyError
from tritonlint.verify.report import format_text
from tritonlint.verify.runner import Options, Verifier


def _fills(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = int(part, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad fill value {part!r}") from None
        if not 0 <= value <= 255:
            raise argparse.ArgumentTypeError(f"fill {part} is not a byte")
        out.append(value)
    if not out:
        raise argparse.ArgumentTypeError("no fill values")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="file or folder to fix and verify")
    parser.add_argument("--harness", metavar="HARNESS.py",
                        help="Python file with run(device) returning a tensor, list or dict of them "
                             "(default: launches the witness synthesizes for PATH's findings)")
    parser.add_argument("--root", metavar="DIR",
                        help="import root copied and shadowed (default: the folder holding PATH)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cpu: Triton interpreter with exact bounds checks; cuda: poisoned GPU run")
    parser.add_argument("--fills", type=_fills, default=list(DEFAULT_FILLS),
                        help="comma-separated fill bytes (default 0x00,0xfe,0xff)")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="per harness run (default 300)")
    parser.add_argument("--jobs", type=int, default=0,
                        help="harness runs in parallel (default: all on cpu, 1 on cuda)")
    parser.add_argument("--rtol", type=float, default=0.0,
                        help="tolerance for fixed vs original at fill 0x00 (default exact)")
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--ref-tol", type=float, default=0.01,
                        help="max |fixed-ref|/max|ref| against a harness reference() (default 0.01)")
    parser.add_argument("--sanitizer", action="store_true",
                        help="on cuda, also run each tree under compute-sanitizer memcheck if present")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the sm_90 TTIR check of the launched kernels")
    parser.add_argument("--full-compile", action="store_true",
                        help="compile to a cubin rather than stopping at TTIR")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary trees and every run's log (their paths are printed)")
    parser.add_argument("--only", action="append", default=[], metavar="FILE:LINE",
                        help="verify only the fix at this line of PATH's tree (repeatable); the "
                             "fixer's other changes are reverted")
    parser.add_argument("--pad-bytes", type=int, default=256 << 10, metavar="N",
                        help="on cuda, fill bytes before and after every allocation, and the guard "
                             "region memcheck leaves after each (default 256 KiB)")
    parser.add_argument("--strict", action="store_true",
                        help="fail the run (exit 1) when a fix is reached by no run; by default such "
                             "fixes are listed as not reached and the others decide the verdict")
    parser.add_argument("--per-fix", action=argparse.BooleanOptionalAction, default=None,
                        help="also run each fix on its own, the others applied, so that one fault "
                             "neither hides nor stands in for another (default: on cuda with "
                             "several fixes)")


def run(args: argparse.Namespace) -> int:
    opts = Options(device=args.device, fills=args.fills, timeout=args.timeout, jobs=args.jobs,
                   rtol=args.rtol, atol=args.atol, ref_tol=args.ref_tol, sanitizer=args.sanitizer,
                   compile=not args.no_compile, full_compile=args.full_compile, keep=args.keep,
                   pad_bytes=args.pad_bytes, only=tuple(args.only), strict=args.strict,
                   per_fix=args.per_fix)
    try:
        report = Verifier(args.path, args.harness, args.root, opts).run()
    except VerifyError as e:
        print(f"tritonlint verify: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # Children were killed and temp trees removed on the way out (Verifier.run's finally).
        print("tritonlint verify: interrupted", file=sys.stderr)
        return 130
    if args.output_format == "json":
        print(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        print(format_text(report, keep=args.keep))
    return report.exit_code


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (`python -m tritonlint.verify.cli`), until the main CLI wires it in."""
    parser = argparse.ArgumentParser(prog="tritonlint verify")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
