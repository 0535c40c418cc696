"""`.gitignore` files and `.git/info/exclude`, read like git (and ruff) read them, in pure Python."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    negated: bool  # `!pattern`: re-includes what an earlier pattern ignored
    directory_only: bool  # `pattern/`: matches folders only
    basename: bool  # no slash but a trailing one: matches the name at any depth


def parse(text: str) -> list[Pattern]:
    """The patterns of one ignore file, in order (later ones win)."""
    patterns = []
    for raw in text.splitlines():
        line = _strip_trailing_spaces(raw)
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith(("\\!", "\\#")):  # `\!`, `\#`: a name that starts with it
            line = line[1:]
        directory_only = line.endswith("/") and not line.endswith("\\/")
        line = line.rstrip("/") if directory_only else line
        if not line:
            continue
        # A slash at the start or in the middle anchors the pattern to the ignore file's folder.
        basename = "/" not in line
        line = line.lstrip("/")
        try:
            regex = re.compile(_translate(line))
        except re.error:  # git skips a pattern it cannot read; so does this
            continue
        patterns.append(Pattern(regex, negated, directory_only, basename))
    return patterns


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash (`foo\\ `)."""
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped[:-1] + " "
    return stripped


def _translate(pattern: str) -> str:
    """A regex matching a path (slash-separated, relative to the ignore file's folder) in full."""
    segments = pattern.split("/")
    parts = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            # `**/x`: x at any depth; `a/**/b`: zero or more folders between; `a/**`: all inside a.
            parts.append(".*" if last else "(?:[^/]*/)*")
        else:
            parts.append(_segment(segment) + ("" if last else "/"))
    return "".join(parts) + r"\Z"


def _segment(segment: str) -> str:
    out = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "\\" and i + 1 < len(segment):
            out.append(re.escape(segment[i + 1]))
            i += 2
            continue
        if char == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":  # `a**b` is `a*b`
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1:i + 2] in ("!", "^", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = segment[i + 1:end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def git_root(start: Path) -> Path | None:
    """The work tree holding `start`: the nearest folder with a `.git` (a folder, or a file in a worktree)."""
    for folder in (start, *start.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except OSError:  # a folder that cannot be searched: look further up
            continue
    return None


def _info_exclude(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git / "info" / "exclude"
    try:  # a worktree or submodule: `.git` is a file `gitdir: PATH`; info/ lives in the common folder
        text = dot_git.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    gitdir = (root / text[len("gitdir:"):].strip()).resolve()
    try:
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        common = gitdir
    return common / "info" / "exclude"


class GitIgnore:
    """What the ignore files of one git work tree say about the paths below it.

    Precedence is git's: `.git/info/exclude` first, then each folder's `.gitignore` from the top
    down; the last pattern that matches decides. Outside a git work tree nothing is ignored (ruff
    does the same). Ignore files that cannot be read are treated as empty.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        exclude = _info_exclude(root)
        self._exclude = _read(exclude) if exclude is not None else []
        self._files: dict[Path, list[Pattern]] = {}
        self._chains: dict[tuple[str, ...], list[list[Pattern]]] = {}

    @classmethod
    def for_path(cls, path: Path) -> GitIgnore | None:
        try:
            absolute = path.resolve()
            root = git_root(absolute if absolute.is_dir() else absolute.parent)
        except (OSError, RuntimeError):
            return None
        return cls(root) if root is not None else None

    def _patterns(self, folder: Path) -> list[Pattern]:
        found = self._files.get(folder)
        if found is None:
            found = self._files[folder] = _read(folder / ".gitignore")
        return found

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether git would ignore `path` (absolute, below the root), judged by itself.

        Its folders are not judged here: a walk never enters an ignored folder, which is how git
        keeps a file in an ignored folder ignored even when a later pattern re-includes it.
        """
        try:
            parts = path.relative_to(self.root).parts
        except ValueError:
            return False
        return self.ignored_parts(parts, is_dir)

    def ignored_parts(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        """`ignored` for the path given as its parts below the root (a walk has them without any Path)."""
        if not parts or parts[0] == ".git":
            return False
        verdict = _decide(self._exclude, parts, is_dir, None)
        for depth, patterns in enumerate(self._chain(parts[:-1])):
            if patterns:
                verdict = _decide(patterns, parts[depth:], is_dir, verdict)
        return bool(verdict)

    def _chain(self, folder: tuple[str, ...]) -> list[list[Pattern]]:
        """The patterns of each folder from the root down to `folder`, read once per folder."""
        chain = self._chains.get(folder)
        if chain is None:
            above = self._chain(folder[:-1]) if folder else []
            chain = self._chains[folder] = [*above, self._patterns(self.root.joinpath(*folder))]
        return chain


def _decide(patterns: list[Pattern], parts: tuple[str, ...], is_dir: bool, verdict: bool | None) -> bool | None:
    if not patterns:
        return verdict
    relative = "/".join(parts)
    for pattern in patterns:
        if pattern.directory_only and not is_dir:
            continue
        if pattern.regex.match(parts[-1] if pattern.basename else relative):
            verdict = not pattern.negated
    return verdict


def _read(path: Path) -> list[Pattern]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse(handle.read())
    except OSError:
        return []

