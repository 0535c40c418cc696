"""Two host facts that mark a confirmation latent, read against the shape the run used (the launch
model's `Launch.admitted` and `Launch.unknown_multiples`):

* **A literal table of admitted sizes** (`if (k, n) not in SUPPORTED: raise`): the run's size is not
  in it, and every size it holds is a whole number of the run's tiles (else an admitted size would go
  out of bounds too, and the table proves nothing).
* **A multiple of an unknown** (`assert b.size(0) % get_alignment() == 0`, the divisor from a compiled
  extension): the run's rows (or size) are no multiple of the tile, which the callers exclude exactly
  when the divisor is a multiple of the tile. The mark says so as a condition; no value is invented.
"""

from __future__ import annotations

from typing import Any

from tritonlint.witness.synth import Facts, Launch


def _tile(facts: Facts, values: dict[str, Any]) -> tuple[str, int] | None:
    """The finding's tile and its value in this launch."""
    tile = facts.tile
    if tile is None:
        return None
    value = int(tile) if tile.isdigit() else values.get(tile)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return None
    return tile, value


def admitted_latent(facts: Facts, launch: Launch, values: dict[str, Any]) -> str:
    """Why the run's size is one the host's table never admits, if it is."""
    admitted = getattr(facts.launch, "admitted", {})
    held = launch.sizes.get(launch.axis or "")
    tile = _tile(facts, values)
    if launch.axis not in admitted or not isinstance(held, int) or tile is None:
        return ""
    table, where = admitted[launch.axis]
    name, value = tile
    if held in table or any(size % value for size in table):
        return ""
    shown = ", ".join(map(str, table))
    return f"the callers admit only {launch.axis} in ({shown}), each a multiple of {name} ({value} here) ({where})"


def unknown_divisor_latent(facts: Facts, launch: Launch, values: dict[str, Any], tensor: str | None) -> str:
    """The condition under which the run's rows are ones the host's test of an unknown divisor excludes."""
    tile = _tile(facts, values)
    if tile is None:
        return ""
    name, value = tile
    for (param, divisor), where in sorted(getattr(facts.launch, "unknown_multiples", {}).items()):
        held: int | None
        if param in launch.rows:
            if param != tensor:
                continue  # a fact on another tensor's rows says nothing of this overrun
            held, what = launch.rows[param], f"the rows of `{param}`"
            shape = f"`{param}` has {held} rows"
        elif param == launch.axis:
            held, what = launch.sizes.get(param), param
            shape = f"{param}={held}"
        else:
            continue
        if isinstance(held, int) and held % value:
            return (f"if `{divisor}` is a multiple of {name} ({value} in this run, where {shape}): "
                    f"the callers keep {what} a multiple of `{divisor}` ({where})")
    return ""
