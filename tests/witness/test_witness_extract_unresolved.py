"""A module-level value the generated module cannot compute still binds its name, so a kernel default
that reads it does not stop the kernel's `def` (the launch passes every constexpr itself)."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

from tritonlint.witness.extract import extract

SOURCE = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from some_platform_package import current_platform

    info = current_platform.finfo()


    @triton.jit
    def clamp(X, n, HI: tl.constexpr = info.max, BLOCK: tl.constexpr = 16):
        i = tl.arange(0, BLOCK)
        tl.store(X + i, tl.minimum(tl.load(X + i, mask=i < n), HI), mask=i < n)
""")


def test_a_default_reading_an_uncomputable_global_loads(tmp_path: Path) -> None:
    path = tmp_path / "clamp.py"
    path.write_text(SOURCE)
    extracted = extract(path, SOURCE, "clamp")
    generated = tmp_path / "generated_clamp.py"
    generated.write_text(extracted.source)
    spec = importlib.util.spec_from_file_location("generated_clamp", generated)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # as the witness's child loads it; raised NameError before
    assert hasattr(module, "clamp") and hasattr(module, "info")
