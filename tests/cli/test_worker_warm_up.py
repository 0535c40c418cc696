"""A worker's start: what it imports is set aside from the collector's passes."""

from __future__ import annotations

import gc

from tritonlint import cli


def test_a_worker_freezes_what_it_imported() -> None:
    # Workers are forked for a large check: libcst, the rules and the engine live as long as the
    # worker, and each full pass of the collector walked them all again.
    before = gc.get_freeze_count()
    try:
        cli._warm_up()
        assert gc.get_freeze_count() > before
        assert gc.get_freeze_count() > 10_000  # the modules, classes and functions of the analysis
    finally:
        gc.unfreeze()  # (this test process is no worker)
