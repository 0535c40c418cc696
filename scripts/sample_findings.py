"""Draw a reproducible random sample of `tritonlint check --output-format json` findings to triage.

Usage:
    python scripts/sample_findings.py --seed 20261203 -n 40 first_*.json > sample.json

Each input file is one package's JSON output; the sample is drawn from all findings together, with
`random.Random(seed).sample`, so the same files and seed give the same sample.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("-n", type=int, default=40, help="sample size (default 40; all when fewer)")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    findings = [finding for path in sorted(args.files) for finding in json.loads(path.read_text())]
    sample = random.Random(args.seed).sample(findings, min(args.n, len(findings)))
    json.dump(sample, sys.stdout, indent=1)
    print()
    print(f"{len(sample)} of {len(findings)} findings", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
