"""Paths to files to reports: discovery, excludes, reading, the cache, and the atomic writing of fixes.

The engine (and with it libcst) is imported only when a file has to be analysed.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tritonlint.cache import Cache, content_hash
from tritonlint.config import DEFAULT_EXCLUDES, Config
from tritonlint.diagnostics import Diagnostic
from tritonlint.gitignore import GitIgnore
from tritonlint.notebook import NotebookError, is_notebook, to_python, write_back
from tritonlint.report import FileReport
from tritonlint.suppressions import add_suppressions, may_hold_suppressions, unused_suppressions


@dataclass(frozen=True)
class SourceFile:
    display: str  # the path as the user wrote it, joined with what discovery found below it
    path: Path
    explicit: bool = False  # named on the command line (not found by walking a folder)
    data: bytes | None = None  # the bytes, when they came from stdin rather than the file
    problem: str | None = None  # why it cannot be read, found by discovery (a folder it could not list)


def force_excluded(path: Path, config: Config) -> bool:
    """`--force-exclude`: a file named explicitly is skipped like discovery would skip it."""
    parts = path.parts[:-1]
    # Walking, discovery also skips a folder an exclude pattern names (`gen`, `src/gen`): so a file inside it.
    return (any(part in DEFAULT_EXCLUDES or part.endswith(".egg-info") for part in parts)
            or _excluded(path, config) or any(_excluded(folder, config) for folder in path.parents[:-1]))


def discover(paths: Sequence[str], config: Config, *, force_exclude: bool = False) -> Iterator[SourceFile]:
    """Files to check: `.py` and `.ipynb` files under each path, skipping hidden/virtualenv/build folders and excludes.

    A file named explicitly is checked even if discovery would skip its folder, unless an
    exclude pattern matches it (pre-commit passes files one by one and excludes must hold), or,
    with `force_exclude`, unless discovery would skip its folder. A path that does not exist (or
    is a symlink loop) is still yielded: reading it fails, and that is reported for the file.
    """
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if is_folder(path):
            folders: dict[Path, Path] = {}  # resolved once per folder: `_walk` yields no symlinks
            for found in _walk(path, config):
                if isinstance(found, _Unlistable):
                    top = found.path == path
                    display = given if top else os.path.join(given, os.path.relpath(found.path, path))
                    yield SourceFile(display, found.path, explicit=top, problem=found.reason)
                    continue
                folder = folders.get(found.parent)
                if folder is None:
                    folder = folders[found.parent] = found.parent.resolve()
                key = folder / found.name
                if key not in seen:
                    seen.add(key)
                    yield SourceFile(os.path.join(given, os.path.relpath(found, path)), found)
        elif not (force_excluded(path, config) if force_exclude else _excluded(path, config)):
            try:
                key = path.resolve()
            except (OSError, RuntimeError):  # a symlink loop: reading it says so
                key = path.absolute()
            if key not in seen:
                seen.add(key)
                yield SourceFile(given, path, explicit=True)


def is_folder(path: Path) -> bool:
    """`path.is_dir()`, False where a folder above it cannot be searched (reading the path says why)."""
    try:
        return path.is_dir()
    except OSError:
        return False


@dataclass(frozen=True)
class _Unlistable:
    path: Path
    reason: str


def _walk(top: Path, config: Config) -> Iterator[Path | _Unlistable]:
    """The candidate files below `top`, and each folder that could not be listed (never skipped silently)."""
    failures: list[OSError] = []
    ignore = GitIgnore.for_path(top) if config.respect_gitignore else None
    absolute_top = top.resolve() if ignore is not None else top
    # followlinks=False: a symlink loop or a link out of the tree is never followed.
    for directory, subdirs, files in os.walk(top, onerror=failures.append, followlinks=False):
        yield from _unlistable(failures)
        base = Path(directory)
        # The walk follows no links, so the resolved top joined with the part below it is the real path.
        below = _parts_below(ignore, absolute_top / os.path.relpath(base, top)) if ignore is not None else None
        subdirs[:] = sorted(d for d in subdirs
                            if not d.startswith(".") and d not in DEFAULT_EXCLUDES and not d.endswith(".egg-info")
                            and not _excluded(base / d, config)
                            and not (ignore is not None and below is not None
                                     and ignore.ignored_parts((*below, d), is_dir=True)))
        for name in sorted(files):
            candidate = base / name
            if ((name.endswith(".py") or is_notebook(name)) and not candidate.is_symlink()
                    and not _excluded(candidate, config)
                    and not (ignore is not None and below is not None
                             and ignore.ignored_parts((*below, name), is_dir=False))):
                yield candidate
    yield from _unlistable(failures)


def _parts_below(ignore: GitIgnore, folder: Path) -> tuple[str, ...] | None:
    try:
        return folder.relative_to(ignore.root).parts
    except ValueError:  # not below the work tree's top: git has nothing to say about it
        return None


def _unlistable(failures: list[OSError]) -> Iterator[_Unlistable]:
    while failures:
        error = failures.pop(0)
        where = Path(error.filename) if error.filename else Path(".")
        yield _Unlistable(where, f"cannot read folder: {error.strerror or error}")


def _excluded(path: Path, config: Config) -> bool:
    return bool(config.exclusions) and matches(path, config.exclusions, config)


def matches(path: Path, patterns: Sequence[str], config: Config) -> bool:
    """Whether a glob pattern matches `path` as written, its name, or its path below the config's folder."""
    candidates = [path.as_posix(), path.name]
    if config.root is not None:
        try:
            candidates.append(path.resolve().relative_to(config.root.resolve()).as_posix())
        except (ValueError, OSError, RuntimeError):
            pass
    return any(fnmatch.fnmatch(candidate, pattern) or fnmatch.fnmatch(candidate, pattern.rstrip("/") + "/*")
               for pattern in patterns for candidate in candidates)


