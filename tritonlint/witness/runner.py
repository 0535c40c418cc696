"""Witness one finding: extract its kernel, synthesize launches, run them in a child, judge the run and the fix."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import json
import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tritonlint.witness import analysis
from tritonlint.witness.caller_padding import caller_padded, literal_overrun, padded_latent
from tritonlint.witness.derived_ends import annotated_constexprs, derived_end, host_constexpr_values
from tritonlint.witness.extract import ExtractError, enclosing_kernel, extract
from tritonlint.witness.fix_retry import OUT_OF_TIME, settle_failed_fix
from tritonlint.witness.group_oracle import fitted, group_launch, padding_evidence, roomy, tile_axis
from tritonlint.witness.hits import across_end, facing
from tritonlint.witness.hits import hits as _hits
from tritonlint.witness.host_extents import host_locals
from tritonlint.witness.latent_tables import admitted_latent, unknown_divisor_latent
from tritonlint.witness.left_defaults import left_at_default
from tritonlint.witness.other_axes import with_other_axes
from tritonlint.witness.padded_rows import in_padding, padded_rows
from tritonlint.witness.pinned import reaching_first
from tritonlint.witness.reduction_lanes import reduction_line
from tritonlint.witness.spin_wait import spin_wait
from tritonlint.witness.synth import (
    Facts,
    Launch,
    SynthesisError,
    facts_from,
    launch_literal,
    synthesize,
)
from tritonlint.witness.tile_defaults import caller_tile_values, launcher_tile_defaults
from tritonlint.witness.undefined_lanes import LATENT, adversary, loads_without_other
from tritonlint.witness.unreadable import unreadable
from tritonlint.witness.uses import is_constexpr, params_of
from tritonlint.witness.weak_predicates import at_access, describe, fix_readable, for_fix

MAX_PAIRS = 3  # candidate launches tried per finding (each with its full-tile control)
BIG_TILE = 64  # the tile of the second attempt, for kernels that derive smaller tiles from theirs


@dataclass
class Witness:
    """What running the finding showed."""

    status: str  # "confirmed", "not-reproduced", "cannot-synthesize", "error"
    reason: str
    launch: dict[str, Any] | None = None
    evidence: dict[str, Any] | None = None
    validation: dict[str, str] | None = None  # the fix's: {"status", "reason"}
    seconds: float = 0.0
    # For --emit-repro: the generated module's source and the original line it was judged at.
    module_source: str = ""
    module_offset: int = 0
    # For --emit-repro of a two-run confirmation (TL104's padded group, TL105): how the second run
    # changes the flagged access ({"kind": "padding", "group", "axis", "ndim", "block"} or
    # {"kind": "identity", "value"}); None for a bounds confirmation.
    second_run: dict[str, Any] | None = None
    # The analysed file's line the run watched where it is not the finding's own (a TL103 predicate in host
    # code is run at the access it lets through unmasked); 0: the finding's line.
    judged_line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "launch": self.launch, "evidence": self.evidence}


@dataclass
class _Job:
    launches: list[dict[str, Any]] = field(default_factory=list)
    compare: list[tuple[int, int]] = field(default_factory=list)
    stops: list[dict[str, Any]] = field(default_factory=list)  # steps that end the job once they show the finding

    def add(self, launch: Launch, module: str, identity: dict[str, Any] | None = None,
            watch: set[int] | None = None, negative: bool = False,
            undefined: dict[str, Any] | None = None) -> int:
        d = launch.to_dict()
        d["module"] = module
        d["identity"] = identity
        d["undefined"] = undefined  # TL105: the lanes a load with no `other=` leaves undefined (undefined_lanes)
        d["watch"] = sorted(watch or ())
        if negative:  # a max over negative data shows a masked-off 0 at once
            for arg in d["args"]:
                if arg["kind"] == "tensor" and arg["fill"] == "randn":
                    arg["fill"] = "negative"
        self.launches.append(d)
        return len(self.launches) - 1


def _child(job: _Job, workdir: Path, fill: int, timeout: float) -> list[dict[str, Any]] | str:
    """Run the job in a child process forked from a server that has torch and triton imported
    (verify's forkserver: a fresh interpreter per finding would pay seconds of imports each)."""
    from tritonlint.verify.runs import start_forked
    from tritonlint.witness.child import forked_main

    out = workdir / "out"
    out.mkdir(exist_ok=True)
    spec = workdir / "job.json"
    spec.write_text(json.dumps({"launches": job.launches, "fill": fill, "compare": job.compare,
                                "stops": job.stops}))
    proc = start_forked(forked_main, (str(spec), str(out), str(workdir / "log.txt")))
    proc.join(timeout)
    if proc.is_alive():
        try:
            if proc.pid is not None:  # always set once started
                os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.kill()
        proc.join(10)
        return f"{OUT_OF_TIME} {timeout:g} s"
    results = out / "results.json"
    if not results.exists():
        log = (workdir / "log.txt").read_text(errors="replace") if (workdir / "log.txt").exists() else ""
        return f"the child process failed (exit {proc.exitcode}): {log.strip()[-600:]}"
    loaded: list[dict[str, Any]] = json.loads(results.read_text())
    return loaded


def _identity(message: str, text: str, line: int) -> float | None:
    """The value the flagged load's masked-off lanes must hold for the reduction the message names to
    see its identity there: -inf before a max, or before `exp` and a sum; +inf before a min; 0 before a sum."""
    import re

    m = re.search(r"reach `(tl\.\w+)` at line (\d+)", message)
    if m is None:
        return None
    reduction, at = m.group(1), int(m.group(2))
    between = "\n".join(text.splitlines()[line - 1:at])
    if reduction == "tl.max":
        return float("-inf")
    if reduction == "tl.min":
        return float("inf")
    if re.search(r"\bexp2?\(", between):
        return float("-inf")
    return 0.0


def _target(extracted: Any, text: str, line: int, column: int) -> tuple[str, str | None]:
    """The flagged call's kind ("load", "store", "atomic") and the kernel parameter its pointer is based on."""
    import ast

    from tritonlint.witness.uses import Uses

    tree = ast.parse(text)
    # `tl.load(p, ...).to(tl.float32)` starts where its load does: the access, not the cast, is the call.
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line and n.col_offset == column - 1]
    call = next((n for n in calls if ast.unparse(n.func).split(".")[-1] in ("load", "store")
                 or ast.unparse(n.func).split(".")[-1].startswith("atomic")), calls[0] if calls else None)
    if call is None:
        return ("any", None)
    name = ast.unparse(call.func).split(".")[-1]
    kind = "load" if name == "load" else "store" if name == "store" else "atomic" if name.startswith("atomic") \
        else "any"
    if not call.args:
        return (kind, None)
    kernel = extracted.kernel
    if not (kernel.node.lineno <= line <= kernel.last_line):
        return (kind, None)  # in a helper: its parameter names are not the launch's
    root = Uses(kernel, extracted.helpers).root(call.args[0])
    return (kind, root)


