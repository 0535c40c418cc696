"""Which violations of a run are the flagged access's: shared by the parent (judging the runs) and the
child (stopping a job once a candidate has shown the finding; the runs after it could not change the verdict)."""

from __future__ import annotations

from typing import Any


def hits(result: dict[str, Any], module: str, lines: set[int], target: tuple[str, str | None]) -> list[dict[str, Any]]:
    """The violations of the flagged access: its lines, its kind, the tensor its pointer is based on."""
    kind, tensor = target
    return [v for v in result.get("violations", ()) if v["path"] == module and v["line"] in lines
            and (kind == "any" or v["kind"] == kind) and (tensor is None or v["tensor"] == tensor)]


def facing(found: list[dict[str, Any]], direction: str | None) -> list[dict[str, Any]]:
    """The violations on one side of their tensor ("before" its start, "after" its end); all for None.
    A finding of offsets shifted before the start is shown by a read before it; the full-tile control
    makes that read too (on the first tile) and disproves the launch only by running past the end."""
    return found if direction is None else [v for v in found if v["direction"] == direction]


def across_end(cand_hits: list[dict[str, Any]], control_hits: list[dict[str, Any]], tile: int | None) -> bool:
    """Whether a control that overran too proves the partial tile all the same: at full tiles the access
    ran past the tensor by whole tiles only, and by one tile at most (every execution that overran had
    no lane inside it: a prefetch of the tile after the last), while the candidate ran a tile lying
    across the tensor's end, lanes inside and lanes past it in one execution: the partial tail tile the
    finding is about. A control further past than one tile (`tile`, the finding's, in elements) reads
    rows the launch did not lay out: a launch that does not match the kernel's indexing."""
    return bool(control_hits) and tile is not None and tile > 0 \
        and not any(h.get("straddles") for h in control_hits) \
        and all(int(h.get("max_elements") or 0) <= tile for h in control_hits) \
        and any(h.get("straddles") for h in cand_hits)


def shown(results: list[dict[str, Any]], stop: dict[str, Any]) -> bool:
    """Whether a step's runs settle the finding (`stop`, written by the parent for a candidate the callers
    allow): the candidate ran and went out of bounds at the flagged access, and its full-tile control ran
    and stayed in bounds there. The parent takes the first such step, so the steps after it need not run."""
    cand, control = results[stop["cand"]], results[stop["control"]]
    lines, target = set(stop["lines"]), (stop["kind"], stop["tensor"])
    if stop.get("before_start"):
        return cand["status"] == "ok" and control["status"] == "ok" and \
            bool(facing(hits(cand, stop["module"], lines, target), "before")) and \
            not facing(hits(control, stop["module"], lines, target), "after")
    # A tile across the end beside a control that overran too (across_end) does not stop the job: a later
    # candidate whose control stays in bounds is cleaner evidence.
    return cand["status"] == "ok" and control["status"] == "ok" and bool(hits(cand, stop["module"], lines, target)) \
        and not hits(control, stop["module"], lines, target)
