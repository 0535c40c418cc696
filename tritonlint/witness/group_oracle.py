"""Parent side of the wrong-data oracle for a tile wider than its group (TL104's group shape).

Such a finding is never out of bounds: a launch passes `BLOCK=next_power_of_2(G)`, the pointer steps
by `G`, and the lanes past the group read and write the next group's elements inside the allocation.
So the witness runs the launch twice, the original and the same launch with the access's padding lanes
switched off (`padding_patch.switch_off_padding`), and confirms when the outputs differ; a store's
padding lanes that write another program's elements with other values (a race on a GPU) confirm too.
The group size must not be a power of two, else no lane pads the tile: the candidate launch is
rebuilt with `G = BLOCK // 2 + 1`, whose `next_power_of_2` is the block the launch already passes,
as the host's `BLOCK=next_power_of_2(G)` says it must be.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from tritonlint.witness.synth import Launch

SMALLEST_BLOCK = 4  # a block of 2 has no group size between its half and itself
ROOM = 8  # how many times larger the tensors of the sizing run are than the synthesizer's


def group_launch(cand: Launch, block: str, group: str) -> Launch | str:
    """The candidate with the group size `G` set so that the tile of `block` lanes pads it; or why not."""
    args = {a.name: a for a in cand.args}
    b, g = args.get(block), args.get(group)
    if b is None or not isinstance(b.value, int) or isinstance(b.value, bool):
        return f"the block `{block}` has no integer value in the launch"
    if g is None or g.kind not in ("int", "constexpr"):
        return f"the group size `{group}` is no scalar argument of the kernel"
    if b.value < SMALLEST_BLOCK:
        return f"the block `{block}` is {b.value}: no group size pads it"
    value = b.value // 2 + 1  # not a power of two, and next_power_of_2(value) == b.value
    out = copy.deepcopy(cand)
    for arg in out.args:
        if arg.name == group:
            arg.value = value
    out.sizes = {**out.sizes, group: value}
    out.label = f"{cand.label}, {group}={value}"
    return out


def roomy(launch: Launch) -> Launch:
    """The launch with every tensor ROOM times as large as the largest: the sizing run reads how far each
    is reached (a tensor the synthesizer sized by a layout it could not read, `X + tl.where(m, offs, -1)`,
    is as roomy as the others)."""
    out = copy.deepcopy(launch)
    largest = max((arg.numel for arg in out.args if arg.kind == "tensor"), default=1)
    for arg in out.args:
        if arg.kind == "tensor":
            arg.numel = max(1, largest) * ROOM
    return out


def fitted(launch: Launch, reach: dict[str, int] | None) -> Launch:
    """The launch with each tensor holding exactly the elements the groups' own lanes reached (a
    tensor nothing reached keeps its size)."""
    out = copy.deepcopy(launch)
    for arg in out.args:
        if arg.kind == "tensor" and reach and arg.name in reach:
            arg.numel = reach[arg.name] + 1
    return out


def tile_axis(source: str, walk: str | None) -> tuple[int | None, int | None]:
    """(axis, rank) of the walked offsets in a broadcast the kernel writes (`offs[:, None]` is axis 0
    of 2); (None, None) where the kernel writes none (the child then takes the axis as long as the tile)."""
    name = re.match(r"[A-Za-z_]\w*", walk or "")
    if name is None:
        return (None, None)
    for m in re.finditer(rf"\b{name.group(0)}\s*\[([^\]]*)\]", source):
        parts = [p.strip() for p in m.group(1).split(",")]
        if parts.count(":") == 1 and all(p in (":", "None") for p in parts):
            return (parts.index(":"), len(parts))
    return (None, None)


def padding_evidence(original: dict[str, Any], padless: dict[str, Any], diffs: dict[str, Any],
                     launch: Launch, group: str) -> dict[str, Any] | None:
    """What the two runs show: the outputs that change with the padding lanes off, or a store race."""
    g = launch.sizes.get(group)
    seen = padless.get("padding") or {}
    rank = max(1, len(launch.grid))
    seen_programs = [list(p)[:rank] for p in seen.get("programs", [])]
    programs = ", ".join(str(tuple(p)) for p in seen_programs[:2])
    races = original.get("conflicts") or {}
    if diffs:
        name, d = max(diffs.items(), key=lambda item: item[1].get("elements", 0))
        summary = (f"the lanes past the group of {group}={g} change the output: {d['elements']} element(s) of "
                   f"`{name}` differ (max |diff| {d['max_abs']:.4g}) from the run with those "
                   f"{seen.get('lanes', 0)} lane(s) switched off, program(s) {programs or '?'}; {launch.brief()}")
        return {"kind": "padding", "tensor": name, "elements": d["elements"], "max_abs": d["max_abs"],
                "lanes": seen.get("lanes", 0), "programs": seen_programs, "group": g,
                "grid": launch.grid, "shape": launch.sizes, "summary": summary}
    if races:
        name, r = max(races.items(), key=lambda item: item[1]["elements"])
        r = {**r, "programs": [list(p)[:rank] for p in r["programs"]]}
        summary = (f"the lanes past the group of {group}={g} write {r['elements']} element(s) of `{name}` that "
                   f"another program writes with another value (max |diff| {r['max_abs']:.4g}, element "
                   f"{r['element']} by programs {', '.join(str(tuple(p)) for p in r['programs'])}): a store "
                   f"race on a GPU; {launch.brief()}")
        return {"kind": "race", "tensor": name, "elements": r["elements"], "max_abs": r["max_abs"],
                "programs": r["programs"], "group": g, "grid": launch.grid, "shape": launch.sizes,
                "summary": summary}
    return None
