"""Keep Triton's interpreter running under NumPy releases where a 1-element array no longer converts to int.

Triton 3.6's interpreter holds every scalar as a one-element array and gives `tl.tensor` an
`__index__` of `int(self.handle.data)`; NumPy turned that conversion of an array with ndim > 0
from a DeprecationWarning (1.25) into a TypeError ("only 0-dimensional arrays can be converted to
Python scalars"), so any `range(0, K, BLOCK_K)` over a runtime size fails there. Installed once
per process, before a kernel runs: `__index__` takes the array's single element instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_MARK = "_tritonlint_scalar_index"


def install() -> None:
    from triton.runtime import interpreter as interp

    patch = getattr(interp, "_patch_lang_tensor", None)
    if patch is None or getattr(patch, _MARK, False):
        return  # another triton: nothing to adapt, or done already

    def patched(tensor: Any, scope: Any) -> None:
        patch(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

    setattr(patched, _MARK, True)
    interp._patch_lang_tensor = patched
