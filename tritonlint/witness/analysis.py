"""The one door from the witness into the static analysis: findings, fixes, launch sites, evenness flags.

Everything the witness needs from the checker passes through here, so that moving the analysis
modules rewires this file alone. Only public data leaves it: Diagnostics, fixed texts, launches.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tritonlint.config import Config
from tritonlint.diagnostics import Diagnostic

__all__ = ["CheckedFile", "Config", "check_paths", "edits_of", "fixed_text", "fixing_config", "in_kernel_names",
           "module_numbers", "own_nodes", "padded_group", "render", "write_fixed"]


@dataclass(frozen=True)
class CheckedFile:
    """One checked file: its path on disk, its display path, its text and its findings."""

    path: Path
    display: str
    text: str
    diagnostics: tuple[Diagnostic, ...]
    launches: dict[str, list[Any]]  # kernel name -> launch sites (tritonlint's Launch records)
    flags: dict[str, dict[str, bool]]  # kernel name -> evenness flag -> the value promising full tiles
    source: Any = None  # tritonlint's SourceFile it was read from (None when built by hand)
    # kernel name -> evenness flag -> the tiles (block sizes) of the dimensions it vouches for
    flag_tiles: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)


def check_paths(paths: Sequence[str], config: Config) -> tuple[list[CheckedFile], list[str]]:
    """Check every file under `paths` (no cache); also return the errors of files not checked."""
    from tritonlint.engine import evenness_flag_tiles, evenness_flags, find_file_launches
    from tritonlint.runner import check_file, discover, neighbours_of
    from tritonlint.source.outline import outline

    out: list[CheckedFile] = []
    errors: list[str] = []
    for file in discover(list(paths), config):
        report = check_file(file, config)
        errors.extend(report.errors)
        errors.extend(report.crashes)
        if not report.diagnostics or report.text is None:
            continue
        text = report.text
        launches: dict[str, list[Any]] = {}
        flags: dict[str, dict[str, bool]] = {}
        tiles: dict[str, dict[str, frozenset[str]]] = {}
        try:
            launches = find_file_launches(str(file.path), text, outline(text), neighbours_of(file))
            flags = evenness_flags(text, config)
            tiles = evenness_flag_tiles(text, config)
        except Exception as error:  # noqa: BLE001 - launches only add facts; the findings stand
            errors.append(f"{file.display}: reading launch sites failed: {error!r}")
        out.append(CheckedFile(file.path, file.display, text, report.diagnostics, launches, flags, file, tiles))
    return out, errors


def fixing_config(path: Path, root: Path) -> Config:
    """The configuration `verify`'s fixer runs under for `path`: the nearest pyproject.toml inside the
    copied import root `root` (the copy holds no other), unsafe fixes on (`check --fix
    --unsafe-fixes`), so that the findings witnessed are the ones it fixes."""
    from dataclasses import replace

    from tritonlint.config import find_pyproject, load_config

    pyproject = find_pyproject(path if path.is_dir() else path.parent)
    if pyproject is not None and not pyproject.resolve().is_relative_to(root.resolve()):
        pyproject = None
    return replace(load_config(pyproject), unsafe_fixes=True)


def fixed_text(text: str, diagnostic: Diagnostic) -> str | None:
    """The file's text with this one finding's fix applied (None when it has none)."""
    from tritonlint.engine import apply_edits

    if diagnostic.fix is None or not diagnostic.fix.edits:
        return None
    return apply_edits(text, diagnostic.fix.edits)


def render(fmt: str, diagnostics: Sequence[Diagnostic], sources: dict[str, str], *, summary: bool = True) -> str:
    """check's own rendering of these diagnostics."""
    from tritonlint.output import render as render_output

    return render_output(fmt, diagnostics, sources, summary=summary)


def edits_of(diagnostic: Diagnostic) -> tuple[Any, ...] | str | None:
    """The edits of this finding's fix; "display-only" for a fix never applied; None without a fix."""
    from tritonlint.diagnostics import Applicability

    if diagnostic.fix is None or not diagnostic.fix.edits:
        return None
    if diagnostic.fix.applicability == Applicability.DISPLAY_ONLY:
        return "display-only"
    return diagnostic.fix.edits


def write_fixed(file: CheckedFile, fixed: str) -> str | None:
    """Write `fixed` over the file with `check --fix`'s atomic writer; None, or why it was not written.

    Refused when the file on disk no longer holds the text that was checked."""
    from tritonlint.runner import SourceFile, decode_source, read_bytes, write_atomic

    source = file.source if isinstance(file.source, SourceFile) else SourceFile(file.display, file.path)
    data, error = read_bytes(source)
    if data is None:
        return error or "cannot be read"
    if decode_source(source, data)[0] != file.text:
        return "changed on disk since it was read; fixes not written"
    return write_atomic(file.path, fixed, data)


def in_kernel_names(text: str, names: dict[str, str]) -> str:
    """A host predicate with each host name read as the kernel parameter it is passed as (`names`: host name
    -> parameter), as the TL103 rule reads a launch's; "" where a name it tests is passed as no parameter."""
    from tritonlint.semantic.host.flag_setters import in_kernel_names as read

    return read(text, {param: host for host, param in names.items()})


def own_nodes(function: ast.AST) -> list[ast.AST]:
    """A host function's nodes short of nested functions, lambdas and classes, as the launch model reads a scope."""
    from tritonlint.semantic.host.host_guards import own_nodes as read

    return read(function)


def module_numbers(text: str) -> dict[str, int | float]:
    """The numbers a module binds at its top level (`BLOCK = 128`), as the checker reads them."""
    from tritonlint.source.numbers import module_numbers as read

    return read(text)


def before_start(diagnostic: Diagnostic) -> bool:
    """A TL104 finding of offsets shifted below the tensor's start (`cu + offs - 1` under `offs < n`): its
    evidence is a read before the start, which the first tile makes at full tiles as well."""
    return diagnostic.code == "TL104" and "before_start" in dict(diagnostic.facts)


def padded_group(diagnostic: Diagnostic) -> tuple[str, str] | None:
    """(block-size parameter, group-size parameter) of a TL104 finding of a tile wider than its group
    (`BLOCK=next_power_of_2(G)`, the pointer stepping by `G`), as the rule names them (`Diagnostic.facts`);
    None for every other finding."""
    if diagnostic.code != "TL104":
        return None
    import re

    named = dict(diagnostic.facts)
    tile, group = named.get("tile", ""), named.get("group", "")
    # Parameter names (or literals) only: the oracle launches with them as sizes.
    return (tile, group) if re.fullmatch(r"\w+", tile) and re.fullmatch(r"\w+", group) else None