def read_bytes(file: SourceFile) -> tuple[bytes | None, str | None]:
    """(bytes, None) or (None, one-line error). Never raises for a bad file."""
    if file.data is not None:
        return file.data, None
    if file.problem is not None:
        return None, f"{file.display}: {file.problem}"
    try:
        return file.path.read_bytes(), None
    except FileNotFoundError:
        if file.path.is_symlink():
            return None, f"{file.display}: broken symbolic link"
        if file.explicit:
            return None, f"{file.display}: no such file or directory"
        return None, f"{file.display}: vanished before it could be read"
    except IsADirectoryError:
        return None, f"{file.display}: is a directory"
    except OSError as error:
        return None, f"{file.display}: cannot read: {error.strerror or error}"


def decode_source(file: SourceFile, data: bytes) -> tuple[str | None, str | None]:
    """(text, None) or (None, one-line error) for bytes read from `file`."""
    if not data.strip():
        return None, f"{file.display}: empty file, nothing to check"
    if b"\0" in data:
        return None, f"{file.display}: binary file (contains NUL bytes), not Python source"
    try:
        text = data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as error:
        return None, f"{file.display}: not UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
    if is_notebook(file.path.name):
        try:
            return to_python(data), None
        except NotebookError as error:
            return None, f"{file.display}: {error}"
    return text, None


def read_source(file: SourceFile) -> tuple[str | None, str | None]:
    """(text, None) or (None, one-line error). Never raises for a bad file."""
    data, error = read_bytes(file)
    if data is None:
        return None, error
    return decode_source(file, data)


def might_hold_kernels(data: bytes) -> bool:
    """The pre-filter, on the raw bytes: a file that never says `jit` and `triton` holds no kernel."""
    return b"jit" in data and b"triton" in data


def _bad_input(file: SourceFile, error: str) -> FileReport:
    # An empty file (an empty __init__.py) cannot hold a kernel: say so, but don't fail the run.
    if error.endswith("nothing to check"):
        return FileReport(file.display, notices=(error,) if file.explicit else ())
    return FileReport(file.display, errors=(error,), unchecked=True)


