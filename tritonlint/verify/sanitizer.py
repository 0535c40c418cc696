"""compute-sanitizer memcheck: finding it, reading its report, and naming the tensor each access ran past."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

from tritonlint.verify.trees import find_line


def find_compute_sanitizer() -> str | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and os.path.exists(os.path.join(base, "bin", "compute-sanitizer")):
            return os.path.join(base, "bin", "compute-sanitizer")
    return None


_SAN_ERROR = re.compile(r"Invalid __(?:global|shared|local)__ (read|write|atomic) of size (\d+)")
_SAN_AT = re.compile(r"^\s*at (\S+?)(?:\+(0x[0-9a-fA-F]+))?(?: in (\S+?):(\d+))?\s*$")
_SAN_ADDR = re.compile(r"(?:Access to|Address) (0x[0-9a-fA-F]+) is out of bounds")
_SAN_NEAR = re.compile(r"is ([\d,]+) bytes (after|before) the nearest allocation at (0x[0-9a-fA-F]+) "
                       r"of size ([\d,]+) bytes")


def parse_sanitizer(text: str) -> tuple[int | None, list[dict[str, Any]]]:
    """(error count, sites) from compute-sanitizer memcheck output.

    A site is one access (kind, compiled kernel, file:line when the kernel carries line info)
    and one allocation it ran past: {kind, size, kernel, pc, path, line, allocation, allocation_size,
    direction, max_bytes, count}. `max_bytes`: how far past the end (or before the start) the
    furthest access reached, in bytes (1: the first byte outside).
    """
    count = None
    m = re.search(r"ERROR SUMMARY: (\d+) error", text)
    if m:
        count = int(m.group(1))
    sites: dict[tuple[Any, ...], dict[str, Any]] = {}
    cur: dict[str, Any] | None = None

    def flush() -> None:
        if cur is None:
            return
        key = (cur["kind"], cur["kernel"], cur["path"], cur["line"], cur["allocation"], cur["direction"])
        site = sites.setdefault(key, {**cur, "count": 0, "max_bytes": 0, "min_bytes": None})
        site["count"] += 1
        site["max_bytes"] = max(site["max_bytes"], cur.get("bytes") or 0)
        site["min_bytes"] = min(site["min_bytes"] or cur.get("bytes") or 0, cur.get("bytes") or 0)
        site.pop("bytes", None)

    for raw in text.splitlines():
        line = raw.lstrip("= ").rstrip() if raw.startswith("=") else raw.strip()
        e = _SAN_ERROR.search(line)
        if e:
            flush()
            cur = {"kind": {"read": "load", "write": "store"}.get(e.group(1), "atomic"),
                   "size": int(e.group(2)), "kernel": None, "pc": None, "path": None, "line": None,
                   "allocation": None, "allocation_size": None, "direction": None, "bytes": None}
            continue
        if cur is None:
            continue
        at = _SAN_AT.match(line)
        if at and cur["kernel"] is None:
            cur["kernel"], cur["pc"] = at.group(1), at.group(2)
            if at.group(3):
                cur["path"], cur["line"] = at.group(3), int(at.group(4))
            continue
        near = _SAN_NEAR.search(line)
        if near:
            # "is 1 bytes after" is the first byte past the end; the access covers `size` bytes.
            dist = int(near.group(1).replace(",", ""))
            cur["bytes"] = dist + cur["size"] - 1 if near.group(2) == "after" else dist
            cur["direction"] = near.group(2)
            cur["allocation"] = near.group(3).lower()
            cur["allocation_size"] = int(near.group(4).replace(",", ""))
    flush()
    return count, list(sites.values())


def merge_overreads(sites: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fold an access's "before the next allocation" site into its "after" one.

    memcheck names the allocation nearest to each bad address, so the far end of an overread
    past one tensor can be reported as "before" the tensor allocated after it. An access site
    (kind, kernel, line) running past the end of one allocation and before the start of one
    above it is that one overread: its extent is measured from the end of the first.
    """
    def access(s: dict[str, Any]) -> tuple[Any, ...]:
        return (s["kind"], s["kernel"], s["path"], s["line"])

    after = {access(s): s for s in sites if s["direction"] == "after" and s.get("allocation")}
    out = []
    for s in sites:
        a = after.get(access(s))
        if s["direction"] == "before" and a is not None and s.get("allocation") and (
                int(s["allocation"], 16) > int(a["allocation"], 16)):
            end = int(a["allocation"], 16) + (a["allocation_size"] or 0)
            far = int(s["allocation"], 16) - (s["min_bytes"] or 0) + s["size"]
            a["max_bytes"] = max(a["max_bytes"] or 0, far - end)
            a["count"] += s["count"]
            continue
        out.append(s)
    return out



