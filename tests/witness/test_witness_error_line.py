"""An interpreter error is placed at the kernel's line: Triton's launcher re-raises the kernel's error
(`raise InterpreterError(...) from e`), so the kernel's frames are on the cause, not on the error."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tritonlint.witness.child import error_summary


def test_the_kernels_line_is_read_from_the_cause(tmp_path: Path) -> None:
    module = tmp_path / "witness_module.py"
    module.write_text("def kernel():\n    x = 1\n    raise AssertionError('')\n\n\ndef launch():\n    try:\n"
                      "        kernel()\n    except AssertionError as e:\n        raise RuntimeError(repr(e)) from e\n")
    spec = importlib.util.spec_from_file_location("witness_module", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    try:
        loaded.launch()
    except RuntimeError as error:
        text = error_summary(error)
    assert "(at line 3 of the generated module)" in text, text
