"""Shared pytest setup: the `--regen` option that rewrites fixture expectations, and paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen",
        action="store_true",
        default=False,
        help="rewrite fixtures/<rule>/<case>.expected from the current output (review with git diff)",
    )


@pytest.fixture
def regen(request: pytest.FixtureRequest) -> bool:
    """True when expectations should be rewritten: `pytest --regen` or TRITONLINT_REGEN=1."""
    return bool(request.config.getoption("--regen")) or os.environ.get("TRITONLINT_REGEN") == "1"