def memcheck_command(tool: str, padding: int) -> list[str]:
    """The compute-sanitizer prefix of a memcheck run.

    `--padding` puts a guard region of that many bytes after every CUDA allocation: without it
    small allocations lie next to each other, and an overread of one tensor that lands inside the
    next is a valid access that memcheck cannot report.
    """
    cmd = [tool, "--tool", "memcheck", "--print-limit", "1000"]
    if padding > 0:
        cmd += ["--padding", str(padding)]
    return cmd


def relative_to(tree: Path, p: str) -> str:
    """`p` relative to the tree when it lies inside it, else as given."""
    try:
        return str(Path(p).resolve().relative_to(tree.resolve()))
    except (ValueError, OSError):
        return p


def sanitizer_site(tree: Path, s: dict[str, Any], tensors: list[dict[str, Any]],
                   launches: list[dict[str, Any]]) -> dict[str, Any]:
    """A memcheck site as a violation: the kernel parameter whose tensor the access ran past."""
    alloc = int(s["allocation"], 16) if s.get("allocation") else None
    size = s.get("allocation_size")
    # The tensor whose storage is that allocation (exact allocations: the same base); a
    # parameter of the kernel that made the access when several kernels shared it.
    # Wrappers Triton takes as pointers (no storage known): the allocation holding the pointer.
    owners = [t for t in tensors if alloc is not None and (
        int(t["storage"], 16) == alloc or alloc <= int(t.get("ptr", t["storage"]), 16) < alloc + (size or 1))]
    compiled = s.get("kernel") or ""
    own = [t for t in owners if t.get("compiled") and compiled.startswith(t["compiled"])] or owners
    launch = next((x for x in launches if x.get("compiled") and compiled.startswith(x["compiled"])), None)
    if launch is None and own:
        launch = {"kernel": own[0]["kernel"], "path": own[0]["path"]}
    gen = (launch or {}).get("generated")
    line = s.get("line")
    path = relative_to(tree, s["path"]) if s.get("path") else None
    if gen and launch and path and Path(path).name == Path(launch["path"]).name:
        # The line counts in the generated source: find that text in the file it came from.
        path, line = None, None
        src = gen["src"].splitlines()
        i = (s.get("line") or 0) - gen["start"]
        if gen.get("file") and 0 <= i < len(src):
            path = gen["file"]
            line = find_line(Path(gen["file"]), src, i)
    kernel_path = (gen.get("file") if gen else None) or (launch["path"] if launch else None)
    kernel_path = relative_to(tree, kernel_path) if kernel_path else None
    path = relative_to(tree, path) if path else (kernel_path if gen else None)
    if path and not (tree / path).is_file() and kernel_path and Path(kernel_path).name == Path(path).name:
        path = kernel_path  # memcheck printed the file's base name only
    elem = own[0]["dtype"] if own else None
    return {"kind": s["kind"], "path": path, "line": line,
            "tensor": "/".join(sorted({t["param"] for t in own})) if own else "?",
            "kernel": launch["kernel"] if launch else compiled or "?",
            "kernel_path": kernel_path, "compiled_kernel": compiled,
            "direction": s.get("direction") or "?", "max_elements": None,
            "max_bytes": s.get("max_bytes"), "count": s.get("count"), "access_size": s.get("size"),
            "allocation_size": size, "element_type": elem, "source": "compute-sanitizer"}
