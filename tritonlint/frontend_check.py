"""`check --fix` writes no fix whose kernel Triton's frontend rejects: one child process per run.

The child (`tritonlint.verify.frontend`) lowers each kernel a fix changed, before and after, to
Triton IR on the CPU, without importing the analysed module; this process never imports triton
(`check` needs only libcst). Where triton is not installed, the check is skipped silently. It costs
one interpreter start and a triton import (about two seconds) plus a tenth of a second a kernel,
paid only when some fix is about to be written; `--no-frontend-check` skips it.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence

TIMEOUT = 300  # seconds for the whole run's kernels: past it, nothing is refused


def triton_importable() -> bool:
    """Whether `import triton` would find a package (without importing it)."""
    try:
        return importlib.util.find_spec("triton") is not None
    except (ImportError, ValueError):
        return False


def frontend_rejections(fixes: Sequence[tuple[str, str, str]]) -> dict[str, str]:
    """{path: why} for each (path, original text, fixed text) whose fixed kernel Triton's frontend
    rejects while it accepts the original; {} when triton is not importable or the child fails."""
    if not fixes or not triton_importable():
        return {}
    payload = json.dumps([{"path": path, "original": original, "fixed": fixed} for path, original, fixed in fixes])
    try:
        done = subprocess.run([sys.executable, "-m", "tritonlint.verify.frontend"], input=payload,
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if done.returncode != 0:
        return {}
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
    except ValueError:
        return {}
    return {str(path): str(why) for path, why in found.items()} if isinstance(found, dict) else {}
