"""A kernel that calls a helper imported from a module the tree does not hold cannot be launched as written:
the witness says which helper and from where (`cannot-synthesize`), where before the run stopped at a
NameError reported as the kernel failing under the interpreter (`error`)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.witness.witness_line import witness_line

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from vendored_codecs.fp4 import decode_nibbles


    @triton.jit
    def dequant_rows(Q, Out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        vals = decode_nibbles(tl.load(Q + offs))
        tl.store(Out + offs, vals, mask=offs < n)
""")


def test_a_helper_from_a_module_not_shipped_is_named(tmp_path: Path) -> None:
    path = tmp_path / "dequant_rows.py"
    path.write_text(KERNEL)
    w = witness_line(path, 9, "TL101")
    assert w.status == "cannot-synthesize", (w.status, w.reason)  # `error` before: NameError at run time
    assert "`decode_nibbles`, imported from `vendored_codecs.fp4`" in w.reason, w.reason
