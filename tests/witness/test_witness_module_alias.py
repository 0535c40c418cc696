"""A sibling module imported by name (`from pkg.utils import lang_ext as tle`) and read through
attributes (`tle.program_id(0)`): the generated module binds `tle` to a namespace of the attributes
cut out of that module.

Before: `tle` was reported unresolved and the kernel stopped at `NameError: name 'tle' is not defined`."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness

LANG_EXT = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def program_id(axis: int) -> tl.tensor:
        return tl.program_id(axis).to(tl.int64)


    @triton.jit
    def unused(x):
        return x
""")

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl

    from pkg.utils import lang_ext as tle


    @triton.jit
    def scale_rows(X, Y, N, BLOCK: tl.constexpr):
        pid = tle.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, x * 2.0, mask=offs < N)
""")


def _package(root: Path) -> Path:
    (root / "pkg" / "utils").mkdir(parents=True)
    (root / "pkg" / "ops").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "utils" / "__init__.py").write_text("from .other import something\n")
    (root / "pkg" / "utils" / "lang_ext.py").write_text(LANG_EXT)
    (root / "pkg" / "ops" / "__init__.py").write_text("")
    path = root / "pkg" / "ops" / "rows.py"
    path.write_text(KERNEL)
    return path


def test_the_alias_binds_the_attributes_read_through_it(tmp_path: Path) -> None:
    path = _package(tmp_path)
    extracted = extract(path, KERNEL, "scale_rows")
    assert "unresolved" not in extracted.source.splitlines()[0]
    assert "tle = _tritonlint_types.SimpleNamespace(program_id=_tle__program_id)" in extracted.source


def test_a_kernel_reading_an_aliased_module_runs(tmp_path: Path) -> None:
    path = _package(tmp_path)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == 11)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                analysis.fixed_text(checked.text, d), timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "X"


def test_a_module_imported_whole_under_an_alias_binds_it_too(tmp_path: Path) -> None:
    """`import lang_ext as tle`, the module beside the kernel's file (a script folder, no package)."""
    (tmp_path / "lang_ext.py").write_text(LANG_EXT)
    text = KERNEL.replace("from pkg.utils import lang_ext as tle", "import lang_ext as tle")
    (tmp_path / "rows.py").write_text(text)
    extracted = extract(tmp_path / "rows.py", text, "scale_rows")
    assert "unresolved" not in extracted.source.splitlines()[0]
    assert "tle = _tritonlint_types.SimpleNamespace(program_id=_tle__program_id)" in extracted.source