def _evidence(v: dict[str, Any], launch: Launch, offset: int) -> dict[str, Any]:
    return {
        "kind": v["kind"], "tensor": v["tensor"], "direction": v["direction"],
        "elements_past": v["max_elements"], "tensor_elements": v["tensor_elements"],
        "lanes": v["lanes"], "executions": v["executions"], "element_type": v["element_type"],
        "line": v["line"] - offset, "grid": launch.grid, "shape": launch.sizes,
        "summary": (f"{v['kind']} ran {v['max_elements']} element(s) "
                    f"{'past the end of' if v['direction'] == 'after' else 'before the start of'} "
                    f"`{v['tensor']}` ({v['tensor_elements']} elements), {v['lanes']} lane(s) in "
                    f"{v['executions']} execution(s), {launch.brief()}"),
    }


def _pin_left_defaults(facts: Facts, path: Path) -> None:
    """A flag the launch passes as the launching function's bool parameter, which every call in the
    package leaves at its default, stands as that default: as pinned as a literal at the launch."""
    if facts.launch is None:
        return
    try:
        left = left_at_default(facts.launch, path)
    except (OSError, RecursionError, ValueError):  # reading the package adds a fact or none
        return
    for param, (text, where) in left.items():
        if param in facts.launch_args and param not in facts.flags_off:
            facts.launch_args[param] = text
            facts.defaulted[param] = where


def _at_tile_defaults(facts: Facts, path: Path, kernel: ast.FunctionDef) -> list[Facts]:
    """The facts with the kernel's constexprs that the launching function gives int defaults (tile_defaults)
    taken at those defaults, as if the launch passed them; then at the values its callers in the package pass
    for them instead. Empty when the launch pins them all already."""
    if facts.launch is None:
        return []
    constexprs = {arg.arg for arg in params_of(kernel) if is_constexpr(arg)}
    try:
        defaults = launcher_tile_defaults(facts.launch, path)
        sets = [defaults, *caller_tile_values(facts.launch, path)] if defaults else []
    except (OSError, RecursionError, ValueError):  # reading the package adds a fact or none
        return []
    out: list[Facts] = []
    for found in sets:
        given = {p: value for p, (value, _) in found.items() if p in constexprs and p in facts.launch_args
                 and p not in facts.flags_off and launch_literal(facts.launch_args[p]) is None}
        if given:
            out.append(dataclasses.replace(facts, launch_args={**facts.launch_args, **given},
                                           defaulted={**facts.defaulted, **{p: found[p][1] for p in given}}))
    return out


def _read_caller_padding(facts: Facts, path: Path) -> None:
    """The sizes every path into the launching function pads, further up the calls (caller_padding)."""
    if facts.launch is None:
        return
    try:
        facts.caller_padded = caller_padded(facts.launch, path)
    except (OSError, RecursionError, ValueError):  # reading the package adds a fact or none
        facts.caller_padded = {}


def _latent(facts: Facts, launch: Launch, tensor: str | None = None) -> str:
    """Why the callers never launch this shape, if they say so (`tensor`: the one the finding overran,
    where known: a fact on a tensor's rows marks only an overrun of that tensor)."""
    if launch.unpinned:  # a constexpr branch no caller takes (every one passes another literal)
        return "the callers pass " + ", ".join(
            f"{p}={text}" + (f" (left at the default: {facts.defaulted[p]})" if p in facts.defaulted else "")
            for p, text in sorted(launch.unpinned.items()))
    extent = launch.sizes.get(launch.axis or "", 0)
    # A dispatch around the launch keeps the size within a block (`if n <= BLOCK:`): past it, never.
    values = {a.name: a.value for a in launch.args if a.kind in ("constexpr", "int")}
    for block, pairs in sorted(getattr(facts.launch, "covers", {}).items()):
        bound = values.get(block)
        for size, test in pairs:
            if size == launch.axis and isinstance(bound, int) and not isinstance(bound, bool) and extent > bound:
                return f"the callers keep {size} <= {block} ({test})"
    # The autotune pruner sets the block to `min(tile, N)`: no launch runs a block larger than N.
    for block, pairs in sorted(getattr(facts.launch, "at_most", {}).items()):
        bound = values.get(block)
        for size, where in pairs:
            held = launch.sizes.get(size)
            if isinstance(bound, int) and not isinstance(bound, bool) and isinstance(held, int) and held < bound:
                return f"the callers keep {block} <= {size} ({where})"
    # A predicate the module offers beside the launcher refuses the size (`k % block_k == 0`): callers
    # that test it, as it is offered for, never launch this shape.
    # The same where every live caller tests it, and the one that does not is itself never called.
    kept = {**getattr(facts.launch, "offered", {}), **getattr(facts.launch, "live_callers", {})}
    for (a, b), test in sorted(kept.items()):
        step = int(b) if b.isdigit() else values.get(b)
        if a == launch.axis and isinstance(step, int) and not isinstance(step, bool) and step > 0 and extent % step:
            return f"the callers keep {a} a multiple of {b} ({test})"
    admitted = admitted_latent(facts, launch, values)
    if admitted:
        return admitted
    unknown = unknown_divisor_latent(facts, launch, values, tensor)
    if unknown:
        return unknown
    tile_value = int(facts.tile) if facts.tile and facts.tile.isdigit() else values.get(facts.tile or "")
    padded = padded_latent(facts.caller_padded, launch.axis, extent, facts.tile, tile_value)
    if padded:
        return padded
    for a, b in sorted(facts.multiples):
        if a != launch.axis:
            continue
        if b == "pow2":
            if extent & (extent - 1):  # the shape tried is no power of two
                return f"the callers pad {a} to a power of two"
        elif not b.isdigit() or extent % int(b):
            return f"the callers keep {a} a multiple of {b}"
    return ""