def first_look(file: SourceFile, *, unused: bool = False) -> tuple[bytes | None, FileReport | None]:
    """Read `file`: (bytes, None) when it needs analysing, else (None, its final report).

    Files that cannot hold a kernel (nor, with `unused`, a suppression) are settled here from
    their bytes: no decoding, no parsing, no libcst.
    """
    data, error = read_bytes(file)
    if data is None:
        assert error is not None
        return None, _bad_input(file, error)
    if not data.strip():
        return None, _bad_input(file, f"{file.display}: empty file, nothing to check")
    if not might_hold_kernels(data) and not (unused and may_hold_suppressions(data)):
        return None, FileReport(file.display)
    return data, None


def cached_report(file: SourceFile, data: bytes, cache: Cache, config: Config, *,
                  unused: bool = False) -> FileReport | None:
    """The cached report for these bytes, ready to print; None on a miss."""
    report = cache.load(cache_digest(file, data), file.display, file.path.parent.resolve())
    if report is None:
        return None
    # JSON/SARIF place fix edits with the text; TL100 reads it; a notebook's TL001 is placed by it.
    if report.diagnostics or unused or (report.unchecked and is_notebook(file.path.name)):
        text, _ = decode_source(file, data)
        report = replace(report, text=text)
    return with_unused(report, config) if unused else report


def analyse(item: tuple[SourceFile, bytes], config: Config, cache: Cache | None = None, *,
            unused: bool = False, strict: bool = False) -> FileReport:
    """Check one file's bytes (a cache miss): decode, run the rules, store the result."""
    from tritonlint.engine import check_source

    file, data = item
    text, error = decode_source(file, data)
    if error is not None:
        report = _bad_input(file, error)
    else:
        assert text is not None
        report = check_source(file.display, text, config, strict=strict, neighbours=neighbours_of(file))
    if cache is not None:
        cache.store(cache_digest(file, data), report, file.path.parent.resolve())
    return with_unused(report, config) if unused else report


# Modules beside a kernel's file larger than this are not read for launches (generated code).
_NEIGHBOUR_LIMIT = 1 << 20


def _folder_signature(folder: Path) -> str:
    """What the launches a file's kernels get from its neighbours depend on: their names, sizes and times."""
    try:
        entries = sorted((entry.name, entry.stat().st_size, entry.stat().st_mtime_ns) for entry in os.scandir(folder)
                         if entry.name.endswith(".py") and entry.is_file())
    except OSError:
        return ""
    return repr(entries)


def cache_digest(file: SourceFile, data: bytes) -> str:
    """The cache key of a file's report: its bytes and, where it may hold kernels, the modules beside
    it that name it (where its kernels may be launched), and the modules beside it that the file or
    those import from (where a launch's host predicates may be defined), by name and content.
    Identical files whose launching neighbours are identical share an entry."""
    if not might_hold_kernels(data):
        return content_hash(data)
    stem = file.path.stem
    try:
        modules = _folder_modules(file.path.parent.resolve(), _folder_signature(file.path.parent))
    except OSError:
        modules = ()
    others = {name: text for name, text in modules if name != file.path.name}
    chosen = {name for name, text in others.items() if stem in text}
    importers = [data.decode("utf-8", "replace")] + [others[name] for name in chosen]
    chosen |= {name for name in others if any(_imports_from(text, name[:-3]) for text in importers)}
    named = [(name, content_hash(others[name].encode())) for name in sorted(chosen)]
    return content_hash(data + repr(named).encode()) if named else content_hash(data)


def _imports_from(text: str, module: str) -> bool:
    """Whether `text` holds `from <...>module import ...` (a name it may read from that module)."""
    if _DOTTED_NAME.fullmatch(module) is None:  # (a stem no module path can spell: the general search)
        return module in text and re.search(rf"\bfrom\s+[\w.]*\b{re.escape(module)}\s+import\b", text) is not None
    return module in _imported_tails(text)


_DOTTED_NAME = re.compile(r"\w[\w.]*")
# Only `from` consumed, so that a `from` inside another match's module path is tried too; its word
# boundary is tested where it is found (a pattern that starts with `\b` is tried at every offset).
_FROM_IMPORT = re.compile(r"from(?=\s+([\w.]+)\s+import\b)")
_WORD = re.compile(r"\w")


