"""`--emit-repro` for an access that runs off the start of its tensor (a loop counting down, whose last
tile starts below 0): the script guards both ends and says which one, as the witness does.

Before: the script's guard region lay only after each tensor, so it printed "no out-of-bounds access"
and exited 0 for a finding the witness had confirmed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.witness.witness_cli import witness_json

COUNTED_DOWN = '''
import triton
import triton.language as tl


@triton.jit
def tiles_from_the_end(X, Y, K, BLOCK_K: tl.constexpr):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    last = tl.load(X + K - BLOCK_K + tl.arange(0, BLOCK_K), mask=K - BLOCK_K + tl.arange(0, BLOCK_K) >= 0, other=0.0)
    for k in range(K, 0, -BLOCK_K):
        offs = k - BLOCK_K + tl.arange(0, BLOCK_K)
        acc += tl.load(X + offs)
    tl.store(Y + tl.arange(0, BLOCK_K), acc + last)
'''


def test_the_repro_of_a_read_before_the_start_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "counted_down.py"
    path.write_text(COUNTED_DOWN)
    line = next(i for i, t in enumerate(COUNTED_DOWN.splitlines(), 1) if "acc += tl.load" in t)
    found = witness_json(path, "--select", "TL101", "--timeout", "120", "--emit-repro", str(tmp_path / "repro"))
    finding = next(d for d in found if d["line"] == line)
    assert finding["witness"]["status"] == "confirmed", finding["witness"]["reason"]
    assert "before the start of `X`" in finding["witness"]["reason"]
    script = next((tmp_path / "repro").glob(f"*_{line}_TL101.py"))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert "before the start of `X`" in done.stdout, done.stdout
