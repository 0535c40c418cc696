"""Configuration: one frozen Config read from `[tool.tritonlint]` of the nearest pyproject.toml."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LIST_KEYS = {"select", "extend-select", "ignore", "exclude", "extend-exclude", "even-flags"}
KNOWN_KEYS = LIST_KEYS | {"per-file-ignores", "unsafe-fixes", "line-length", "respect-gitignore", "masked-lanes"}
# What a lane a load's mask switches off holds when the load has no `other=` (docs/rules/masked-lanes.md):
# "zero", what every Triton backend and the interpreter fill; "undefined", the language's contract.
MASKED_LANES = ("zero", "undefined")
DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "build", "dist",
                    "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tritonlint_cache",
                    "site-packages", ".eggs")
# Every code tritonlint reports. Kept here (not read from the rules) so that validating a selector
# imports no rule; a test checks it against the rules. TL001 is not selectable: a file that could not
# be checked always fails the run.
KNOWN_CODES = ("TL100", "TL101", "TL102", "TL103", "TL104", "TL105", "TL111", "TL112")
UNCHECKED_CODE = "TL001"


_FAMILY = "TL1"  # the prefix all rule codes share
_ALL = "TL"  # what `ALL` selects: the prefix of every code


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
    extend_exclude: tuple[str, ...] = ()
    # (glob pattern, codes): findings of those codes in files the pattern matches are not reported.
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    unsafe_fixes: bool = False
    # [tool.tritonlint] line-length, else the formatter's ([tool.ruff], else [tool.black]), else unset
    # (fixes then wrap at fixing.edits.DEFAULT_LINE_LENGTH; --add-suppressions has no limit).
    line_length: int | None = None
    respect_gitignore: bool = True  # skip what .gitignore files and .git/info/exclude ignore (ruff's default)
    masked_lanes: str = "zero"  # one of MASKED_LANES

    def enabled(self, code: str, default: bool = True) -> bool:
        """Whether the rule `code` runs. A rule off by default (`default=False`: the guarded findings
        TL111/TL112) runs only when selected by `ALL`, by its code or by a prefix of it longer than
        its family's (`TL11`): `select = ["TL1"]` keeps meaning the default rules of TL1."""
        if any(code.startswith(prefix) for prefix in self.ignore):
            return False
        if self.select is None:
            return default
        # `ALL` (or `TL`): every rule, the ones off by default included. `check_selectors` turns
        # `ALL` into `TL`; a Config built in code may still say `ALL`.
        if _ALL in self.select or "ALL" in self.select:
            return True
        return any(code.startswith(prefix) and (default or len(prefix) > len(_FAMILY)) for prefix in self.select)

    @property
    def exclusions(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude


def check_selectors(codes: list[str], where: str) -> frozenset[str]:
    """The selectors as prefixes (`ALL` becomes every code); a selector matching no code is an error."""
    prefixes = set()
    for code in codes:
        if code == "ALL":
            prefixes.add(_ALL)
        elif code.startswith(UNCHECKED_CODE[:4]) and UNCHECKED_CODE.startswith(code):
            raise ConfigError(f"{where}: {code} cannot be selected or ignored: a file that could not be "
                              f"checked always fails the run (exclude the file instead)")
        elif not any(known.startswith(code) for known in KNOWN_CODES):
            raise ConfigError(f"{where}: unknown rule selector {code!r} "
                              f"(known: ALL, {', '.join(KNOWN_CODES)}, or a prefix of them)")
        else:
            prefixes.add(code)
    return frozenset(prefixes)


def find_pyproject(start: Path) -> Path | None:
    try:
        directory = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop: look from the folder it lies in
        directory = start.absolute().parent
    try:
        if directory.is_file():
            directory = directory.parent
    except OSError:  # a folder above it cannot be searched
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        try:
            if pyproject.is_file():
                return pyproject
        except OSError:  # a folder that cannot be searched holds no configuration we can read
            continue
    return None


def load_config(pyproject: Path | None) -> Config:
    """Read `[tool.tritonlint]`; unknown keys, codes and wrong types are errors, not silently ignored."""
    if pyproject is None:
        return Config()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read configuration: {error}") from None
    tools = data.get("tool", {})
    formatter_length = formatter_line_length(tools)
    table = tools.get("tritonlint")
    if table is None:
        return Config(root=pyproject.parent, source=pyproject, line_length=formatter_length)
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown key(s) in [tool.tritonlint]: {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    for key, value in table.items():
        if key in LIST_KEYS and not _strings(value):
            raise ConfigError(f"{pyproject}: [tool.tritonlint] {key} must be a list of strings")
    for key in ("unsafe-fixes", "respect-gitignore"):
        if not isinstance(table.get(key, False), bool):
            raise ConfigError(f"{pyproject}: [tool.tritonlint] {key} must be true or false")
    length = table.get("line-length", formatter_length)
    if length is not None and (not isinstance(length, int) or isinstance(length, bool) or length < 1):
        raise ConfigError(f"{pyproject}: [tool.tritonlint] line-length must be a positive integer")
    masked = table.get("masked-lanes", "zero")
    if masked not in MASKED_LANES:
        raise ConfigError(f"{pyproject}: [tool.tritonlint] masked-lanes must be \"zero\" or \"undefined\"")
    where = f"{pyproject}: [tool.tritonlint]"
    select = table.get("select")
    selected = check_selectors([c.upper() for c in select], f"{where} select") if select is not None else None
    extend = table.get("extend-select")
    if extend:
        selected = (selected if selected is not None else frozenset({"TL"})) | check_selectors(
            [c.upper() for c in extend], f"{where} extend-select")
    return Config(
        select=selected,
        ignore=check_selectors([c.upper() for c in table.get("ignore", ())], f"{where} ignore"),
        exclude=tuple(table.get("exclude", ())),
        extend_exclude=tuple(table.get("extend-exclude", ())),
        even_flags=frozenset(table.get("even-flags", ())),
        root=pyproject.parent,
        source=pyproject,
        per_file_ignores=_per_file_ignores(table.get("per-file-ignores", {}), f"{where} per-file-ignores"),
        unsafe_fixes=table.get("unsafe-fixes", False),
        line_length=length,
        respect_gitignore=table.get("respect-gitignore", True),
        masked_lanes=masked,
    )


def formatter_line_length(tools: Any) -> int | None:
    """The line length the project's formatter keeps: ruff's, else black's (the file the fix lands
    in is formatted to it). A key that is not a positive integer is the formatter's to report."""
    for formatter in ("ruff", "black"):
        section = tools.get(formatter) if isinstance(tools, dict) else None
        length = section.get("line-length") if isinstance(section, dict) else None
        if isinstance(length, int) and not isinstance(length, bool) and length > 0:
            return length
    return None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _per_file_ignores(table: Any, where: str) -> tuple[tuple[str, frozenset[str]], ...]:
    if not isinstance(table, dict) or not all(_strings(codes) for codes in table.values()):
        raise ConfigError(f"{where} must be a table of glob pattern = list of codes")
    return tuple((pattern, check_selectors([c.upper() for c in codes], f"{where} {pattern!r}"))
                 for pattern, codes in table.items())
