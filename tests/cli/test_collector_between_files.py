"""A CLI check of many files keeps the cyclic collector off between them, from the second file on
(each check pauses it anyway: waking it between files only walked the trees the last check left
alive), and gives it back as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from tritonlint import cli
from tritonlint.config import Config
from tritonlint.report import FileReport
from tritonlint.runner import SourceFile

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def copy(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs))
'''


def _files(tmp_path: Path, count: int) -> list[SourceFile]:
    files = []
    for number in range(count):
        path = tmp_path / f"k{number}.py"
        path.write_text(KERNEL)
        files.append(SourceFile(path.name, path))
    return files


def test_the_collector_stays_off_between_files_and_is_given_back(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_workers", lambda count: 1)  # here, one after another
    seen: list[bool] = []
    analyse = cli.analyse

    def watched(item: tuple[SourceFile, bytes], config: Config, **kwargs: object) -> FileReport:
        seen.append(gc.isenabled())
        return analyse(item, config, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "analyse", watched)
    assert gc.isenabled()
    reports = cli.check_files(_files(tmp_path, 3), Config(), None)
    assert gc.isenabled()  # given back
    assert seen == [True, False, False]  # the first as found, then off between files
    assert [report.path for report in reports] == ["k0.py", "k1.py", "k2.py"]
    assert not any(report.errors or report.crashes for report in reports)


def test_a_collector_off_before_the_check_stays_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_workers", lambda count: 1)
    gc.disable()
    try:
        cli.check_files(_files(tmp_path, 2), Config(), None)
        assert not gc.isenabled()
    finally:
        gc.enable()
