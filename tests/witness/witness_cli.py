"""`tritonlint witness --output-format json` on one file, as a user runs it: the tests that read the
witness's JSON for a kernel of their own share this one call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def witness_json(path: Path, *flags: str) -> list[dict[str, Any]]:
    """The JSON findings of `tritonlint witness [flags] --output-format json PATH`; the run must end
    with 0 (nothing confirmed) or 1 (something confirmed), never 2."""
    done = subprocess.run([sys.executable, "-m", "tritonlint", "witness", *flags, "--output-format", "json", str(path)],
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert done.returncode in (0, 1), done.stderr[-2000:]
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found
