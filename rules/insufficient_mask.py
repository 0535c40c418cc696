"""TL104: a masked tl.load or tl.store whose mask misses an axis the pointer walks past the end."""

from __future__ import annotations

from collections.abc import Iterator

from tritonlint.rule import Rule
from tritonlint.triton.model import KernelModel, TailHazard
from tritonlint.triton.fixes import CallFix
from tritonlint.triton.sufficiency import MaskSufficiency, describe, sufficiency_fix


class InsufficientMask(Rule):
    """
    ## What it does
    Flags a masked access whose mask does not bound an axis ... (draft)

    ## Why is this bad?
    x

    ## Example
    ```python
    import triton
    ```

    ## Use instead
    ```python
    import triton
    ```

    ## Fix safety
    x

    ## Known problems
    x
    """

    code = "TL104"
    name = "insufficient-mask"
    summary = "the mask of a tl.load or tl.store does not bound an axis its pointer walks"
    fixable = True

    def check(self, kernel: KernelModel) -> Iterator[TailHazard]:
        checker = MaskSufficiency(kernel)
        yield from checker.hazards("load")
        yield from checker.hazards("store")

    def fix(self, kernel: KernelModel, hazard: TailHazard) -> CallFix:
        return sufficiency_fix(kernel, hazard)

    def message(self, kernel: KernelModel, hazard: TailHazard) -> str:
        return describe(kernel, hazard)
