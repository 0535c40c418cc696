"""Paths to files to reports: discovery, excludes, reading, and the atomic writing of fixes."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tritonlint.config import DEFAULT_EXCLUDES, Config
from tritonlint.engine import FileReport, check_source, fix_source


class UsageError(Exception):
    """Bad command-line input (a missing path): exit code 2."""


@dataclass(frozen=True)
class SourceFile:
    display: str  # the path as the user wrote it, joined with what discovery found below it
    path: Path
    explicit: bool = False  # named on the command line (not found by walking a folder)


def discover(paths: Sequence[str], config: Config) -> Iterator[SourceFile]:
    """Files to check: `.py` files under each path, skipping hidden/virtualenv/build folders and excludes.

    A file named explicitly is checked even if discovery would skip its folder, unless an
    exclude pattern matches it (pre-commit passes files one by one and excludes must hold).
    """
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{given}: no such file or directory")
        if path.is_dir():
            for found in _walk(path, config):
                key = found.resolve()
                if key not in seen:
                    seen.add(key)
                    yield SourceFile(os.path.join(given, os.path.relpath(found, path)), found)
        elif not _excluded(path, config):
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                yield SourceFile(given, path, explicit=True)


def _walk(top: Path, config: Config) -> Iterator[Path]:
    # followlinks=False: a symlink loop or a link out of the tree is never followed.
    for directory, subdirs, files in os.walk(top, followlinks=False):
        base = Path(directory)
        subdirs[:] = sorted(d for d in subdirs
                            if not d.startswith(".") and d not in DEFAULT_EXCLUDES and not d.endswith(".egg-info")
                            and not _excluded(base / d, config))
        for name in sorted(files):
            candidate = base / name
            if name.endswith(".py") and not candidate.is_symlink() and not _excluded(candidate, config):
                yield candidate


def _excluded(path: Path, config: Config) -> bool:
    if not config.exclude:
        return False
    candidates = [path.as_posix(), path.name]
    if config.root is not None:
        try:
            candidates.append(path.resolve().relative_to(config.root.resolve()).as_posix())
        except ValueError:
            pass
    return any(fnmatch.fnmatch(candidate, pattern) or fnmatch.fnmatch(candidate, pattern.rstrip("/") + "/*")
               for pattern in config.exclude for candidate in candidates)


def read_source(file: SourceFile) -> tuple[str | None, str | None]:
    """(text, None) or (None, one-line error). Never raises for a bad file."""
    try:
        data = file.path.read_bytes()
    except FileNotFoundError:
        return None, f"{file.display}: vanished before it could be read"
    except IsADirectoryError:
        return None, f"{file.display}: is a directory"
    except OSError as error:
        return None, f"{file.display}: cannot read: {error.strerror or error}"
    if not data.strip():
        return None, f"{file.display}: empty file, nothing to check"
    if b"\0" in data:
        return None, f"{file.display}: binary file (contains NUL bytes), not Python source"
    try:
        text = data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as error:
        return None, f"{file.display}: not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
    return text, None


def check_file(file: SourceFile, config: Config, strict: bool = False) -> FileReport:
    text, error = read_source(file)
    if error is not None:
        # An empty file (an empty __init__.py) cannot hold a kernel: say so, but don't fail the run.
        if error.endswith("nothing to check"):
            return FileReport(file.display, notices=(error,) if file.explicit else ())
        return FileReport(file.display, errors=(error,))
    assert text is not None
    return check_source(file.display, text, config, strict=strict)


def fix_file(file: SourceFile, config: Config, *, unsafe: bool, write: bool, strict: bool = False) -> FileReport:
    """Fix one file; with `write`, replace it atomically, only if it did not change since it was read."""
    try:
        before = file.path.read_bytes()
    except OSError:
        before = None
    text, error = read_source(file)
    if error is not None:
        return check_file(file, config, strict)
    assert text is not None and before is not None
    report = fix_source(file.display, text, config, unsafe=unsafe, strict=strict)
    if write and report.fixed_text is not None:
        problem = write_atomic(file.path, report.fixed_text, before)
        if problem is not None:
            return replace(report, fixed_text=None, errors=report.errors + (f"{file.display}: {problem}",))
    return report


def write_atomic(path: Path, text: str, expected: bytes) -> str | None:
    """Write `text` over `path` (temp file + rename, permissions kept); None, or why not.

    Refuses when the file no longer holds `expected` (an editor saved it meanwhile); the
    original is untouched on every failure.
    """
    bom = b"\xef\xbb\xbf" if expected.startswith(b"\xef\xbb\xbf") else b""
    data = bom + text.encode("utf-8")
    try:
        if path.read_bytes() != expected:
            return "changed on disk since it was read; fix not written"
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as error:
        return f"cannot re-read before writing: {error.strerror or error}"
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return "read-only file; fix not written"
    target = path.resolve()
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tritonlint", dir=target.parent)
    except OSError as error:
        return f"could not write the fix ({error.strerror or error}); file left as it was"
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return f"could not write the fix ({error.strerror or error}); file left as it was"
    return None
