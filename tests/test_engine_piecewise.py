"""A file of many kernels is checked one group of kernels at a time, each group freed after its
last kernel: the report is the one a check holding every kernel at once gives."""

from __future__ import annotations

import re
from pathlib import Path

from tritonlint.config import Config
from tritonlint.deferred_fixes import DeferredFixes
from tritonlint.engine import check_source
from tritonlint.source.groups import kernel_groups
from tritonlint.source.outline import outline

ROOT = Path(__file__).resolve().parents[1]


def many_kernels(copies: int) -> str:
    """Our fixture files, each jit function renamed per copy, concatenated `copies` times over."""
    texts = []
    for path in sorted(ROOT.glob("fixtures/*/*.py")):
        if path.name.endswith(("_harness.py", ".fixed.py")):
            continue
        text = path.read_text(encoding="utf-8")
        try:
            names = sorted({kernel.name for kernel in outline(text).kernels}, key=len, reverse=True)
        except SyntaxError:
            continue
        if names:
            texts.append((text, re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")))
    parts = []
    for copy in range(copies):
        for number, (text, pattern) in enumerate(texts):
            suffix = f"_c{copy}_{number}"
            part = pattern.sub(lambda m, suffix=suffix: m.group(1) + suffix, text)
            parts.append(re.sub(r"^from __future__ import .*$", "", part, flags=re.MULTILINE))
    return "\n".join(parts)


def test_a_group_at_a_time_is_the_whole_file_at_once() -> None:
    text = many_kernels(2)
    assert len(kernel_groups(outline(text).kernels)) > 100
    piecewise = check_source("many.py", text, Config())
    # The editor's mode holds every context until the end (its fixes are computed later from them).
    deferred = DeferredFixes()
    whole = check_source("many.py", text, Config(), deferred=deferred)
    completed = [deferred.complete(d) or d for d in whole.diagnostics]
    assert len(piecewise.diagnostics) > 200
    assert [(d, d.start_offset, d.end_offset) for d in piecewise.diagnostics] == \
        [(d, d.start_offset, d.end_offset) for d in completed]
    assert (piecewise.errors, piecewise.crashes, piecewise.suppressed) == (whole.errors, whole.crashes, whole.suppressed)
