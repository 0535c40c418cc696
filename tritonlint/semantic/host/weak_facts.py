"""The facts of a weak evenness predicate that the witness launches from (`Diagnostic.facts`).

A TL103 finding sits in host code (a heuristics lambda, a launch argument): the witness needs the
kernel to launch, the size to choose, the tile it must leave partial, the predicate that must hold,
and an access the flag lets through unmasked, where the run goes out of bounds. The TL101/TL102
findings on such an access carry the same facts: their launch needs a size the predicate lets through.
"""

from __future__ import annotations

from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.host.flag_setters import WeakPredicate


def weak_facts(weak: WeakPredicate, context: KernelContext) -> tuple[tuple[str, str], ...]:
    """kernel, flag, walked, tile, predicate (kernel names), setter ("heuristics" or "launch"),
    access ("line:column" of the first unmasked access in this file), and for a launch, the host
    names passed as each parameter (`names`: "host=param,..."), to read the fix's predicate in the
    kernel's names. Empty where the predicate cannot be read in the kernel's names."""
    if not weak.kernel_text:
        return ()
    facts = [("kernel", context.function.name.value), ("flag", weak.flag), ("walked", weak.walked),
             ("tile", weak.tile), ("predicate", weak.kernel_text),
             ("setter", "launch" if weak.launch is not None else "heuristics")]
    for call in weak.calls:
        try:
            span = context.span_of(call)
        except KeyError:  # an access of a jit helper's tree: not placed in this kernel
            continue
        facts.append(("access", f"{span.line}:{span.column + 1}"))
        break
    if weak.launch is not None:
        names = [f"{value.strip()}={param}" for param, value in weak.launch.args.items() if value.strip().isidentifier()]
        facts.append(("names", ",".join(names)))
    return tuple(facts)
