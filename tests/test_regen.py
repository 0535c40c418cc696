"""scripts/regen_fixtures.py: the one way fixture expectations are rewritten, listing each file."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "regen_fixtures.py"
CASE = ROOT / "fixtures" / "unmasked-tail-store" / "store_tail.py"


def _regen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_regen_rewrites_stale_files_and_names_them(tmp_path: Path) -> None:
    folder = tmp_path / "fixtures" / "unmasked-tail-store"
    folder.mkdir(parents=True)
    case = folder / CASE.name
    shutil.copy(CASE, case)
    # The repository's configuration too: fixes are laid out to its line length.
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    expected, fixed = case.with_suffix(".expected"), case.with_name("store_tail.fixed.py")
    expected.write_text("stale\n")
    fixed.write_text("stale\n")
    (folder / "clean.py").write_text("x = 1\n")
    (folder / "clean.expected").write_bytes(b"")  # already right: not rewritten, not listed

    checked = _regen(tmp_path, "--check")
    assert checked.returncode == 1, checked.stderr
    assert expected.read_text() == "stale\n" and fixed.read_text() == "stale\n"  # --check writes nothing
    done = _regen(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "rewrote fixtures/unmasked-tail-store/store_tail.expected",
        "rewrote fixtures/unmasked-tail-store/store_tail.fixed.py",
        "rewrote 2 file(s) of 2 fixture(s)",
    ]
    # The same bytes as the repository's own files (the paths in them are relative to the root).
    assert expected.read_bytes() == CASE.with_suffix(".expected").read_bytes()
    assert fixed.read_bytes() == CASE.with_name("store_tail.fixed.py").read_bytes()
    again = _regen(tmp_path, "--check")
    assert (again.returncode, again.stdout) == (0, "would rewrite 0 file(s) of 2 fixture(s)\n")
    assert sorted(p.name for p in folder.iterdir()) == [
        "clean.expected", "clean.py", "store_tail.expected", "store_tail.fixed.py", "store_tail.py"]


def test_the_test_suite_has_no_rewrite_switch() -> None:
    """`pytest --regen` is no option any more: asking for it is a usage error, not a rewrite."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "--regen", "--collect-only",
                           str(ROOT / "tests" / "semantic" / "test_paths.py")], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 4 and "unrecognized arguments: --regen" in done.stderr, done.stderr
