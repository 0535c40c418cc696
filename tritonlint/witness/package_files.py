"""The analysed package's own Python files, as the witness's host readings look them up (never imported)."""

from __future__ import annotations

import ast
import functools
import warnings
from pathlib import Path


@functools.lru_cache(maxsize=64)
def parsed_file(path: str) -> ast.Module | None:
    """The syntax tree of the file at `path`; None when it cannot be read or parsed. Cached: the readings
    of one run ask for the same few modules again and again."""
    try:
        with warnings.catch_warnings():  # a package's odd escapes are its business, not the run's output
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None


def package_root(path: Path) -> Path:
    """The top-level package folder holding `path` (its own folder when that is no package)."""
    folder = path.resolve().parent
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder
