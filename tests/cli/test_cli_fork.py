"""`check FOLDER` with too few files for the worker pool: the early workers are let go before the
files are checked, so a huge file among them still gets the second core (the engine forks only
in a process with no other thread, and the pool's manager is one)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from test_engine_forked import SHARED

from tritonlint import engine
from tritonlint.cli import main
from tritonlint.forked import Forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or len(os.sched_getaffinity(0)) < 2,
                                reason="needs fork and two cores")


def test_a_folder_of_one_huge_file_is_checked_on_two_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert threading.active_count() == 1, "this test needs a process with one thread"
    (tmp_path / "kernels.py").write_text(SHARED, encoding="utf-8")
    started: list[int] = []

    class Counted(Forked):  # type: ignore[type-arg]
        def __init__(self, work: object) -> None:
            started.append(1)
            super().__init__(work)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "Forked", Counted)
    monkeypatch.setattr(engine, "FORK_ABOVE", 10**12)
    assert main(["check", "--no-cache", "--exit-zero", "--output-format", "json", str(tmp_path)]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert started == []
    monkeypatch.setattr(engine, "FORK_ABOVE", 0)  # every file "huge"
    assert main(["check", "--no-cache", "--exit-zero", "--output-format", "json", str(tmp_path)]) == 0
    shared = json.loads(capsys.readouterr().out)
    assert started == [1], "the file was checked on two cores"
    assert shared == alone and len(alone) >= 4
