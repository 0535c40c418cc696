"""Jit helpers imported from another module: the import that names a helper is found as a full walk
of the module finds it first (breadth first), though only statements are walked."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tritonlint.source.imports import imported_helper

HELPER = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def {name}(x):
        return x * {factor}
""")


def test_the_shallowest_import_of_a_name_wins(tmp_path: Path) -> None:
    (tmp_path / "deep.py").write_text(HELPER.format(name="scale", factor=2), encoding="utf-8")
    (tmp_path / "shallow.py").write_text(HELPER.format(name="scale", factor=3), encoding="utf-8")
    # The nested import comes first in the text; a breadth-first walk meets the top-level one first.
    text = textwrap.dedent("""\
        if FAST:
            try:
                from deep import scale
            except ImportError:
                pass
        from shallow import scale
    """)
    found = imported_helper("scale", text, str(tmp_path / "kernels.py"))
    assert found is not None
    assert found[1].name == "shallow.py"
    # Only nested ones: found inside `try` and `except` alike, the first in the text first.
    nested = text.replace("from shallow import scale\n", "")
    found = imported_helper("scale", nested, str(tmp_path / "kernels.py"))
    assert found is not None and found[1].name == "deep.py"
