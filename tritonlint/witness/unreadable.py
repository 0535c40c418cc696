"""A run stopped by a name the generated module could not bind: a helper imported from a module that is not
in the tree the witness reads (not shipped, or a copy of a package under another folder name).

The witness runs only code it can read, so such a kernel cannot be launched as written: that is a launch
it cannot build (`cannot-synthesize`, naming the helper and its module), not a kernel that fails under the
interpreter (`error`). `extract` lists what it left unbound on the generated module's first line."""

from __future__ import annotations

import re

_NAME_ERROR = re.compile(r"NameError\([\"']name '(\w+)' is not defined[\"']\)")
UNRESOLVED = "# unresolved: "


def unreadable(reason: str, source: str) -> str | None:
    """Why the run stopped, where it stopped at a name `extract` could not bind; None otherwise."""
    m = _NAME_ERROR.search(reason)
    first = source.split("\n", 1)[0]
    if m is None or not first.startswith(UNRESOLVED):
        return None
    name = m.group(1)
    for entry in re.findall(r"`[^`]+` from `[^`]+`|module `[^`]+`", first[len(UNRESOLVED):]):
        imported = re.fullmatch(r"`(\w+)` from `([^`]+)`", entry)
        if imported and imported.group(1) == name:
            return (f"the kernel calls `{name}`, imported from `{imported.group(2)}`, which is in no file the "
                    "witness can read (a module not shipped beside the kernel): a launch needs its source")
        module = re.fullmatch(r"module `([\w.]+)`", entry)
        if module and module.group(1).split(".")[0] == name:
            return (f"the kernel reads module `{module.group(1)}`, which is in no file the witness can read (not "
                    "shipped beside the kernel): a launch needs its source")
    return None