@functools.lru_cache(maxsize=256)
def _imported_tails(text: str) -> frozenset[str]:
    r"""Each `from a.b.c import` of `text` as its tails (`a.b.c`, `b.c`, `c`): one pass over the text
    for every module asked about, where a search per module was most of a warm run (the same answers:
    the module path `[\w.]*\bmodule` ends with the module, starting where a word starts)."""
    tails: set[str] = set()
    for match in _FROM_IMPORT.finditer(text):
        if match.start() > 0 and _WORD.match(text, match.start() - 1) is not None:
            continue  # `xfrom`: no statement
        path = match.group(1)
        tails.add(path)
        tails.update(path[dot + 1:] for dot, char in enumerate(path) if char == ".")
    return frozenset(tails)


@functools.lru_cache(maxsize=8)
def _folder_modules(folder: Path, signature: str) -> tuple[tuple[str, str], ...]:
    """The `.py` files of a folder that could launch a kernel or call one of its jit helpers, (name, text);
    read once per state of the folder."""
    found = []
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if not entry.name.endswith(".py") or not entry.is_file() or entry.stat().st_size > _NEIGHBOUR_LIMIT:
            continue
        try:
            data = Path(entry.path).read_bytes()
        except OSError:
            continue
        if b"[" not in data and b"jit" not in data:
            continue  # neither a launch (`kernel[grid](...)`) nor a jit function calling an imported helper
        try:
            found.append((entry.name, data.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(found)


def neighbours_of(file: SourceFile) -> Callable[[], list[tuple[str, str]]]:
    """The other modules of the file's folder (its package), read only when asked (the file holds kernels),
    and once: a check asks up to four times (callers, launches, predicates), and each listing of the
    folder stats every file in it."""

    @functools.cache
    def read() -> list[tuple[str, str]]:
        folder = file.path.parent
        try:
            modules = _folder_modules(folder.resolve(), _folder_signature(folder))
        except OSError:
            modules = ()
        base = os.path.dirname(file.display)
        return [(os.path.join(base, name), text) for name, text in modules if name != file.path.name]

    return read


def with_unused(report: FileReport, config: Config) -> FileReport:
    """`report` plus a TL100 finding for each suppression comment of its text that hid nothing."""
    if report.text is None or report.errors:
        return report
    extra = unused_suppressions(report.path, report.text, report.suppressions_used, config.enabled)
    if not extra:
        return report
    return replace(report, diagnostics=tuple(sorted(report.diagnostics + tuple(extra), key=Diagnostic.sort_key)))


def check_file(file: SourceFile, config: Config, strict: bool = False, *, cache: Cache | None = None,
               unused: bool = False) -> FileReport:
    """Check one file, using and filling `cache` when given."""
    data, settled = first_look(file, unused=unused)
    if settled is not None:
        return settled
    assert data is not None
    if cache is not None:
        hit = cached_report(file, data, cache, config, unused=unused)
        if hit is not None:
            return hit
    return analyse((file, data), config, cache, unused=unused, strict=strict)


def fix_file(file: SourceFile, config: Config, *, unsafe: bool, write: bool, strict: bool = False,
             unused: bool = False) -> FileReport:
    """Fix one file; with `write`, replace it atomically, only if it did not change since it was read.

    With `unused`, unused suppressions (TL100) are removed too; the result is then re-checked so the
    offsets of what remains index the final text.
    """
    before, settled = first_look(file, unused=unused)
    if settled is not None:
        return settled
    assert before is not None
    text, error = decode_source(file, before)
    if error is not None:
        return _bad_input(file, error)
    assert text is not None
    from tritonlint.engine import apply_edits, check_source, fix_source

    report = fix_source(file.display, text, config, unsafe=unsafe, strict=strict, neighbours=neighbours_of(file))
    if unused and not report.errors and not report.crashes:
        # TL100's fixes are safe: they are always applied, so no TL100 finding remains.
        current = report.fixed_text if report.fixed_text is not None else text
        removals = [d.fix.edits[0] for d in unused_suppressions(file.display, current, report.suppressions_used)
                    if d.fix is not None]
        if removals:
            current = apply_edits(current, removals)
            report = replace(check_source(file.display, current, config, strict=strict,
                                          neighbours=neighbours_of(file)),
                             text=text, fixed_text=current if current != text else None)
    if write and report.fixed_text is not None:
        problem = write_atomic(file.path, report.fixed_text, before)
        if problem is not None:
            # Nothing was fixed: what is reported is the file as it is, every finding still in it.
            unfixed = check_source(file.display, text, config, strict=strict)
            unfixed = with_unused(unfixed, config) if unused else unfixed
            return replace(unfixed, errors=unfixed.errors + (f"{file.display}: {problem}",))
    return report


def write_checked(reports: Sequence[FileReport], files: Sequence[SourceFile], config: Config, *,
                  strict: bool = False, unused: bool = False) -> list[FileReport]:
    """Write the fixes of `reports` (made with `write=False`) after one frontend check of them all:
    a file whose fixed kernel Triton's frontend rejects keeps its text and its findings, with a
    notice saying why (`frontend_check.py`)."""
    from tritonlint.engine import check_source
    from tritonlint.frontend_check import frontend_rejections

    by_name = {file.display: file for file in files}
    fixed = [(r.path, r.text, r.fixed_text) for r in reports if r.fixed_text is not None and r.text is not None
             and r.path in by_name and not is_notebook(str(by_name[r.path].path))]
    rejected = frontend_rejections([(path, text, after) for path, text, after in fixed if text and after])
    written: list[FileReport] = []
    for report in reports:
        file = by_name.get(report.path)
        if report.fixed_text is None or report.text is None or file is None:
            written.append(report)
            continue
        if report.path in rejected:
            unfixed = check_source(file.display, report.text, config, strict=strict, neighbours=neighbours_of(file))
            unfixed = with_unused(unfixed, config) if unused else unfixed
            note = f"{file.display}: fix not written: {rejected[report.path]}"
            written.append(replace(unfixed, notices=unfixed.notices + (note,)))
            continue
        data, error = read_bytes(file)
        problem = error if data is None else (
            "changed on disk since it was read; fix not written" if decode_source(file, data)[0] != report.text
            else write_atomic(file.path, report.fixed_text, data))
        if problem is not None:
            unfixed = check_source(file.display, report.text, config, strict=strict)
            unfixed = with_unused(unfixed, config) if unused else unfixed
            written.append(replace(unfixed, errors=unfixed.errors + (f"{file.display}: {problem}",)))
            continue
        written.append(report)
    return written


def add_suppressions_file(report: FileReport, file: SourceFile,
                          line_length: int | None = None) -> tuple[int, str | None]:
    """Write a suppression for each finding of `report` into `file`; (how many, error or None).

    With `line_length`, comments are placed to keep lines within it where they can (see
    `add_suppressions`)."""
    if not report.diagnostics or report.text is None:
        return 0, None
    import ast

    data, error = read_bytes(file)
    if data is None:
        return 0, error
    if decode_source(file, data)[0] != report.text:
        return 0, f"{file.display}: changed on disk since it was read; suppressions not written"
    text, added = add_suppressions(report.text, report.diagnostics, line_length=line_length)
    try:
        ast.parse(text)
    except SyntaxError as problem:
        return 0, f"{file.display}: suppressions not written: the result would not parse ({problem.msg})"
    problem_ = write_atomic(file.path, text, data)
    if problem_ is not None:
        return 0, f"{file.display}: {problem_}"
    return added, None


def encode_source(path: Path, text: str, before: bytes) -> bytes:
    """The bytes to write for `text`, the file having held `before`: a notebook gets its cells
    back in its own JSON layout; a Python file keeps its BOM."""
    if is_notebook(path.name):
        return write_back(before, text)
    bom = b"\xef\xbb\xbf" if before.startswith(b"\xef\xbb\xbf") else b""
    return bom + text.encode("utf-8")


def write_atomic(path: Path, text: str, expected: bytes) -> str | None:
    """Write `text` over `path` (temp file + rename, permissions kept); None, or why not.

    Refuses when the file no longer holds `expected` (an editor saved it meanwhile); the
    original is untouched on every failure.
    """
    try:
        data = encode_source(path, text, expected)
    except NotebookError as error:
        return f"{error}; fix not written"
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
