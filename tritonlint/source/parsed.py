"""The stdlib `ast` of a file's text, parsed once for everyone who reads it.

The outline (kernels, imports), the module's numbers and the imported helpers each read the same
text's syntax tree; a check of one file used to parse it up to three times. The trees are only read
(nothing here or in the analysis writes to an `ast` node), so one tree serves them all.
"""

from __future__ import annotations

import ast
import functools


# The last few texts parsed and their trees: a check reads its file and the modules its helpers are
# imported from; the editor's incremental check reads the buffer, then the buffer with its
# unchanged kernels blanked out.
@functools.lru_cache(maxsize=4)
def parse_text(text: str) -> ast.Module:
    """`ast.parse(text)`, remembered for the last texts asked. Raises what `ast.parse` raises."""
    return ast.parse(text)
