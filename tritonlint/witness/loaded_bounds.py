"""Sizes a kernel reads from memory: a scalar loaded per program that ends the offsets it walks.

`k_end = tl.load(k_end_ptr + pid_b)`, then `for k in range(k_start, k_end, BLOCK_K)`; or
`seq_len = tl.load(seq_lens_ptr + seq_idx)`, then `for j in range(0, cdiv(seq_len, BLOCK))`:
the extent the finding's tile runs past is a value in a tensor, not a parameter. The synthesizer
makes it a pseudo size like any other (partial as `m * tile + r`) and fills the tensor with it.
"""

from __future__ import annotations

import ast

from tritonlint.witness.call_names import call_name
from tritonlint.witness.uses import Uses


def vector_locals(uses: Uses) -> set[str]:
    """Locals that hold a tile of offsets: defined from `tl.arange`, or from such a local."""
    out = {name for name, values in uses.defs.items()
           if any(isinstance(c, ast.Call) and call_name(c) == "arange" for v in values for c in ast.walk(v))}
    grew = True
    while grew:
        grew = False
        for name, values in uses.defs.items():
            if name not in out and any(Uses._names(v) & out for v in values):
                out.add(name)
                grew = True
    return out


def scalar_loads(uses: Uses) -> dict[str, str]:
    """Local -> the pointer parameter it is loaded from as one scalar per program (`n = tl.load(P + i)`,
    no tile of offsets in the address)."""
    vectors = vector_locals(uses)
    out: dict[str, str] = {}
    for name, values in uses.defs.items():
        for value in values:
            for call in ast.walk(value):
                if not (isinstance(call, ast.Call) and call_name(call) == "load" and call.args):
                    continue
                root = uses.root(call.args[0])
                if root is not None and root in uses.params and not Uses._names(call.args[0]) & vectors:
                    out.setdefault(name, root)
    return out


def loaded_bounds(uses: Uses) -> set[str]:
    """Pointer parameters whose loaded scalar ends a loop (`range(start, n, T)`, `range(cdiv(n, T))`):
    a size held in memory, that the loop's tiles walk. Only the end counts: the start (`k_start`) says
    nothing of where the walk stops. Not a scalar that only masks (`slots <= pos` beside `slots < n_out`):
    the synthesizer sizes a buffer by the first comparison over its offsets, and a pseudo size read
    there would size the other accesses' buffers too."""
    loaded = scalar_loads(uses)
    if not loaded:
        return set()
    out: set[str] = set()
    for it in uses.loops.values():
        if isinstance(it, ast.Call) and call_name(it) in ("range", "static_range") and it.args:
            end = it.args[1] if len(it.args) >= 2 else it.args[0]
            start = uses.reached(Uses._names(it.args[0]), depth=4) if len(it.args) >= 2 else set()
            out |= {loaded[n] for n in uses.reached(Uses._names(end), depth=4) - start if n in loaded}
    return out
