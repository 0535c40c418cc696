"""Configuration: one frozen Config read from `[tool.tritonlint]` of the nearest pyproject.toml."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KNOWN_KEYS = {"select", "ignore", "exclude", "extend-exclude", "even-flags"}
DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "build", "dist",
                    "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tritonlint_cache",
                    "site-packages", ".eggs")


_FAMILY = "TL1"  # the prefix all rule codes share


class ConfigError(Exception):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    select: frozenset[str] | None = None  # None: every rule
    ignore: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()  # glob patterns, relative to `root`
    even_flags: frozenset[str] = frozenset()
    root: Path | None = None  # folder holding the pyproject.toml the config came from
    source: Path | None = field(default=None, compare=False)

    def enabled(self, code: str, default: bool = True) -> bool:
        """Whether the rule `code` runs. A rule off by default (`default=False`: the guarded findings
        TL111/TL112) runs only when selected by `ALL`, by its code or by a prefix of it longer than
        its family's (`TL11`): `select = ["TL1"]` keeps meaning the default rules of TL1."""
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        if self.select is None:
            return default
        if "ALL" in self.select:
            return True
        return any(code.startswith(prefix) and (default or len(prefix) > len(_FAMILY)) for prefix in self.select)


def find_pyproject(start: Path) -> Path | None:
    directory = start.resolve()
    if directory.is_file():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            return pyproject
    return None


def load_config(pyproject: Path | None) -> Config:
    """Read `[tool.tritonlint]`; unknown keys and wrong types are errors, not silently ignored."""
    if pyproject is None:
        return Config()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read configuration: {error}") from None
    table = data.get("tool", {}).get("tritonlint")
    if table is None:
        return Config(root=pyproject.parent, source=pyproject)
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown key(s) in [tool.tritonlint]: {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    for key, value in table.items():
        if not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
            raise ConfigError(f"{pyproject}: [tool.tritonlint] {key} must be a list of strings")
    select = table.get("select")
    return Config(
        select=frozenset(select) if select is not None else None,
        ignore=frozenset(table.get("ignore", ())),
        exclude=tuple(table.get("exclude", ())) + tuple(table.get("extend-exclude", ())),
        even_flags=frozenset(table.get("even-flags", ())),
        root=pyproject.parent,
        source=pyproject,
    )
