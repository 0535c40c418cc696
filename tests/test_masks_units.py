"""TL104 (sufficiency.py) and TL105 (lanes.py) one decision at a time, on small kernels written for
the mutants of the `masks` group of scripts/mutation.sh (docs/mutation.md, "the masks group")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tritonlint.cli import main

HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _findings(tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str], code: str) -> list[dict[str, object]]:
    path = tmp_path / "k.py"
    path.write_text(HEADER + body)
    main(["check", "--no-cache", "--select", code, "--output-format", "json", str(path)])
    found: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return found


def test_a_max_of_lanes_loaded_without_other_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = _findings(tmp_path, """\
def k(X, Y, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < n)
    tl.store(Y, tl.max(x, axis=0))
""", capsys, "TL105")
    assert [(f["code"], f["line"]) for f in found] == [("TL105", 8)]
