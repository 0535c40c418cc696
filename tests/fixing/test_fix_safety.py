"""A masking fix is safe exactly when its switched-off lanes are proven neutral; the summary counts
what the configuration lets --fix apply; --fix writes no fix Triton's frontend rejects."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tritonlint.config import Config
from tritonlint.diagnostics import Applicability
from tritonlint.engine import check_source
from tritonlint.frontend_check import frontend_rejections, triton_importable

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "unmasked-tail-load"


def _readme_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## A first example"):]
    return section[section.index("<<'EOF'\n") + 8:section.index("\nEOF\n") + 1]


def _load_fix(path: str, text: str) -> tuple[Applicability, str]:
    found = [d for d in check_source(path, text, Config(), strict=True).diagnostics if d.code == "TL101"]
    assert len(found) == 1 and found[0].fix is not None
    return found[0].fix.applicability, found[0].fix.title


def test_readme_example_fix_is_proven_safe() -> None:
    applicability, title = _load_fix("dot.py", _readme_example())
    assert applicability is Applicability.SAFE
    assert "reach only `tl.sum` (line 17) as 0" in title


def test_lanes_reaching_a_sum_make_the_fix_safe() -> None:
    case = FIXTURES / "neutral_lanes_sum.py"
    applicability, _ = _load_fix(case.name, case.read_text(encoding="utf-8"))
    assert applicability is Applicability.SAFE


def test_lanes_reaching_a_max_as_zero_keep_the_fix_unsafe() -> None:
    case = FIXTURES / "neutral_lanes_max.py"
    applicability, title = _load_fix(case.name, case.read_text(encoding="utf-8"))
    assert applicability is Applicability.UNSAFE
    assert "as 0, not its identity -inf" in title


def test_lanes_reaching_an_unmasked_store_keep_the_fix_unsafe() -> None:
    case = FIXTURES / "neutral_lanes_store.py"
    applicability, title = _load_fix(case.name, case.read_text(encoding="utf-8"))
    assert applicability is Applicability.UNSAFE
    assert "reach the tl.store at line 20 with no mask on that dimension" in title


def test_once_the_store_is_masked_the_load_fix_is_safe_too(tmp_path: Path) -> None:
    """Plain --fix applies the store's own safe fix first; read again, the load's lanes are dropped."""
    case = FIXTURES / "neutral_lanes_store.py"
    (tmp_path / "k.py").write_text(case.read_text(encoding="utf-8"), encoding="utf-8")
    done = _run("check", "--fix", "--no-cache", "--no-frontend-check", "k.py", cwd=tmp_path)
    fixed = (tmp_path / "k.py").read_text(encoding="utf-8")
    assert "x = tl.load(X + start + offs, mask=offs < N - start, other=0)" in fixed, done.stdout
    assert "tl.store(Y + start + offs, x * 2.0, mask=offs < N - start)" in fixed


def test_lanes_reaching_a_helper_keep_the_fix_unsafe() -> None:
    text = (FIXTURES / "neutral_lanes_sum.py").read_text(encoding="utf-8")
    text = text.replace("acc += x * 2.0", "acc += twice(x)") + (
        "\n\n@triton.jit\ndef twice(v):\n    return v * 2.0 + 1.0\n")
    applicability, title = _load_fix("helper.py", text)
    assert applicability is Applicability.UNSAFE
    assert "`twice`" in title and "not read" in title


def test_a_reduction_on_an_axis_that_cannot_be_told_keeps_the_fix_unsafe() -> None:
    text = (FIXTURES / "neutral_lanes_sum.py").read_text(encoding="utf-8")
    text = text.replace("BLOCK: tl.constexpr):", "BLOCK: tl.constexpr, AXIS: tl.constexpr):")
    text = text.replace("tl.sum(acc, axis=0)", "tl.sum(acc, axis=AXIS)")
    applicability, title = _load_fix("axis.py", text)
    assert applicability is Applicability.UNSAFE
    assert "`tl.sum` (line 22) along an axis the reading cannot tell" in title


def test_lanes_through_an_attribute_the_reading_passes_over_keep_the_fix_unsafe() -> None:
    """`w.T` is not followed by the lane reading (it reads as holding no lanes): never proven neutral."""
    text = (FIXTURES / "neutral_lanes_sum.py").read_text(encoding="utf-8").replace("acc += x * 2.0", "acc += x.T * 2.0")
    applicability, title = _load_fix("attribute.py", text)
    assert applicability is Applicability.UNSAFE
    assert "`x.T` (line 21), which the lane reading does not follow" in title


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tritonlint", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=300)


def test_plain_fix_changes_the_readme_example(tmp_path: Path) -> None:
    (tmp_path / "dot.py").write_text(_readme_example(), encoding="utf-8")
    done = _run("check", "--fix", "--no-cache", "dot.py", cwd=tmp_path)
    fixed = (tmp_path / "dot.py").read_text(encoding="utf-8")
    assert "w = tl.load(W + k + offs, mask=offs < K - k, other=0)" in fixed, done.stderr
    assert done.returncode == 0


def test_unsafe_fixes_in_the_configuration_change_the_summary(tmp_path: Path) -> None:
    case = (FIXTURES / "neutral_lanes_max.py").read_text(encoding="utf-8")
    (tmp_path / "kernel.py").write_text(case, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.tritonlint]\n", encoding="utf-8")
    plain = _run("check", "--no-cache", "kernel.py", cwd=tmp_path)
    assert plain.stdout.splitlines()[-1] == "Found 1 error (1 with --unsafe-fixes)."
    (tmp_path / "pyproject.toml").write_text("[tool.tritonlint]\nunsafe-fixes = true\n", encoding="utf-8")
    configured = _run("check", "--no-cache", "kernel.py", cwd=tmp_path)
    assert configured.stdout.splitlines()[-1] == "Found 1 error (1 fixable with --fix)."
    overridden = _run("check", "--no-cache", "--no-unsafe-fixes", "kernel.py", cwd=tmp_path)
    assert overridden.stdout.splitlines()[-1] == "Found 1 error (1 with --unsafe-fixes)."


@pytest.mark.skipif(not triton_importable(), reason="triton is not installed")
def test_frontend_refuses_a_fix_comparing_a_pointer_with_an_int() -> None:
    original = _readme_example()
    good = original.replace("w = tl.load(W + k + offs)\n        acc",
                            "w = tl.load(W + k + offs, mask=offs < K - k, other=0)\n        acc")
    bad = original.replace("w = tl.load(W + k + offs)\n        acc",
                           "w = tl.load(W + k + offs, mask=W + k + offs < K, other=0)\n        acc")
    assert good != original and bad != original
    rejected = frontend_rejections([("good.py", original, good), ("bad.py", original, bad)])
    assert set(rejected) == {"bad.py"}
    assert "pointer<fp32>" in rejected["bad.py"] and "`dot`" in rejected["bad.py"]


@pytest.mark.skipif(not triton_importable(), reason="triton is not installed")
def test_a_fixed_text_the_frontend_rejects_is_not_written(tmp_path: Path) -> None:
    """`write_checked`, the step of `check --fix` that writes: a rejected file keeps its text and its
    finding, with a notice naming the kernel and the frontend's words; an accepted one is written."""
    from dataclasses import replace

    from tritonlint.runner import SourceFile, write_checked

    original = _readme_example()
    bad = original.replace("w = tl.load(W + k + offs)\n        acc",
                           "w = tl.load(W + k + offs, mask=W + k + offs < K, other=0)\n        acc")
    good = original.replace("w = tl.load(W + k + offs)\n        acc",
                            "w = tl.load(W + k + offs, mask=offs < K - k, other=0)\n        acc")
    files, reports = [], []
    for name, fixed in (("bad.py", bad), ("good.py", good)):
        (tmp_path / name).write_text(original, encoding="utf-8")
        file = SourceFile(name, tmp_path / name)
        report = check_source(name, original, Config(), strict=True)
        files.append(file)
        reports.append(replace(report, text=original, fixed_text=fixed, fixed=("TL101",)))
    written = write_checked(reports, files, Config())
    assert (tmp_path / "bad.py").read_text(encoding="utf-8") == original
    assert (tmp_path / "good.py").read_text(encoding="utf-8") == good
    assert [d.code for d in written[0].diagnostics] == ["TL101"] and written[0].fixed_text is None
    (notice,) = written[0].notices
    assert notice.startswith("bad.py: fix not written: Triton's frontend rejects the fixed kernel `dot`")
    assert written[1].fixed_text == good and not written[1].notices
