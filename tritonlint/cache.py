"""The results cache: one JSON entry per file content, under a key of everything else that matters.

An entry is found by the SHA-256 of the file's bytes, in a folder named by the tritonlint version
and a hash of the configuration that changes results (select, ignore, even-flags), the Python and
libcst versions, and the bytes of the analysis source itself (the engine, the kernel model and the
rules), so editing any of them starts a fresh folder. Entries hold no path: identical files share
one. Writes are atomic (temp file + rename); an entry that cannot be read or parsed is a miss.
Nothing here imports libcst.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from tritonlint import __version__
from tritonlint.config import Config
from tritonlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from tritonlint.report import FileReport
from tritonlint.rule import CHECKOUT_RULES

CACHE_DIR_NAME = ".tritonlint_cache"
# Like ruff's RUFF_CACHE_DIR: one place for every run's cache (CI, the test suite), over the default.
CACHE_DIR_ENV = "TRITONLINT_CACHE_DIR"
ENTRY_FORMAT = 2  # 2: an entry may list the helper modules it read, checked on load
_PACKAGE = Path(__file__).resolve().parent
# Parts of the package that never change what a check finds: output, the verifier, the CLI.
_NOT_ANALYSIS = {"verify", "output", "cli.py", "cache.py", "__main__.py"}


def default_cache_dir(config: Config) -> Path:
    """$TRITONLINT_CACHE_DIR if set, else `.tritonlint_cache` beside the configuration's pyproject.toml,
    else in the cwd."""
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV])
    return (config.root if config.root is not None else Path.cwd()) / CACHE_DIR_NAME


def analysis_sources() -> list[Path]:
    """The source files whose behaviour the cached results depend on."""
    files = [path for path in sorted(_PACKAGE.rglob("*.py"))
             if path.relative_to(_PACKAGE).parts[0] not in _NOT_ANALYSIS]
    spec = importlib.util.find_spec("tritonlint.rules")  # imports tritonlint only, not the rules
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if spec is None and CHECKOUT_RULES.is_dir():  # run from a source checkout
        locations = [str(CHECKOUT_RULES)]
    for location in locations:
        files.extend(sorted(Path(location).resolve().rglob("*.py")))
    return files


def settings_key(config: Config) -> str:
    digest = hashlib.sha256()
    settings = {
        "format": ENTRY_FORMAT,
        "version": __version__,
        "python": list(sys.version_info[:2]),
        "libcst": _libcst_version(),
        "select": sorted(config.select) if config.select is not None else None,
        "ignore": sorted(config.ignore),
        "even_flags": sorted(config.even_flags),
        "masked_lanes": config.masked_lanes,  # TL105 reads a load without `other=` by it
        "line_length": config.line_length,  # a long fix names its mask on the line above
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for path in analysis_sources():
        digest.update(b"\0" + path.name.encode() + b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _libcst_version() -> str:
    # The dist-info folder's name, found without importing libcst or importlib.metadata.
    spec = importlib.util.find_spec("libcst")
    if spec is None or spec.origin is None:
        return "none"
    site = Path(spec.origin).resolve().parent.parent
    return ",".join(sorted(p.name for p in site.glob("libcst-*.dist-info"))) or "unknown"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_hash(path: Path) -> str | None:
    try:
        return content_hash(path.read_bytes())
    except OSError:
        return None


class Cache:
    """Look-ups and atomic stores under `root/<version>/<settings key>/`. Picklable (workers store)."""

    def __init__(self, root: Path, key: str) -> None:
        self.root = root
        self.folder = root / __version__ / key[:24]

    @classmethod
    def for_config(cls, root: Path, config: Config) -> Cache:
        return cls(root, settings_key(config))

    def _entry(self, digest: str) -> Path:
        return self.folder / f"{digest}.json"

    def load(self, digest: str, path: str, base: Path | None = None) -> FileReport | None:
        """The cached report for content `digest`, shown as `path`; None on a miss or a bad entry.
        `base` is the file's folder: an entry that read helper modules is used only while each of
        them, found from there, still holds the bytes it was read with."""
        try:
            raw = self._entry(digest).read_bytes()
        except OSError:
            return None
        try:
            entry = json.loads(raw)
            for relative, digest_then in entry.get("depends", ()):
                if base is None or _file_hash(base / relative) != digest_then:
                    return None  # a helper module changed (or this copy of the file imports another)
            return _decode(entry, path)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None  # corrupt or from another format: recomputed and overwritten

    def store(self, digest: str, report: FileReport, base: Path | None = None) -> None:
        """Save `report` (never one with crashes); failures to write are silent, the run goes on.
        A report that read helper modules (`report.depends`) is stored with their hashes, by their
        place relative to the file's folder `base`, so that identical files elsewhere, importing
        their own helpers, check theirs."""
        if report.crashes or report.fixed_text is not None:
            return
        entry = _encode(report)
        if entry is None:
            return
        if report.depends:
            if base is None:
                return
            depends = []
            for dependency in report.depends:
                digest_now = _file_hash(Path(dependency))
                if digest_now is None:
                    return
                depends.append([os.path.relpath(Path(dependency).resolve(), base), digest_now])
            entry["depends"] = depends
        try:
            self._prepare()
            fd, temporary = tempfile.mkstemp(prefix=f".{digest[:16]}.", suffix=".tmp", dir=self.folder)
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, separators=(",", ":"))
            os.replace(temporary, self._entry(digest))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _prepare(self) -> None:
        if self.folder.is_dir():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        # Like ruff's cache: ignored by git, and marked as a cache for backup tools.
        for name, content in ((".gitignore", "# Automatically created by tritonlint.\n*\n"),
                              ("CACHEDIR.TAG", ("Signature: 8a477f597d28d172789f06886806bc55\n"
                                                "# This file is a cache directory tag created by tritonlint.\n"))):
            target = self.root / name
            if not target.exists():
                with contextlib.suppress(OSError):
                    target.write_text(content, encoding="utf-8")


def _encode(report: FileReport) -> dict[str, Any] | None:
    errors = []
    for error in report.errors:
        if not error.startswith(report.path):
            return None  # cannot be re-labelled for another path: don't cache it
        errors.append(error[len(report.path):])
    return {
        "diagnostics": [_encode_diagnostic(d) for d in report.diagnostics],
        "errors": errors,
        "suppressed": report.suppressed,
        "used": [list(pair) for pair in report.suppressions_used],
    }


def _encode_diagnostic(d: Diagnostic) -> list[Any]:
    fix = None
    if d.fix is not None:
        fix = [d.fix.title, d.fix.applicability.value, [[e.start, e.end, e.content] for e in d.fix.edits]]
    return [d.code, d.name, d.message, d.line, d.column, d.end_line, d.end_column, list(d.notes), fix,
            d.start_offset, d.end_offset, [list(pair) for pair in d.facts]]


def _decode(entry: dict[str, Any], path: str) -> FileReport:
    diagnostics = []
    for item in entry["diagnostics"]:
        code, name, message, line, column, end_line, end_column, notes, fix, start, end, facts = item
        decoded_fix = None
        if fix is not None:
            title, applicability, edits = fix
            decoded_fix = Fix(str(title), Applicability(applicability),
                              tuple(Edit(int(s), int(e), str(c)) for s, e, c in edits))
        diagnostics.append(Diagnostic(
            code=str(code), name=str(name), message=str(message), path=path, line=int(line), column=int(column),
            end_line=int(end_line), end_column=int(end_column), notes=tuple(str(n) for n in notes),
            fix=decoded_fix, start_offset=int(start), end_offset=int(end),
            facts=tuple((str(k), str(v)) for k, v in facts)))
    return FileReport(
        path, tuple(diagnostics), errors=tuple(path + str(suffix) for suffix in entry["errors"]),
        suppressed=int(entry["suppressed"]),
        suppressions_used=tuple((int(line), str(code)) for line, code in entry["used"]),
        unchecked=bool(entry["errors"]),  # only a file that could not be checked is stored with errors
    )