def _tested_overrun(facts: Facts, launch: Launch) -> str:
    """A caller that runs the size at a literal value the run's tile leaves partial (a test, a benchmark:
    caller_padding.literal_overrun): it runs out of bounds too, said beside the evidence."""
    values = {a.name: a.value for a in launch.args if a.kind in ("constexpr", "int")}
    tile_value = int(facts.tile) if facts.tile and facts.tile.isdigit() else values.get(facts.tile or "")
    overrun = literal_overrun(facts.caller_padded, launch.axis, facts.tile, tile_value)
    return f"; {overrun}" if overrun else ""


def _fixed_lines(original: str, fixed: str, lines: set[int]) -> set[int]:
    """The lines of the fixed text that stand for `lines` of the original, or were changed by the fix."""
    a, b = original.splitlines(), fixed.splitlines()
    out: set[int] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out |= {j1 + (ln - 1 - i1) + 1 for ln in lines if i1 <= ln - 1 < i2}
        else:
            out |= set(range(j1 + 1, j2 + 1))
    return out


def _changed_lines(original: str, fixed: str | None) -> set[int]:
    """The lines of the original that the fixed text replaced or removed."""
    if fixed is None:
        return set()
    a, b = original.splitlines(), fixed.splitlines()
    out: set[int] = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            out |= set(range(i1 + 1, i2 + 1))
    return out


def witness(path: Path, display: str, text: str, diagnostic: Any, launches: dict[str, list[Any]],
            flags: dict[str, dict[str, bool]], fixed: str | None, *, timeout: float = 120.0,
            fill: int = 0, flag_tiles: dict[str, dict[str, frozenset[str]]] | None = None) -> Witness:
    """Try to make one finding happen; validate its fix under the launch that did."""
    t0 = time.monotonic()
    try:
        result = _witness(path, display, text, diagnostic, launches, flags, fixed, timeout, fill, flag_tiles or {})
    except Exception as error:  # noqa: BLE001 - one finding's failure must not stop the others
        result = Witness("error", f"the witness failed on this finding: {type(error).__name__}: {error}")
    result.seconds = time.monotonic() - t0
    return result


def _witness(path: Path, display: str, text: str, diagnostic: Any, launches: dict[str, list[Any]],
             flags: dict[str, dict[str, bool]], fixed: str | None, timeout: float, fill: int,
             flag_tiles: dict[str, dict[str, frozenset[str]]]) -> Witness:
    try:
        kernels = enclosing_kernel(text, diagnostic.line)
    except SyntaxError as error:
        return Witness("cannot-synthesize", f"the file does not parse: {error.msg}")
    if diagnostic.code == "TL103":
        # In host code, or at the kernel's flag parameter where the predicate is in another module.
        proxy = at_access(diagnostic)
        if proxy is not None:
            # A host predicate: launched at the access it lets through unmasked, at sizes it lets through.
            fixed_here = fixed if fix_readable(diagnostic) else None
            shown = _witness(path, display, text, proxy, launches, flags, fixed_here, timeout, fill, flag_tiles)
            describe(shown, diagnostic, fixed is not None and fixed_here is None)
            return shown
    if not kernels:
        if diagnostic.code == "TL103":
            return Witness("cannot-synthesize", "a host-side predicate: the accesses it lets through are "
                           "witnessed as findings of their own")
        return Witness("cannot-synthesize", "the finding is in no jit function")
    holder = kernels[-1] if len(kernels) > 1 else kernels[0]
    owner = _owner(text, diagnostic.line, holder)  # parses the file: once per finding, not per attempt
    reasons: list[str] = []
    last: Witness | None = None
    best: Witness | None = None
    # The finding's time counts from its first run: the extraction and synthesis before it are static
    # work that takes seconds more on a loaded machine, and must not shorten the runs that decide.
    deadline: float | None = None
    for name in kernels[:2]:
        try:
            extracted = extract(path, text, name)
        except ExtractError as error:
            reasons.append(f"`{name}`: {error}")
            continue
        spinning = spin_wait(extracted.kernel, extracted.helpers)
        if spinning is not None:
            reasons.append(f"`{name}` spins on memory other programs write ({spinning}): a grid barrier, which "
                           "the interpreter, running programs one after another, never passes")
            continue
        sites = reaching_first(extracted, diagnostic.line, launches.get(name, []))
        facts = facts_from(diagnostic, sites, flags.get(name, {}), flag_tiles.get(name, {}))
        if facts.weak is not None and facts.weak.setter == "launch":
            facts.flags_off.setdefault(facts.weak.flag, True)  # the launch passes what its predicate gives
        _pin_left_defaults(facts, path)
        _read_caller_padding(facts, path)
        facts.host = host_locals(text, facts.launch)
        if derived_end(extracted.kernel.node, facts.line, annotated_constexprs(extracted.kernel.node), facts.tile):
            facts.host_values = host_constexpr_values(text, facts.launch)  # read only where a derived end needs it
        try:
            every = synthesize(extracted, facts, owner=owner)
            # TL104: the size the pointer walks may not be the one the mask names (other_axes.py).
            pairs = with_other_axes(every, {i: c.axis for i, (c, _) in enumerate(every)}, MAX_PAIRS) \
                if diagnostic.code == "TL104" else every[:MAX_PAIRS]
        except SynthesisError as error:
            reasons.append(str(error))
            continue
        except Exception as error:  # noqa: BLE001 - a kernel shape the synthesizer does not know
            reasons.append(f"`{name}`: the synthesizer failed on it ({type(error).__name__}: {error})")
            continue
        deadline = time.monotonic() + timeout if deadline is None else deadline
        again = partial(_again, path, text, diagnostic, extracted, facts, owner, pairs, fixed, fill, deadline=deadline)
        last = _run(path, text, diagnostic, extracted, facts, pairs, fixed, max(5.0, deadline - time.monotonic()),
                    fill)
        why = unreadable(last.reason, extracted.source) if last.status == "error" else None
        if why is not None:  # no retry can bind a helper whose source the witness lacks
            last = Witness("cannot-synthesize", why, last.launch)
        wanted = _wanted_float(last.reason) if last.status == "error" else None
        if wanted is not None:
            # The kernel casts one operand of a dot to 16 bits (`p.to(tl.bfloat16)`) and loads the other
            # as stored: its own error names the element type its float tensors hold. Once more in it.
            retry = again(float_dtype=wanted)
            last = retry if retry is not None and retry.status != "error" else last
        if last.status == "error":
            # Constexprs derived from a tile (`BLOCK_K // 32`) may need bigger tiles than 16: once more at 64.
            retry = again(default_tile=BIG_TILE)
            last = retry if retry is not None and retry.status != "error" else last
        if last.status == "not-reproduced" and FULL_TILES_OVERRUN in last.reason:
            # Every control overran at whole tiles of the finding's block: the kernel may walk the size
            # in tiles of another block too. Once more with controls whole in the largest tile (where
            # the finding's tile is the largest already, the same launches: not run again).
            retry = again(whole_tiles=True)
            last = retry if retry is not None and retry.status == "confirmed" else last
        if last.status == "not-reproduced":
            # Branches that need another size's tiles full (`if EVEN_M or EVEN_K:`): once more with
            # the flags of the other sizes on their full-tile side.
            retry = again(even_others=True)
            last = retry if retry is not None and retry.status == "confirmed" else last
        for tiled in _at_tile_defaults(facts, path, extracted.kernel.node) if last.status == "not-reproduced" else []:
            # The guessed tiles are all alike; a hazard that needs two to differ (a loop stepping by BTS past
            # chunks of BTL) shows at the tiles the launching function gives by default, or its callers pass.
            retry = _again(path, text, diagnostic, extracted, tiled, owner, pairs, fixed, fill, deadline=deadline,
                           co_walks=True)
            if retry is not None and retry.status == "confirmed":
                given = sorted(set(tiled.defaulted) - set(facts.defaulted))
                retry.reason += "; at the launcher's tiles: " + ", ".join(tiled.defaulted[p] for p in given)
                last = retry
                break
        if last.status == "not-reproduced":
            # A row's over-read stays inside the tensor wherever a row follows or the row is long: once more
            # with the sizes that scale the flagged row's start at 1 (`T = 1`, single_rows.py), last.
            retry = again(single_rows=True)
            last = retry if retry is not None and retry.status == "confirmed" else last
        if last.status == "confirmed" and (last.validation or {}).get("status") == "failed":
            # A tile nobody passes is the witness's guess, and a partial tile of a mode that pads its rows
            # (a swizzled scale layout holding K rounded up to 64 lanes) only overruns the host's padding at
            # a larger one, where the fix's own lane order can be judged: kept when the fix validates there.
            # That run settles the fix, so it has a deadline of its own (fix_retry): a loaded machine
            # leaves the fix not-run, never failed.
            last = settle_failed_fix(last, partial(again, default_tile=2 * BIG_TILE), timeout, 2 * BIG_TILE)
        if last.status == "confirmed":
            return last
        # The launched kernel's verdict (tried first) stands over a jit helper's launched as if it were
        # a kernel (its block-valued parameters become Python numbers): the helper's error is its own,
        # so only a better verdict replaces the kernel's; a tie keeps the kernel's.
        if best is None or _RANK[last.status] > _RANK[best.status]:
            best = last
    if best is not None:
        return best
    return Witness("cannot-synthesize", "; ".join(reasons) or "no launchable kernel")


