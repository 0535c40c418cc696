"""Shared pytest setup: paths. (No option rewrites expected files: scripts/regen_fixtures.py does.)"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
