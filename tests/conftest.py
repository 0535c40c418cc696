"""Shared pytest setup: paths, and each test's own cache folder. (scripts/regen_fixtures.py rewrites expected files.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import settings

# No example database: Hypothesis would otherwise keep examples in .hypothesis/ inside the checkout
# and replay them in later runs, so a run could fail or pass by what an earlier one left there.
settings.register_profile("isolated", database=None)
settings.load_profile("isolated")

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# The tests mirror the code in folders (tests/cli/, tests/fixing/, tests/rules/<family>/...), with no
# `__init__.py` files and pytest's default import mode: each test file is imported by its basename, so
# no two test files may share one (collection stops with
# "import file mismatch" if they do). Shared helpers such
# as tests/fuzz_kernels.py stay in tests/ and are importable from every folder through this entry.
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test, and every process it starts, reads and writes results in a fresh folder of its own.

    Without it, checks of the fixtures share `.tritonlint_cache` beside the checkout's pyproject.toml,
    so a test could pass on entries an earlier test (or an earlier run of the suite) left there.
    """
    cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("TRITONLINT_CACHE_DIR", str(cache))
    return cache
