"""compile_check reads an atomic's mask: `tt.atomic_rmw add, relaxed, gpu, %ptr, %val, %mask` leads with
keywords, which once ended the operand list at once, so every atomic read as unmasked and a fix that
masks one was refused ("tail access(es) the fix touched still unmasked in TTIR")."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

pytest.importorskip("triton")

from tritonlint.verify.compile_check import compile_ttir, parse_accesses  # noqa: E402

HISTOGRAM = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def histogram(hist_ptr, n_bins, BIN_TILE: tl.constexpr):
        for b0 in range(0, n_bins, BIN_TILE):
            bins = b0 + tl.arange(0, BIN_TILE)
            tl.atomic_add(hist_ptr + bins, tl.full([BIN_TILE], 1, tl.int32), sem="relaxed"{mask})
''')


def _atomics(tmp_path, monkeypatch, mask: str) -> list[bool]:
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    path = tmp_path / f"histogram{len(mask)}.py"
    path.write_text(HISTOGRAM.format(mask=mask))
    spec = importlib.util.spec_from_file_location(f"histogram_{len(mask)}_{id(tmp_path)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    ttir = compile_ttir(module.histogram, {"hist_ptr": "*i32", "n_bins": "i32"}, {"BIN_TILE": 16})
    return [a.masked for a in parse_accesses(ttir) if a.kind == "atomic"]


def test_a_masked_atomic_reads_as_masked(tmp_path, monkeypatch) -> None:
    assert _atomics(tmp_path, monkeypatch, ", mask=bins < n_bins") == [True]


def test_an_unmasked_atomic_reads_as_unmasked(tmp_path, monkeypatch) -> None:
    assert _atomics(tmp_path, monkeypatch, "") == [False]
