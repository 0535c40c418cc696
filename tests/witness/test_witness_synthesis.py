"""The synthesizer on shapes it used to get wrong: look-alikes stay unconfirmed, ragged segments confirm."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

import pytest

from tritonlint.config import check_selectors, load_config
from tritonlint.diagnostics import Diagnostic
from tritonlint.witness import analysis
from tritonlint.witness.runner import witness

ROOT = Path(__file__).resolve().parents[2]


def _checked(path: Path) -> analysis.CheckedFile:
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    if files:
        return files[0]
    return analysis.CheckedFile(path, str(path), path.read_text(), (), {}, {})


# Accesses that are in bounds under every launch their kernel allows, each once confirmed by a
# launch that broke a precondition: a lower bound sizing a buffer (`offs >= lo`), `pid * D` read as
# the size's tiles, a constexpr row length (`slot * D`) read as unit stride, a term only one branch
# adds hiding the unit dimension, a tile offset sized by a sum it appears in.
LOOK_ALIKES = [
    ("fixtures/unmasked-tail-load/right_aligned_tail_window.py", 39),
    ("fixtures/unmasked-tail-load/right_aligned_tail_window.py", 48),
    ("fixtures/unmasked-tail-load/tile_fits_or_padded_head.py", 33),
    ("fixtures/unmasked-tail-load/tile_fits_or_padded_head.py", 38),
    ("fixtures/unmasked-tail-load/conditional_pointer_term.py", 29),
    ("fixtures/unmasked-tail-load/mask_spelled_elsewhere.py", 27),
]


@pytest.mark.parametrize(("fixture", "line"), LOOK_ALIKES)
def test_a_look_alike_is_not_confirmed(fixture: str, line: int) -> None:
    path = ROOT / fixture
    checked = _checked(path)
    call = next(n for n in ast.walk(ast.parse(checked.text)) if isinstance(n, ast.Call) and n.lineno == line
                and ast.unparse(n.func).split(".")[-1] in ("load", "store"))
    kind = ast.unparse(call.func).split(".")[-1]
    d = Diagnostic("TL101" if kind == "load" else "TL102", "look-alike", f"tl.{kind}", str(path), line,
                   call.col_offset + 1, call.end_lineno or line, 1)
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    assert w.status != "confirmed", w.reason


# Segments read from memory: the last segment's second tile reads W past its end.
VARLEN = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def varlen_mul(X, W, Y, cu_seqlens, BLOCK: tl.constexpr):
        b = tl.program_id(0)
        start = tl.load(cu_seqlens + b)
        end = tl.load(cu_seqlens + b + 1)
        offs = start + tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < end, other=0.0)
        w = tl.load(W + offs)
        tl.store(Y + offs, x * w, mask=offs < end)
""")


def test_ragged_segments_get_monotone_boundaries(tmp_path: Path) -> None:
    path = tmp_path / "varlen.py"
    path.write_text(VARLEN)
    checked = _checked(path)
    [d] = [d for d in checked.diagnostics if d.line == 12]
    w = witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags, None, timeout=120)
    assert w.status == "confirmed", w.reason
    assert w.evidence is not None and w.evidence["tensor"] == "W"
    segments = next(a for a in w.launch["args"] if a["name"] == "cu_seqlens") if w.launch else None
    assert segments is not None and segments["fill"] == "segments" and segments["value"] % 16 != 0