def _again(path: Path, text: str, diagnostic: Any, extracted: Any, facts: Facts, owner: str | None,
           first: list[tuple[Launch, Launch]], fixed: str | None, fill: int, *, deadline: float,
           **options: Any) -> Witness | None:
    """The finding run once more on launches `synthesize` builds with other `options`; None when time is
    short or they are the launches the first run tried (the same runs would say the same)."""
    if deadline - time.monotonic() <= 5:
        return None
    try:
        other = synthesize(extracted, facts, owner=owner, **options)[:MAX_PAIRS]
    except SynthesisError:
        return None
    if not other or [(c.to_dict(), k.to_dict()) for c, k in other] == [(c.to_dict(), k.to_dict()) for c, k in first]:
        return None
    return _run(path, text, diagnostic, extracted, facts, other, fixed, max(5.0, deadline - time.monotonic()), fill)


def _tile_value(launch: Launch, tile: str | None) -> int | None:
    """The finding's tile in elements, as this launch passes it (a literal, or its constexpr)."""
    if tile is None:
        return None
    if tile.isdigit():
        return int(tile)
    value = next((a.value for a in launch.args if a.name == tile and a.kind in ("constexpr", "int")), None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# Which verdict of the kernels tried is reported: any run that judged the finding over one that could not.
_RANK = {"error": 0, "cannot-synthesize": 1, "not-reproduced": 2, "confirmed": 3}
FULL_TILES_OVERRUN = "out of bounds at full tiles too"


def witness_launches(path: Path, text: str, diagnostic: Any, pairs: list[tuple[Launch, Launch]],
                     fixed: str | None, *, timeout: float = 120.0, fill: int = 0) -> Witness:
    """Judge one finding and its fix on launches given by hand (a harness that knows what the host
    keeps: each candidate with its full-tile control), with the witness's own runs and verdicts."""
    t0 = time.monotonic()
    kernel = pairs[0][0].kernel
    extracted = extract(path, text, kernel)
    result = _run(path, text, diagnostic, extracted, facts_from(diagnostic, [], {}, {}), pairs, fixed, timeout, fill)
    result.seconds = time.monotonic() - t0
    return result


_FLOAT_NAMES = {"bf16": "bfloat16", "fp16": "float16"}


def _wanted_float(error: str) -> str | None:
    """The 16-bit float type a dtype mismatch with the synthesized fp32 tensors names, if any
    (`Both operands must be same dtype. Got bf16 and fp32`)."""
    import re

    m = re.search(r"Got (bf16|fp16) and fp32|Got fp32 and (bf16|fp16)", error)
    return _FLOAT_NAMES[m.group(1) or m.group(2)] if m else None


def _owner(text: str, line: int, fallback: str) -> str:
    import ast

    from tritonlint.witness.extract import jit_functions

    holders = [k for k in jit_functions(ast.parse(text)).values() if k.node.lineno <= line <= k.last_line]
    return min(holders, key=lambda k: k.last_line - k.node.lineno).name if holders else fallback


def _run(path: Path, text: str, diagnostic: Any, extracted: Any, facts: Facts,
         pairs: list[tuple[Launch, Launch]], fixed: str | None, timeout: float, fill: int) -> Witness:
    group = analysis.padded_group(diagnostic)
    if group is not None:  # never out of bounds: judged by the wrong-data oracle instead
        return _run_group(path, text, diagnostic, extracted, facts, pairs, fixed, timeout, fill, group)
    lines = set(range(diagnostic.line, diagnostic.end_line + 1))
    with tempfile.TemporaryDirectory(prefix="tritonlint-witness-") as tmp:
        workdir = Path(tmp)
        module = str(workdir / "witness_module.py")
        Path(module).write_text(extracted.source)
        gen_lines = {ln + extracted.offset for ln in lines}
        try:
            target = _target(extracted, text, diagnostic.line, diagnostic.column)
        except (SyntaxError, ValueError):
            target = ("any", None)
        fixed_module = None
        fixed_source: str | None = None
        fixed_gen_lines: set[int] = set()
        fix_problem = ""
        if fixed is not None:
            try:
                fixed_extracted = extract(path, fixed, extracted.kernel.name)
                fixed_source = fixed_extracted.source
                fixed_module = str(workdir / "witness_fixed.py")
                Path(fixed_module).write_text(fixed_extracted.source)
                fixed_gen_lines = {ln + fixed_extracted.offset for ln in _fixed_lines(text, fixed, lines)}
            except (ExtractError, SyntaxError) as error:
                fix_problem = f"the fixed file cannot be cut out: {error}"
        identity = _identity(diagnostic.message, text, diagnostic.line) if diagnostic.code == "TL105" else None
        job = _Job()
        plan: list[dict[str, int]] = []
        stores = target[0] in ("store", "any")
        # Every store the fixed file changed (this finding's and any other fix written with it): the
        # writes those fixes drop are counted on both sides, so a stray lane another fix stopped is
        # explained as this finding's own is.
        changed = {ln + extracted.offset for ln in _changed_lines(text, fixed)} if fixed_module is not None else set()
        watch = (gen_lines if stores else set()) | changed
        negative = identity is not None
        start = analysis.before_start(diagnostic)
        # The identity at the load, and at the reduction the finding names (reduction_lanes.py).
        identity_run = {"line": min(gen_lines), "value": identity}
        at = reduction_line(diagnostic) if identity is not None else None
        if at is not None:
            identity_run["reduce_line"] = at + extracted.offset
        at_reduction = f" (and to its identity where the reduction at line {at} reads them)" if at is not None else ""
        # A load with no `other=`: once more with its lanes at the extreme the reduction cannot absorb.
        undefined = {"line": min(gen_lines), "extreme": adversary(identity)} \
            if identity is not None and loads_without_other(text, diagnostic.line, diagnostic.column) else None
        # Where the callers exclude every candidate's shape, the parent takes the first that shows the finding
        # anyway (the first latent one): no later step can change it, so that one stops the job too. Running
        # them all can leave a heavy kernel no time for the retries after this run (a 16-bit one, say).
        every_latent = identity is None and all(_latent(facts, cand, target[1]) for cand, _ in pairs)
        for cand, control in pairs:
            step = {"cand": job.add(cand, module, watch=watch or None, negative=negative),
                    "control": job.add(control, module, negative=negative)}
            if identity is not None:
                step["ident"] = job.add(cand, module, identity_run, negative=negative)
                job.compare.append((step["cand"], step["ident"]))
                if undefined is not None:
                    step["undef"] = job.add(cand, module, negative=negative, undefined=undefined)
                    job.compare.append((step["undef"], step["ident"]))
            if fixed_module is not None:
                step["fixed"] = job.add(for_fix(cand, facts.weak, diagnostic.fix), fixed_module, watch=fixed_gen_lines if stores or changed else None,
                                        negative=negative)
                job.compare.append((step.get("ident", step["cand"]), step["fixed"]))
            plan.append(step)
            if identity is None and (every_latent or not _latent(facts, cand, target[1])):
                # The parent takes the first candidate the callers allow that shows the finding: the
                # steps after it could not change the verdict or the fix's (its fixed run is in the step).
                job.stops.append({"after": len(job.launches) - 1, "cand": step["cand"], "control": step["control"],
                                  "module": module, "lines": sorted(gen_lines), "kind": target[0],
                                  "tensor": target[1], "before_start": start})
        results = _child(job, workdir, fill, timeout)
        source = extracted.source
    if isinstance(results, str):
        return Witness("error", results, pairs[0][0].to_dict())
    tried = [cand.label for cand, _ in pairs]
    errors: list[str] = []
    chosen: tuple[Launch, dict[str, int]] | None = None
    witness: Witness | None = None
    excluded: tuple[Witness, tuple[Launch, dict[str, int]]] | None = None  # the first latent confirmation
    # The first confirmation by a tile across the end beside a control that overran too (hits.across_end),
    # the callers' shape or not: a candidate whose control stays in bounds is cleaner evidence, taken first.
    across_only: tuple[Witness, tuple[Launch, dict[str, int]]] | None = None
    # The first TL105 candidate whose outputs differ only with the undefined lanes at their extreme.
    undefined_only: tuple[Witness, tuple[Launch, dict[str, int]]] | None = None
    for (cand, control), step in zip(pairs, plan):
        if step["cand"] >= len(results):
            break  # not run: the job stopped at a step that showed the finding
        res = results[step["cand"]]
        if res["status"] != "ok":
            errors.append(res["error"] or "crashed")
            continue
        ctrl = results[step["control"]]
        # The control must run and stay in bounds at the access: otherwise the launch proves nothing.
        control_hits = _hits(ctrl, module, gen_lines, target) if ctrl["status"] == "ok" else []
        control_hits = facing(control_hits, "after" if start else None)  # (hits.facing)
        # A control past the tensor by whole tiles only, beside a candidate's tile across its end: the
        # access overruns at full tiles too (another defect, or the same one), and the candidate still
        # shows the partial tile the finding is about (hits.across_end).
        across = identity is None and across_end(_hits(res, module, gen_lines, target), control_hits,
                                                 _tile_value(control, facts.tile))
        mismatch = identity is None and (ctrl["status"] != "ok" or bool(control_hits)) and not across
        if not mismatch:  # a launch that goes out of bounds at full tiles too proves no fix either
            chosen = chosen or (cand, step)
        if identity is not None:
            diffs = res.get("differs", {}).get(str(step["ident"])) or {}
            # A run whose identity lanes themselves make NaN (`x - mean` at -inf) proves nothing.
            diffs = {n: d for n, d in diffs.items() if not d.get("nan_second")}
            if diffs:
                name, d = next(iter(diffs.items()))
                evidence = {"tensor": name, "max_abs": d["max_abs"], "elements": d["elements"],
                            "nan": d.get("nan", 0), "identity": identity, "grid": cand.grid, "shape": cand.sizes,
                            "summary": (f"`{name}` differs from the run with the masked-off lanes set to "
                                        f"{identity}{at_reduction} in {d['elements']} element(s) (max |diff| "
                                        f"{d['max_abs']:.4g}, {d.get('nan', 0)} NaN), {cand.brief()}")}
                witness = Witness("confirmed", evidence["summary"], cand.to_dict(), evidence,
                                  second_run={"kind": "identity", **identity_run})
                chosen = (cand, step)
                break
            if undefined_only is None and "undef" in step and step["undef"] < len(results):
                undefined_only = _undefined_confirmation(results[step["undef"]], step, cand, undefined, identity)
            continue
        hits = facing(_hits(res, module, gen_lines, target), "before" if start else None)
        if not hits:
            continue
        if mismatch:
            why = FULL_TILES_OVERRUN if ctrl["status"] == "ok" else \
                f"the full-tile control did not run ({str(ctrl['error'])[:200]})"
            errors.append(f"{cand.label}: {why} ({control.label}): the launch does not match the kernel's indexing")
            continue
        if across:  # the execution across the end is the evidence; the control's whole tiles are said
            hits = sorted(hits, key=lambda h: not h.get("straddles"))
        evidence = _evidence(hits[0], cand, extracted.offset)
        if across:
            evidence["summary"] += (f"; a tile across the end of `{hits[0]['tensor']}` in {hits[0]['straddles']} "
                                    f"execution(s), where at full tiles ({control.label}) it runs past by whole "
                                    "tiles only")
        latent = _latent(facts, cand, evidence["tensor"])
        reason = evidence["summary"] + (f"; latent: {latent}" if latent else _tested_overrun(facts, cand))
        evidence["latent"] = latent or None
        if across:
            across_only = across_only or (Witness("confirmed", reason, cand.to_dict(), evidence), (cand, step))
            continue
        if latent:  # a shape the callers exclude: another candidate may confirm it on one they allow
            excluded = excluded or (Witness("confirmed", reason, cand.to_dict(), evidence), (cand, step))
            continue
        witness = Witness("confirmed", reason, cand.to_dict(), evidence)
        chosen = (cand, step)
        break
    if witness is None and across_only is not None and (excluded is None or not across_only[0].evidence
                                                         or not across_only[0].evidence.get("latent")):
        witness, chosen = across_only  # the callers' shape, over a clean run on one they exclude
    if witness is None and excluded is not None:
        witness, chosen = excluded
    if witness is None and across_only is not None:
        witness, chosen = across_only
    if witness is None and undefined_only is not None:
        witness, chosen = undefined_only
    if witness is None:
        if chosen is None and all(results[step["cand"]]["status"] != "ok" for step in plan if step["cand"] < len(results)):
            witness = Witness("error", f"the kernel does not run under the interpreter: {errors[0]}",
                              pairs[0][0].to_dict())
        elif chosen is None:
            witness = Witness("not-reproduced", f"no launch tried matches the kernel's indexing: {errors[0]}",
                              pairs[0][0].to_dict())
        else:
            note = f" ({errors[0]})" if errors else ""
            what = (f"outputs equal the run with the masked-off lanes set to {identity}" if identity is not None
                    else "stayed in bounds")
            witness = Witness("not-reproduced", f"{what} at {', '.join(tried)}{note}", chosen[0].to_dict())
    witness.module_source = source
    witness.module_offset = extracted.offset
    if fixed is None:
        return witness
    witness.validation = _validation(results, chosen, fixed_module, fixed_gen_lines, fix_problem, target)
    if witness.validation["status"] == "failed" and witness.validation["reason"].startswith("`") \
            and identity is None and chosen is not None and fixed_source is not None:
        # The outputs differ: where the original's over-read landed in the next row, inside the tensor,
        # its outputs are no oracle. Once more on rows padded past their length.
        again = _padded_validation(extracted, fixed_source, chosen[0], fixed_gen_lines, target, fill, timeout)
        if again is not None:
            witness.validation = again
    return witness


def _undefined_confirmation(res: dict[str, Any], step: dict[str, int], cand: Launch, undefined: Any,
                            identity: float) -> tuple[Witness, tuple[Launch, dict[str, int]]] | None:
    """A latent confirmation where the run with a load's undefined lanes at their extreme (undefined_lanes)
    differs from the identity run; None where it does not. No repro script: `second_run` stays None, as
    the script's first run fills the lanes with 0 as the hardware does."""
    diffs = {n: d for n, d in (res.get("differs", {}).get(str(step["ident"])) or {}).items()
             if not d.get("nan_second")}
    if res.get("status") != "ok" or not diffs:
        return None
    name, d = next(iter(diffs.items()))
    summary = (f"`{name}` differs from the run with the masked-off lanes set to {identity} in {d['elements']} "
               f"element(s) once the lanes the load leaves undefined (no `other=`) hold the element type's "
               f"{'largest' if undefined['extreme'] == 'max' else 'least'} finite value (max |diff| "
               f"{d['max_abs']:.4g}, {d.get('nan', 0)} NaN), {cand.brief()}")
    evidence = {"tensor": name, "max_abs": d["max_abs"], "elements": d["elements"], "nan": d.get("nan", 0),
                "identity": identity, "grid": cand.grid, "shape": cand.sizes, "summary": summary,
                "undefined_lanes": undefined["extreme"], "latent": LATENT}
    return Witness("confirmed", f"{summary}; latent: {LATENT}", cand.to_dict(), evidence), (cand, step)


def _padded_validation(extracted: Any, fixed_source: str, cand: Launch, fixed_lines: set[int],
                       target: tuple[str, str | None], fill: int, timeout: float) -> dict[str, str] | None:
    """The fix validated on the candidate's launch with padded rows (padded_rows), or None where no such
    launch exists or the fixed kernel's outputs differ there too (the plain launch's failure stands);
    not-run where that run timed out."""
    tiles = [a.value for a in cand.args if a.kind == "constexpr" and isinstance(a.value, int)
             and not isinstance(a.value, bool) and a.value > 1]
    built = padded_rows(extracted, cand, min(256, max(tiles + [16])))
    if built is None:
        return None
    original, poisoned = built
    with tempfile.TemporaryDirectory(prefix="tritonlint-witness-rows-") as tmp:
        workdir = Path(tmp)
        module, fixed_module = str(workdir / "witness_module.py"), str(workdir / "witness_fixed.py")
        Path(module).write_text(extracted.source)
        Path(fixed_module).write_text(fixed_source)
        job = _Job()
        a, b = job.add(original, module), job.add(poisoned, fixed_module)
        job.compare.append((a, b))
        results = _child(job, workdir, fill, timeout)
    if isinstance(results, str) and results.startswith(OUT_OF_TIME):
        # The run that would settle the differing outputs did not finish: the fix is not judged.
        return {"status": "not-run", "reason": f"out of time: the outputs differ at {cand.brief()}, and the run on "
                f"padded rows that settles it did not finish ({results})"}
    if isinstance(results, str) or results[a]["status"] != "ok" or results[b]["status"] != "ok" \
            or _hits(results[b], fixed_module, fixed_lines, target):
        return None
    diffs = results[a].get("differs", {}).get(str(b))
    if diffs is None:
        return None
    # The padding itself differs (zero bits in one run, poison in the other): only the rows are compared.
    left = {name: d for name, d in diffs.items()
            if not (in_padding(poisoned, name, d.get("where", [])) and d.get("elements", 0) == len(d.get("where", [])))}
    if left:
        return None
    rows = next((arg.pad[0] for arg in poisoned.args if arg.pad), 0)
    return {"status": "validated", "reason": f"runs in bounds at {cand.brief()}; outputs equal the original's "
            f"on rows padded to {rows} elements (the original's over-read leaves the row into zeros there; "
            f"the fixed kernel runs with the padding poisoned)"}


def _fixed_run_verdict(results: list[dict[str, Any]], chosen: tuple[Launch, dict[str, int]] | None,
                       fixed_module: str | None, problem: str) -> dict[str, str] | None:
    """What every fix validation says before comparing anything: the fix was rejected, nothing ran to
    compare it with, or the fixed kernel does not run. None when the fixed run is there to judge."""
    if problem:
        return {"status": "failed", "reason": problem}
    if chosen is None or fixed_module is None:
        return {"status": "not-run", "reason": "no launch of the original ran in a way that matches its indexing"}
    res = results[chosen[1]["fixed"]]
    if res["status"] != "ok":
        return {"status": "failed", "reason": f"the fixed kernel does not run: {res['error']}"}
    return None


def _validation(results: list[dict[str, Any]], chosen: tuple[Launch, dict[str, int]] | None,
                fixed_module: str | None, lines: set[int], problem: str,
                target: tuple[str, str | None]) -> dict[str, str]:
    early = _fixed_run_verdict(results, chosen, fixed_module, problem)
    if early is not None:
        return early
    assert chosen is not None and fixed_module is not None  # else the verdict above said not-run
    cand, step = chosen
    res = results[step["fixed"]]
    hits = _hits(res, fixed_module, lines, target)
    if hits:
        v = hits[0]
        return {"status": "failed", "reason": f"the fixed access still goes out of bounds: {v['kind']} "
                f"{v['max_elements']} element(s) past `{v['tensor']}` at {cand.brief()}"}
    base = step.get("ident", step["cand"])
    diffs = results[base].get("differs", {}).get(str(step["fixed"]))
    if diffs is None:
        return {"status": "failed", "reason": "the outputs could not be compared"}
    # A store the fix masks may have written, in the original, over elements another program owns
    # (a row's tail wrapping into the next row): differences there are the fix's point, not a fault.
    # Counted per element: the original writes such an element twice (its owner and the stray lane).
    # An element the fixed kernel no longer writes at all is excused too: a padded row's tail (`Lse`
    # rows past `seqlen_q` up to the rounded stride) has no owner. The counts cannot tell it from an
    # owned element a wrong mask stops writing (a `rows < V` fix on `V + K` rows passes here): the
    # fixer rejects such bounds itself (fixtures partial_span_bound, lower_bound_sibling_mask).
    fixed_written = results[step["fixed"]].get("written", {})
    original_written = results[step["cand"]].get("written", {})
    dropped = {name: {int(i) for i, n in counts.items() if n > fixed_written.get(name, {}).get(i, 0)}
               for name, counts in original_written.items()}
    # And the converse: an in-bounds element the original's flagged store never wrote, that the fixed
    # one does. A mask on the wrong axis (TL104) leaves such elements unwritten, and its fix writes
    # them: there is no original value to compare with. A mask that only narrows cannot write more,
    # so this excuses nothing for TL101/TL102 fixes; every element both runs wrote is still compared.
    added = {name: {int(i) for i, n in counts.items() if n and not original_written.get(name, {}).get(i, 0)}
             for name, counts in fixed_written.items()}
    explained = 0
    for name, d in list(diffs.items()):
        excused = dropped.get(name, set()) | added.get(name, set())
        if set(d.get("where", ())) <= excused and d.get("elements", 0) == len(d.get("where", ())):
            explained += d["elements"]
            del diffs[name]
    if diffs:
        name, d = next(iter(diffs.items()))
        against = "the identity run" if "ident" in step else "the original's at a zero fill"
        return {"status": "failed", "reason": f"`{name}` differs from {against} in {d['elements']} "
                f"element(s) (max |diff| {d['max_abs']}) at {cand.brief()}"}
    if explained:
        against = "the identity run" if "ident" in step else "the original's at a zero fill"
        return {"status": "validated", "reason": f"runs in bounds; outputs equal {against} at {cand.brief()} "
                f"except {explained} element(s) only one of the two flagged stores wrote"}
    against = "the identity run" if "ident" in step else "the original's at a zero fill"
    return {"status": "validated", "reason": f"runs in bounds; outputs equal {against} at {cand.brief()}"}


def _run_group(path: Path, text: str, diagnostic: Any, extracted: Any, facts: Facts,
               pairs: list[tuple[Launch, Launch]], fixed: str | None, timeout: float, fill: int,
               group: tuple[str, str]) -> Witness:
    """A tile wider than its group: each candidate (its group size made no power of two) runs as it is
    and with the access's padding lanes switched off; confirmed when the outputs differ, or when the
    store's padding lanes write what another program writes with another value."""
    block, size = group
    lines = set(range(diagnostic.line, diagnostic.end_line + 1))
    gen_lines = sorted(ln + extracted.offset for ln in lines)
    axis, rank = tile_axis(extracted.source, facts.walk)
    try:
        kind = _target(extracted, text, diagnostic.line, diagnostic.column)[0]
    except (SyntaxError, ValueError):
        kind = "any"
    stores = kind in ("store", "any")
    problems: list[str] = []
    plan: list[tuple[Launch, dict[str, int]]] = []
    with tempfile.TemporaryDirectory(prefix="tritonlint-witness-") as tmp:
        workdir = Path(tmp)
        module = str(workdir / "witness_module.py")
        Path(module).write_text(extracted.source)
        fixed_module: str | None = None
        fixed_lines: set[int] = set()
        fix_problem = ""
        if fixed is not None:
            try:
                fixed_extracted = extract(path, fixed, extracted.kernel.name)
                fixed_module = str(workdir / "witness_fixed.py")
                Path(fixed_module).write_text(fixed_extracted.source)
                fixed_lines = {ln + fixed_extracted.offset for ln in _fixed_lines(text, fixed, lines)}
            except (ExtractError, SyntaxError) as error:
                fix_problem = f"the fixed file cannot be cut out: {error}"
        padded: list[Launch] = []
        for cand, _control in pairs:
            launch = group_launch(cand, block, size)
            if isinstance(launch, str):
                problems.append(launch)
            else:
                padded.append(launch)
        if not padded:
            return Witness("cannot-synthesize", f"no launch pads the group: {problems[0] if problems else 'none built'}")

        def padding(launch: Launch, group: int | None) -> dict[str, Any]:
            return {"lines": gen_lines, "group": group, "axis": axis, "ndim": rank,
                    "block": next(a.value for a in launch.args if a.name == block)}

        # First the groups' own lanes alone, in roomy tensors: how far each tensor is reached. The runs
        # that judge get tensors of exactly that size, as a launch whose extent is its groups' would.
        sizing = _Job()
        for launch in padded:
            i = sizing.add(roomy(launch), module)
            sizing.launches[i]["padding"] = padding(launch, launch.sizes[size])
            sizing.launches[i]["reach"] = True
        (workdir / "sizing").mkdir()
        reached = _child(sizing, workdir / "sizing", fill, max(5.0, timeout / 3))
        if isinstance(reached, list):
            padded = [fitted(launch, r.get("reach")) if r["status"] == "ok" and not r["violations"] else launch
                      for launch, r in zip(padded, reached)]
        job = _Job()
        for launch in padded:
            watch = set(gen_lines) if stores else None
            step = {"cand": job.add(launch, module, watch=watch), "padless": job.add(launch, module, watch=watch)}
            if stores:
                job.launches[step["cand"]]["writers"] = gen_lines
            # The original's lanes that point past every tensor (the last group's padding, in tensors
            # sized to the groups) are dropped: out of bounds is another finding's claim, not this one's.
            job.launches[step["cand"]]["padding"] = padding(launch, None)
            job.launches[step["padless"]]["padding"] = padding(launch, launch.sizes[size])
            job.compare.append((step["cand"], step["padless"]))
            if fixed_module is not None:
                step["fixed"] = job.add(launch, fixed_module)
                job.compare.append((step["padless"], step["fixed"]))
            plan.append((launch, step))
        results = _child(job, workdir, fill, timeout)
        source = extracted.source
    if isinstance(results, str):
        return Witness("error", results, plan[0][0].to_dict())
    errors: list[str] = []
    chosen: tuple[Launch, dict[str, int]] | None = None
    witness: Witness | None = None
    for launch, step in plan:
        original, padless = results[step["cand"]], results[step["padless"]]
        if original["status"] != "ok" or padless["status"] != "ok":
            errors.append(f"{launch.label}: {original['error'] or padless['error'] or 'crashed'}")
            continue
        if original["violations"]:
            # Poisoned reads would differ for another reason than the group: the launch proves nothing.
            v = original["violations"][0]
            errors.append(f"{launch.label}: {v['kind']} out of bounds of `{v['tensor']}` at line "
                          f"{v['line'] - extracted.offset}: the launch does not match the kernel's indexing")
            continue
        chosen = chosen or (launch, step)
        if not (padless.get("padding") or {}).get("lanes"):
            unknown = (padless.get("padding") or {}).get("unknown_axis")
            errors.append(f"{launch.label}: " + ("the tile's axis could not be told" if unknown
                                                  else "no padding lane was active at the access"))
            continue
        diffs = dict(original.get("differs", {}).get(str(step["padless"])) or {})
        if stores:
            # A store's padding lanes change only what they write: an element no program of this launch
            # owns (a group past the grid's programs) is no evidence; one its owner also writes is.
            owned = padless.get("written", {})
            diffs = {n: d for n, d in diffs.items()
                     if any(owned.get(n, {}).get(str(i), 0) for i in d.get("where", ()))}
        evidence = padding_evidence(original, padless, diffs, launch, size)
        if evidence is not None:
            witness = Witness("confirmed", evidence["summary"], launch.to_dict(), evidence,
                              second_run={"kind": "padding", **padding(launch, launch.sizes[size])})
            chosen = (launch, step)
            break
    if witness is None:
        tried = ", ".join(launch.label for launch, _ in plan)
        note = f" ({errors[0]})" if errors else ""
        if chosen is None and all(results[step["cand"]]["status"] != "ok" for _, step in plan):
            witness = Witness("error", f"the kernel does not run under the interpreter: {errors[0]}",
                              plan[0][0].to_dict())
        elif chosen is None:
            witness = Witness("not-reproduced", f"no launch tried matches the kernel's indexing: {errors[0]}",
                              plan[0][0].to_dict())
        else:
            witness = Witness("not-reproduced", "outputs equal the run with the lanes past the group switched "
                              f"off, and no store race, at {tried}{note}", chosen[0].to_dict())
    witness.module_source = source
    witness.module_offset = extracted.offset
    if fixed is None:
        return witness
    witness.validation = _group_validation(results, chosen, fixed_module, fixed_lines, fix_problem)
    return witness


def _group_validation(results: list[dict[str, Any]], chosen: tuple[Launch, dict[str, int]] | None,
                      fixed_module: str | None, lines: set[int], problem: str) -> dict[str, str]:
    """The fix of a padded group must compute what the run with the padding lanes switched off does."""
    early = _fixed_run_verdict(results, chosen, fixed_module, problem)
    if early is not None:
        return early
    assert chosen is not None and fixed_module is not None  # else the verdict above said not-run
    launch, step = chosen
    res = results[step["fixed"]]
    stray = [v for v in res["violations"] if v["path"] == fixed_module and v["line"] in lines]
    if stray:
        return {"status": "failed", "reason": f"the fixed access goes out of bounds of `{stray[0]['tensor']}` "
                f"at {launch.brief()}"}
    diffs = results[step["padless"]].get("differs", {}).get(str(step["fixed"]))
    if diffs is None:
        return {"status": "failed", "reason": "the outputs could not be compared"}
    if diffs:
        name, d = next(iter(diffs.items()))
        return {"status": "failed", "reason": f"`{name}` differs from the run with the lanes past the group "
                f"switched off in {d['elements']} element(s) (max |diff| {d['max_abs']}) at {launch.brief()}"}
    return {"status": "validated", "reason": "runs in bounds; outputs equal the run with the lanes past the "
            f"group switched off at {launch.brief()}"}
