"""Rewrite the fixtures' expected outputs from the current tritonlint, and say which files changed.

Usage (from anywhere; paths are taken relative to the repository root, or --root):
    python scripts/regen_fixtures.py            # rewrite what differs, print each file rewritten
    python scripts/regen_fixtures.py --check    # rewrite nothing; list what would change, exit 1 if any

For every `fixtures/<rule>/<case>.py` (not `_*.py`, `*_harness.py` or `*.fixed.py`):
`<case>.expected` becomes the text `tritonlint check <case>` prints from the root (notes included,
no summary line), and an existing `<case>.fixed.py` becomes what `check --fix --unsafe-fixes`
leaves. This is the only way those files are rewritten: the test suite never writes them
(tests/test_fixtures.py compares). Review the result with `git diff fixtures/`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tritonlint.config import find_pyproject, load_config
from tritonlint.engine import check_source, fix_source
from tritonlint.output import text as text_output
from tritonlint.runner import SourceFile, read_source

ROOT = Path(__file__).resolve().parent.parent


def _cases(root: Path) -> list[Path]:
    return sorted(p for p in (root / "fixtures").glob("*/*.py")
                  if not (p.name.startswith("_") or p.name.endswith(("_harness.py", ".fixed.py"))))


def expectations(case: Path, root: Path) -> dict[Path, bytes]:
    """The files `case` should have beside it, with their bytes, as the test suite compares them."""
    display = case.relative_to(root).as_posix()
    text, error = read_source(SourceFile(display, case))
    if error is not None or text is None:
        raise SystemExit(f"regen_fixtures: {display}: {error}")
    config = load_config(find_pyproject(case))
    report = check_source(display, text, config, strict=True)
    if report.errors or report.crashes:
        raise SystemExit(f"regen_fixtures: {display}: {(report.errors + report.crashes)[0]}")
    wanted = {case.with_suffix(".expected"): text_output.render(report.diagnostics, summary=False).encode("utf-8")}
    fixed_file = case.with_name(case.stem + ".fixed.py")
    if fixed_file.exists():
        result = fix_source(display, text, config, unsafe=True, strict=True)
        if result.errors or result.crashes:
            raise SystemExit(f"regen_fixtures: {display}: fix: {(result.errors + result.crashes)[0]}")
        wanted[fixed_file] = (result.fixed_text if result.fixed_text is not None else text).encode("utf-8")
    return wanted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository root (default: this checkout)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    cases = _cases(root)
    if not cases:
        print(f"regen_fixtures: no fixtures under {root / 'fixtures'}", file=sys.stderr)
        return 2
    changed = 0
    for case in cases:
        for path, data in expectations(case, root).items():
            if path.exists() and path.read_bytes() == data:
                continue
            changed += 1
            rel = path.relative_to(root).as_posix()
            if args.check:
                print(f"would rewrite {rel}")
            else:
                scratch = path.with_name(path.name + ".regen-tmp")  # a whole file or none
                scratch.write_bytes(data)
                scratch.replace(path)
                print(f"rewrote {rel}")
    verb = "would rewrite" if args.check else "rewrote"
    print(f"{verb} {changed} file(s) of {len(cases)} fixture(s)")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
