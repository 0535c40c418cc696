"""Print the metamorphic matrix: every fixture under every semantics-preserving rewrite.

Usage: python scripts/metamorphic.py [--only SUBSTRING] [--rewrite NAME ...] [--keep DIR] [--known]
A cell holds when `tritonlint check` reports on the rewritten fixture exactly what it reports on
the original (same codes, at the lines the rewrite moved them to; look-alikes quiet), breaks
otherwise, and is n/a when the rewrite does not apply. `--keep DIR` leaves the rewritten trees.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "metamorphic"))

import matrix


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="fixtures whose id contains this")
    parser.add_argument("--rewrite", action="append", choices=sorted(matrix.REWRITES))
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--known", action="store_true",
                        help="print the breaking cells as the known-breaks dict of the tests instead")
    parser.add_argument("--write-known", type=Path, metavar="FILE",
                        help="also write that dict, under the header FILE already has")
    args = parser.parse_args()
    cases = [c for c in matrix.cases() if not args.only or args.only in c.id]
    rewrites = {n: matrix.REWRITES[n] for n in args.rewrite} if args.rewrite else matrix.REWRITES
    start = time.monotonic()
    cells = matrix.run(cases, rewrites, keep=args.keep)
    if args.known:
        print(matrix.known_breaks_source(cells))
        return 0
    print(matrix.render(cells))
    if args.write_known:
        text = args.write_known.read_text() if args.write_known.exists() else ""
        head = text.split("KNOWN_BREAKS", 1)[0]
        args.write_known.write_text(head + matrix.known_breaks_source(cells) + "\n")
    print(f"({len(cases)} fixtures x {len(rewrites)} rewrites in {time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
