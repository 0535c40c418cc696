"""Every fixture harness through `tritonlint verify` on the CPU (interpreter with the bounds guard).

For each `fixtures/*/<case>_harness.py`: the production fixer (`tritonlint check --fix
--unsafe-fixes`, a subprocess) fixes a copy of the fixture folder, the harness runs against both
trees under poisoned fills, and the verdict must be `verified`; the original's out-of-bounds
accesses must be reported at every `# expect: TL10x` line with the kernel argument they ran past,
and the fixed tree must show none.

Fixtures whose finding has no automatic fix (no `<case>.fixed.py`: the fix is display-only)
cannot be verified; for them the test checks that the harness confirms the finding (the original
goes out of bounds at the marked line) and that the verifier says the fixer left it unfixed.

Speed: the cases run two at a time in this process, sharing one forkserver; all but a few use
the fills 0x00 and 0xff only (0xfe adds nothing the other two do not show for these kernels).
"""

from __future__ import annotations

import ast
import concurrent.futures
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from tritonlint.verify.runner import Report, verify
from tritonlint.verify.trees import call_span as _call_span

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HARNESSES = sorted(FIXTURES.glob("*/*_harness.py"))
# These run with every default fill; the others with 0x00 and 0xff.
ALL_FILLS = {"gemm_even_k_twin", "mxfp4_hopper_scale_swizzled", "elementwise_store_unmasked",
             "reexport_import"}
MARKER = re.compile(r"#\s*expect:\s*(TL10[124])")
KIND = {"TL101": "load", "TL102": "store"}  # TL104 flags either: the marked line says which


def _case(harness: Path) -> Path:
    return harness.with_name(harness.name[: -len("_harness.py")] + ".py")


def _run(harness: Path) -> Report:
    case = _case(harness)
    fills = (0x00, 0xFE, 0xFF) if case.stem in ALL_FILLS else (0x00, 0xFF)
    return verify(case, harness, progress=lambda msg: None, fills=fills, timeout=240)


@pytest.fixture(scope="module")
def reports() -> Any:
    """Futures of every case's report, started together on first use (two cases at a time)."""
    pool = concurrent.futures.ThreadPoolExecutor(2)
    futs = {h: pool.submit(_run, h) for h in HARNESSES}
    yield futs
    pool.shutdown(wait=True, cancel_futures=True)


def _markers(case: Path) -> list[tuple[int, str]]:
    # An atomic is judged as a store, and the guard reports its lanes as an atomic's.
    return [(i, "atomic" if "tl.atomic_" in line else KIND.get(m.group(1)) or ("store" if "tl.store(" in line else "load"))
            for i, line in enumerate(case.read_text().splitlines(), 1) if (m := MARKER.search(line))]


def _kernel_params(case: Path, kernel: str) -> set[str]:
    for node in ast.walk(ast.parse(case.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return {a.arg for a in node.args.args}
    return set()


def _describe(report: Report) -> str:
    from tritonlint.verify.runner import format_text

    return format_text(report)


def test_every_fixture_with_a_fix_has_a_harness() -> None:
    fixed = sorted(p for p in FIXTURES.glob("*/*.fixed.py"))
    missing = [str(p) for p in fixed if not p.with_name(p.name.replace(".fixed.py", "_harness.py")).exists()]
    assert not missing, f"fixtures with a fix but no harness: {missing}"


def _inside_storage(report: Report, case: Path, line: int) -> bool:
    """The fix at the line is verified on the harness reference alone, and the original is off it."""
    off = next((v for k, v in report.checks.items() if k.startswith("original_off_reference_at_")), None)
    return bool(off) and any(f.path == case.name and f.orig_lines[0] <= line <= f.orig_lines[1] and f.verdict == "verified"
                             and "the original is off the harness reference" in f.reason for f in report.fixes)


@pytest.mark.parametrize("harness", HARNESSES, ids=[h.stem[: -len("_harness")] for h in HARNESSES])
def test_fixture_harness_verifies(harness: Path, reports: Any) -> None:
    report = reports[harness].result()
    text = _describe(report)
    case = _case(harness)
    has_fix = case.with_name(case.stem + ".fixed.py").exists()

    # Every run completed.
    assert all(r.status == "ok" for r in report.runs), text

    # The original goes out of bounds at every marked line, naming the kernel argument it ran past.
    original = [a for a in report.accesses if not a.in_fixed_tree]
    cache: dict[Path, Any] = {}
    for line, kind in _markers(case):
        hits = [a for a in original if a.path == case.name and a.kind == kind and a.line
                and _call_span(case, a.line, cache)[0] <= line <= _call_span(case, a.line, cache)[1]]
        if not hits and _inside_storage(report, case, line):
            continue  # wrong data inside the allocation (a padded group): the reference shows it
        assert hits, f"no out-of-bounds {kind} reported at {case.name}:{line}\n{text}"
        for a in hits:
            assert a.tensor in _kernel_params(case, a.site.kernel or ""), (a, text)
            assert a.site.max_elements and a.site.max_elements > 0, (a, text)

    fixed_runs = [r for r in report.runs if r.tree == "fixed"]
    if not has_fix:
        # Display-only finding: confirmed by the harness, nothing for the fixer to change.
        assert report.fixes == [], text
        assert report.verdict == "failed", text
        assert any("still out of bounds in the fixed tree" in r for r in report.reasons), text
        return

    # The fixed tree never goes out of bounds, and every fix is verified.
    assert all(not r.violations for r in fixed_runs), text
    assert not [a for a in report.accesses if a.in_fixed_tree], text
    assert report.fixes and all(f.verdict == "verified" for f in report.fixes), text
    assert report.verdict == "verified", text
    assert report.exit_code == 0
