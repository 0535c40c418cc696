"""Synthesize launches for a kernel: parameters classified by use, sizes that make the finding's tile partial.

Read from the kernel's syntax alone (stdlib `ast`), never by importing it. A parameter is a
pointer when it is the base of the pointer expression of a load or store (directly, through
locals, or through a jit helper's parameter); a stride when it multiplies an offset there; a
size when it bounds an offset (a mask comparison, a loop bound, a `%`); constexprs take the
values callers pass, then autotune's first config, then their defaults, then small powers of two.
Each pointer's dimensions (offset, bounding size, stride) come from its pointer expressions, so
the strides are contiguous in the kernel's own indexing and each buffer holds exactly
`1 + sum((size - 1) * stride)` elements: the last in-bounds element is the buffer's last one.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tritonlint.witness.bindings import bound_where_read
from tritonlint.witness.branch_locals import taken_value
from tritonlint.witness.build_readings import BuildReadings
from tritonlint.witness.call_names import call_name
from tritonlint.witness.co_walks import chunk_loop_size, smaller_co_tiles
from tritonlint.witness.complementary import complementary, launch_tests
from tritonlint.witness.constraints import (
    ABSENT,
    PRESENT,
    Constraint,
    broken,
    constraints_of,
    locals_of,
    module_constants,
    optional_params,
    reaching,
    satisfy,
)
from tritonlint.witness.derived_ends import (
    GUESSED_VALUES,
    derived_end,
    grid_stride_loops,
    split_program_axes,
    split_row_bounds,
    split_values,
)
from tritonlint.witness.extract import Extracted, Kernel
from tritonlint.witness.gathered_rows import gathered_numel, index_loads
from tritonlint.witness.host_extents import host_extents, row_stride_for
from tritonlint.witness.host_grid import grid_programs
from tritonlint.witness.index_sizes import ROW_COUNT, index_only_sizes
from tritonlint.witness.int_scalars import int_scalar
from tritonlint.witness.loaded_bounds import loaded_bounds
from tritonlint.witness.loop_counts import LOOP_COUNT, loop_counted
from tritonlint.witness.loop_walks import loop_sizes
from tritonlint.witness.row_spans import SPAN, span_rest, spanned_axes
from tritonlint.witness.shift_sizes import shift_only_sizes
from tritonlint.witness.single_rows import row_scale_sizes
from tritonlint.witness.split_axes import split_axes
from tritonlint.witness.taken_definitions import none_mask_reach
from tritonlint.witness.tied_tiles import compared_size, next_pow2, pow2_sources
from tritonlint.witness.tile_groups import divides_a_tile, one_tile, per_tile
from tritonlint.witness.tile_shapes import arange_extents
from tritonlint.witness.uses import (
    ACCESS,
    Uses,
    defaults_of,
    dotted,
    literal,
    scalar_counts,
)
from tritonlint.witness.weak_predicates import WeakFacts, passing_sizes, weak_facts_of

DEFAULT_TILE = 16
GROUP = 4  # a constexpr that only divides offsets (a quantization group): smaller than any tile
# Keywords of the language's builtins that take a string, with a value valid everywhere: a constexpr
# handed to one is a string (16 stopped `tl.dot`: "'int' object has no attribute 'lower'").
STRING_KEYWORDS = {"input_precision": "ieee", "cache_modifier": "", "eviction_policy": ""}
ROW_PROGRAMS = 2  # programs along an axis whose program id is a row index, not a tile's start
MAX_PROGRAMS = 256


@dataclass
class Arg:
    """One argument of the synthesized launch."""

    name: str
    kind: str  # "tensor", "int", "float", "constexpr", "none"
    value: Any = None  # scalars and constexprs ({"dtype": "float32"} for a dtype constexpr)
    numel: int = 0  # tensors
    dtype: str = "float32"
    fill: str = "randn"  # "randn" or "zeros"
    # (row length, valid prefix): the tensor is rows of that length whose elements past the prefix are
    # padding, zero bits: lanes past a row's extent read zeros there, as a masked load's `other=0` gives.
    pad: tuple[int, int] | None = None
    # The padding poisoned (all bits set) instead: a fixed kernel that still reads past a row shows it.
    pad_poison: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "value": self.value, "numel": self.numel,
                "dtype": self.dtype, "fill": self.fill, "pad": self.pad, "pad_poison": self.pad_poison}


@dataclass
class Launch:
    """A launch to run: arguments in parameter order, the grid, and what it was built to show."""

    kernel: str
    args: list[Arg]
    grid: list[int]
    axis: str | None  # the size made partial
    sizes: dict[str, int] = field(default_factory=dict)
    label: str = ""
    # Constexprs the callers pass as literals that this launch sets otherwise, to take the branch the
    # finding's line sits under (`if not IS_KDA: ... else: <line>` with every caller passing False):
    # parameter -> the callers' text. A confirmation on such a launch is latent.
    unpinned: dict[str, str] = field(default_factory=dict)
    # pointer parameter -> the rows of its tensor (the extent of its widest-strided axis) in this launch:
    # a host fact on a tensor's leading dimension (`b.size(0) % align() == 0`) is read against it.
    rows: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "grid": self.grid, "axis": self.axis, "label": self.label,
                "sizes": self.sizes, "args": [a.to_dict() for a in self.args]}

    def brief(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.sizes.items())
        return f"{shown}; grid {tuple(self.grid)}"


class SynthesisError(Exception):
    """No launch can be built (the reason is the message)."""


def autotune_config(kernel: Kernel) -> dict[str, Any]:
    """The first config of `triton.autotune(configs=[...])` whose values are literals."""
    call = kernel.autotune
    if call is None:
        return {}
    configs = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "configs"), None)
    if not isinstance(configs, (ast.List, ast.Tuple)):
        return {}
    for config in configs.elts:
        if isinstance(config, ast.Call) and config.args and isinstance(config.args[0], ast.Dict):
            values = {}
            for k, v in zip(config.args[0].keys, config.args[0].values):
                key, value = literal(k), literal(v)
                if isinstance(key, str) and value is not None:
                    values[key] = value
            if values:
                return values
    return {}


def heuristic_keys(kernel: Kernel) -> set[str]:
    call = kernel.heuristics
    if call is None or not call.args or not isinstance(call.args[0], ast.Dict):
        return set()
    return {k.value for k in call.args[0].keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}


@dataclass
class Facts:
    """What the finding and the analysis say about the launch to build."""

    line: int
    code: str
    flags_off: dict[str, bool]  # flags the finding is reachable under, with that value
    walk: str | None  # the offset the finding walks (`offs_k`)
    tile: str | None  # the tile it walks in (`BLOCK_K` or a literal)
    axis_hints: list[str]  # sizes the notes or the fix name
    launch_args: dict[str, str]  # kernel parameter -> host text, from one launch site
    multiples: set[tuple[str, str]]  # (a, b): the host keeps a % b == 0
    even_flags: dict[str, bool]  # evenness flags of the kernel -> the value promising full tiles
    launch: Any = None  # one launch site (tritonlint's Launch record), if any
    program_axis: tuple[int, str, str] | None = None  # (axis, size, tile) the notes name
    flag_tiles: dict[str, frozenset[str]] = field(default_factory=dict)  # flag -> tiles it vouches for (the analysis's)
    # kernel parameter -> where the callers leave the host flag it is given at its default (left_defaults):
    # `launch_args` holds that default as a literal, as if the launch passed it.
    defaulted: dict[str, str] = field(default_factory=dict)
    weak: WeakFacts | None = None  # the weak evenness predicate the finding names (weak_predicates.py)
    # The launching function's locals before the launch (name -> value text), where it is in the kernel's
    # file: a grid extent named by one of them (host_extents).
    host: dict[str, str] = field(default_factory=dict)
    # kernel parameter -> (M, note, literal callers) where every path into the launching function pads the size
    # it is given to a multiple of M, or runs it at literal values (a test, a benchmark) that M divides, further
    # up the calls (caller_padding): witness-only, for latent marks.
    caller_padded: dict[str, tuple[int, str, tuple[tuple[str, tuple[int, ...]], ...]]] = field(default_factory=dict)
    # kernel parameter -> the integer literals the host can pass it (derived_ends.host_constexpr_values):
    # the values a constexpr that a loop end is computed from is varied over.
    host_values: dict[str, list[int]] = field(default_factory=dict)


def facts_from(diagnostic: Any, launches: list[Any], even_flags: dict[str, bool],
               flag_tiles: dict[str, frozenset[str]] | None = None) -> Facts:
    notes = list(diagnostic.notes)
    flags: dict[str, bool] = {}
    walk = tile = None
    hints: list[str] = []
    program_axis = None
    for note in notes:
        m = re.match(r"reachable when (.+)$", note)
        if m:
            for part in re.split(r",| and ", m.group(1)):
                f = re.match(r"\s*`?(\w+)`? is (True|False)", part)
                if f:
                    flags[f.group(1)] = f.group(2) == "True"
        m = re.search(r"walks `([^`]+)` \(tiles of ([^)]+)\)", note)
        if m:
            walk, tile = m.group(1), m.group(2)
            # Tiles of `BLOCK_K//32` (one scale per 32 elements): the size is walked in tiles of BLOCK_K.
            per = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*//\s*\w+\s*", tile)
            tile = per.group(1) if per else tile
        m = re.search(r"along axis (\d+), whose tile is partial unless (\w+) is a multiple of (\w+)", note)
        if m:
            program_axis = (int(m.group(1)), m.group(2), m.group(3))
        m = re.search(r"unless (\w+) is a multiple of (\w+)", note)
        if m:
            hints.append(m.group(1))
            tile = tile or m.group(2)
        for word in re.findall(r"`([^`]+)`", note):
            hints += re.findall(r"[A-Za-z_]\w*", word)
    if diagnostic.fix is not None:
        hints += re.findall(r"[A-Za-z_]\w*", diagnostic.fix.title)
    hints += re.findall(r"`([A-Za-z_]\w*)`", diagnostic.message)
    args: dict[str, str] = {}
    multiples: set[tuple[str, str]] = set()
    first = launches[0] if launches else None
    for launch in launches[:1]:
        args = dict(launch.args)
        multiples |= set(launch.multiples)
        multiples |= padded(launch)
    return Facts(diagnostic.line, diagnostic.code, flags, walk, tile, hints, args, multiples, even_flags, first,
                 program_axis, dict(flag_tiles or {}), weak=weak_facts_of(diagnostic))


# A host value rounded up before the launch: `cdiv(x, C) * C`, `math.ceil(x / C) * C`,
# `(x + C - 1) // C * C`, `round_up(x, C)`; or `triton.next_power_of_2(x)`.
_ROUNDED = (
    re.compile(r"cdiv\((?P<x>.+),\s*(?P<c>\w+)\)\s*\*\s*(?P=c)$"),
    re.compile(r"ceil\((?P<x>.+)/\s*(?P<c>\w+)\)\s*\*\s*(?P=c)$"),
    re.compile(r"\((?P<x>.+)\+\s*(?P<c>\w+)\s*-\s*1\s*\)\s*//\s*(?P=c)\s*\*\s*(?P=c)$"),
    re.compile(r"round_up\((?P<x>.+),\s*(?P<c>\w+)\)$"),
)


def padded(launch: Any) -> set[tuple[str, str]]:
    """(kernel size parameter, C) for each argument the host pads to a multiple of C before the
    launch ("pow2" for a power of two): the kernel never sees the partial tiles a witness makes there."""
    out: set[tuple[str, str]] = set()
    for param, values in getattr(launch, "allocations", {}).items():
        for text, _line in values:
            text = text.strip()
            if re.search(r"next_power_of_2\(", text) and text.endswith(")"):
                out.add((param, "pow2"))
                continue
            for pattern in _ROUNDED:
                m = pattern.search(text)
                if m:
                    c = m.group("c")
                    # A literal, or the host name of a kernel parameter (`BLOCK_M=block_m`).
                    named = [p for p, arg in launch.args.items() if arg == c]
                    out.add((param, c if c.isdigit() else (named[0] if named else c)))
                    break
    return out


def rounded_from(launch: Any) -> dict[str, tuple[str, str]]:
    """Kernel parameter -> (kernel parameter, C) where the host passes the second's argument rounded up
    to a multiple of C as the first (`seqlen_q_rounded = math.ceil(seqlen_q / 128) * 128`, both passed):
    the witness keeps the relation, so rows the host pads stay padded in its launch."""
    out: dict[str, tuple[str, str]] = {}
    for param, values in getattr(launch, "allocations", {}).items():
        if len(values) != 1:
            continue
        text = values[0][0].strip()
        for pattern in _ROUNDED:
            m = pattern.search(text)
            if m:
                x, c = m.group("x").strip(), m.group("c")
                sources = [p for p, arg in launch.args.items() if arg == x and p != param]
                named = [p for p, arg in launch.args.items() if arg == c]
                if sources:
                    out[param] = (sources[0], c if c.isdigit() else (named[0] if named else c))
                break
    return out


def launch_axes(launch: Any, params: list[str], host: dict[str, str] | None = None) -> dict[int, tuple[str, str]]:
    """Program axis -> (kernel size parameter, tile) that a launch site's rounded-up grid divides; an extent
    the host names by a local it does not pass stands for the row stride it passes (host_extents)."""
    out: dict[int, tuple[str, str]] = {}
    if launch is None:
        return out
    for i, axis in enumerate(launch.grid):
        if not axis.extent:
            continue
        sizes = [p for p, text in launch.args.items() if text == axis.extent and p in params]
        if not sizes and host:
            stride = row_stride_for(axis.extent, host, dict(launch.args), params)
            sizes = [stride] if stride is not None else []
        tiles = [axis.meta_key] if axis.meta_key else [p for p, text in launch.args.items() if text == axis.size]
        if not tiles and axis.size.isdigit():
            tiles = [axis.size]
        if sizes and tiles:
            out[i] = (sizes[0], tiles[0])
    return out


def launch_offsets(launch: Any, params: list[str]) -> dict[int, tuple[str, str]]:
    """Program axis -> (kernel size parameter, what the host subtracts from it) where the launch's grid
    divides a difference of kernel arguments (`cdiv(n - start, BLOCK)` beside `start` passed and added to
    the offsets): the programs cover the size past that start, not the whole size; a literal or another
    parameter's host text."""
    out: dict[int, tuple[str, str]] = {}
    if launch is None:
        return out
    for i, axis in enumerate(launch.grid):
        try:
            extent = ast.parse(axis.extent, mode="eval").body if axis.extent else None
        except SyntaxError:
            continue
        if not (isinstance(extent, ast.BinOp) and isinstance(extent.op, ast.Sub)):
            continue
        left, right = ast.unparse(extent.left).replace(" ", ""), ast.unparse(extent.right).replace(" ", "")
        sizes = [p for p, text in launch.args.items() if text.replace(" ", "") == left and p in params]
        starts = [p for p, text in launch.args.items() if text.replace(" ", "") == right and p in params]
        if sizes and (starts or right.isdigit()):
            out[i] = (sizes[0], starts[0] if starts else right)
    return out


def _assigned(facts: Facts, param: str) -> Any:
    """The smallest literal the launch site's argument name is assigned before the launch (`BLOCK_K = 128`)."""
    if facts.launch is None:
        return None
    values = []
    for text, _line in facts.launch.allocations.get(param, ()):
        try:
            value = literal(ast.parse(text, mode="eval").body)
        except SyntaxError:
            continue
        if isinstance(value, (int, bool)) and not isinstance(value, dict):
            values.append(value)
    return min(values) if values else None


def launch_literal(text: str) -> Any:
    """The literal a launch site passes (`BLOCK=64`), or None; a host text that is no Python expression
    on its own (cut out of a longer call) is no literal."""
    try:
        return literal(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return None


def _walk_var(walk: str | None) -> str | None:
    if not walk:
        return None
    m = re.match(r"[A-Za-z_]\w*", walk)
    return m.group(0) if m else None


def flag_sizes(uses: Uses, flag: str, sizes: set[str]) -> set[str]:
    """The sizes an evenness flag stands for: those compared in the branches of the tests naming it."""
    out: set[str] = set()
    for node in ast.walk(uses.fn):
        if isinstance(node, (ast.If, ast.IfExp)) and flag in Uses._names(node.test):
            body = node.body if isinstance(node.body, list) else [node.body]
            orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
            for part in [*body, *orelse]:
                for c in ast.walk(part):
                    if isinstance(c, ast.Compare):
                        out |= uses.reached(Uses._names(c)) & sizes
    return out


def setter_sizes(kernel: Kernel, facts: Facts, flag: str, sizes: set[str]) -> set[str]:
    """The sizes an evenness flag's setter tests: the kernel's arguments a `triton.heuristics`
    lambda for it reads (`args["K"] % args["BLOCK_K"] == 0`), or the kernel parameters whose
    host text the launch site's argument for it names (`K % BLOCK_K == 0` with `K` passed as K)."""
    out: set[str] = set()
    call = kernel.heuristics
    if call is not None and call.args and isinstance(call.args[0], ast.Dict):
        for k, v in zip(call.args[0].keys, call.args[0].values):
            if isinstance(k, ast.Constant) and k.value == flag:
                for node in ast.walk(v):
                    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                            and node.slice.value in sizes:
                        out.add(str(node.slice.value))
    text = facts.launch_args.get(flag)
    if text:
        try:
            named = {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
        except SyntaxError:
            named = set()
        for param, host in facts.launch_args.items():
            if param in sizes and host.strip() in named:
                out.add(param)
    return out


def _stands_for_another(related: set[str], axis: str | None) -> bool:
    """Whether an evenness flag vouches for another size than `axis`: the sizes its branches
    compare or its setter tests are known, and `axis` is not among them."""
    if axis is None:
        return False
    return bool(related) and axis not in related


def synthesize(extracted: Extracted, facts: Facts, *, owner: str | None = None,
               default_tile: int = DEFAULT_TILE, even_others: bool = False,
               float_dtype: str = "float32", whole_tiles: bool = False,
               co_walks: bool = False, single_rows: bool = False) -> list[tuple[Launch, Launch]]:
    """Candidate launches (partial tiles on the finding's axis), each with its control (full tiles).

    With `even_others`, the evenness flags the finding does not name and that stand for other sizes
    than the one made partial take their full-tile side (`if EVEN_M or EVEN_K:` needs EVEN_M True
    to reach the unmasked twin); those sizes stay whole multiples of every tile, as the flag promises.

    With `whole_tiles`, each control's size is a whole number of the largest tile too, not only of the
    finding's: a kernel may walk one size in tiles of two blocks (`start_m = pid * BLOCK_N` stepping
    by `BLOCK_M`), and is then in bounds only where the size is whole in both.

    Where the finding names a weak evenness predicate (`facts.weak`, weak_predicates.py), its walked size
    comes first, at sizes the predicate lets through with a partial tile of the tile it fails to imply.

    With `co_walks` (the run at the launcher's tile defaults, whose tiles may differ), the finding's axis is first
    one element past a smaller tile that walks the same size beside the finding's (co_walks.py), a loop up to a
    chunk's start walks the chunk's size, a program id a jit helper splits is read as the kernel's own
    (helper_returns.py) and a grid axis the launch model could not read is the host's arithmetic (host_grid.py).

    With `single_rows` (a run once more where nothing confirmed), the one candidate is the first partial-tile one
    with the sizes that scale the flagged row's start at 1 (single_rows.py); where there are none, the same
    candidates as without it."""
    weak = facts.weak
    kernel = extracted.kernel
    uses = Uses(kernel, extracted.helpers, split_programs=co_walks)
    pointers = uses.pointers()
    if not pointers:
        raise SynthesisError(f"`{kernel.name}` loads or stores through no parameter it takes")
    if single_rows and not row_scale_sizes(kernel.node, facts.line, ACCESS, set(uses.params) - set(pointers), uses.defs):
        return []  # no size scales the flagged row's start (any parameter counted): no launch of its own to try
    strides = uses.stride_params() - set(pointers)
    sizes = {p for p in uses.params if p not in uses.constexprs} - set(pointers) - strides
    ordered_sizes = [p for p in uses.params if p in sizes]
    # Segment boundaries read from memory (`bos = P[b]`, `eos = P[b + 1]`): a pseudo size, the
    # segments' length, made partial like any size; P holds ROW_PROGRAMS segments of that length
    # and the tensors the segments index hold all of them.
    segments = {p: f"len({p} segment)" for p in sorted(uses.segment_pointers()) if p in pointers}
    counts = scalar_counts(uses)
    # A size held in memory (`k_end = tl.load(k_end_ptr + pid)` ending the walk): a pseudo size too, the
    # value the tensor is filled with; every program walks that far, so the tensors it bounds hold one.
    held = {p: f"value of {p}" for p in sorted(loaded_bounds(uses))
            if p in pointers and p not in segments and p not in counts}
    uses.aliases = {**segments, **held}
    sizes |= set(segments.values()) | set(held.values())
    ordered_sizes = list(segments.values()) + list(held.values()) + ordered_sizes
    defaults = defaults_of(kernel.node)
    tuned = autotune_config(kernel)
    heur = heuristic_keys(kernel)

    # Constexpr values. A constexpr that bounds offsets like a size (`n: tl.constexpr`, `offs < n`),
    # with no value from the callers, is made partial like any size.
    const_sizes = uses.constexpr_sizes()
    consts: dict[str, Any] = {}
    guessed: set[str] = set()  # constexprs nobody gives a value (no caller, default, config)
    # TL111: every launch passes a loop's end that keeps its tiles whole (`K_DIM=256`, `BLOCK_K=64`). The
    # finding is the loop for any other end: that end is made partial as a size, and the launch is
    # latent (`runner._latent`: the callers pass another value).
    caller_ends = {p: facts.launch_args[p] for p in const_sizes if facts.code == "TL111"
                   and p in facts.launch_args and launch_literal(facts.launch_args[p]) is not None}
    for p in uses.params:
        if p not in uses.constexprs or p in heur:
            continue
        value: Any = None
        if p in caller_ends:
            sizes.add(p)
            ordered_sizes.append(p)
            continue
        if p in facts.flags_off:
            value = facts.flags_off[p]
        elif p in facts.launch_args and launch_literal(facts.launch_args[p]) is not None:
            value = launch_literal(facts.launch_args[p])
        elif _assigned(facts, p) is not None:
            value = _assigned(facts, p)
        elif p in tuned:
            value = tuned[p]
        elif p in facts.even_flags:
            value = not facts.even_flags[p]  # the side where tiles can be partial
        elif p in defaults and literal(defaults[p]) is not None:
            value = literal(defaults[p])
        elif p in const_sizes:
            sizes.add(p)
            ordered_sizes.append(p)
            continue
        else:
            value = _guess_constexpr(uses, p)
            if value == DEFAULT_TILE:
                value = default_tile
            guessed.add(p)
        consts[p] = value
    ordered_sizes.sort(key=uses.order)
    for key, value in tuned.items():  # autotune may set parameters the kernel does not annotate
        if key in uses.params and key not in consts and key not in heur:
            consts[key] = value
    # The kernel's own constraints (`tl.static_assert`, `assert`, non-empty power-of-two `arange`s):
    # the values chosen here, never those the callers pass or the finding needs, change to keep them.
    # Evenness flags are kept too: their value is the side where tiles can be partial, and taking the
    # other side to reach a line (or keep an assertion) would launch partial tiles under a flag that
    # promises whole ones (fixture flag_named_oddly's `else:` twin).
    kept = {p for p in consts if p in facts.flags_off or p in facts.even_flags or _assigned(facts, p) is not None
            or (p in facts.launch_args and launch_literal(facts.launch_args[p]) is not None)}
    rules = constraints_of(kernel.node, extracted.helpers) + complementary(launch_tests(facts.launch), uses.constexprs) \
        + bound_where_read(kernel.node)
    if per_tile(kernel.node, facts.tile) is not None:
        # A walk in groups per tile (`arange(0, BLOCK_K // 32)`): one group a tile steps through whole
        # groups whatever the size; two or more let a partial tile's groups pass the last one there is.
        rules.append(Constraint(ast.Compare(left=ast.Name(id=str(facts.tile), ctx=ast.Load()), ops=[ast.Gt()],
                                            comparators=[ast.Constant(value=1)]), (), f"{facts.tile} > 1"))
    local = {**module_constants(extracted.source), **locals_of(kernel.node)}
    chosen_order = sorted((p for p in consts if p not in kept), key=lambda p: (p in tuned, p in defaults))
    # First the constexpr branches the flagged line sits under (taken from the side that reaches it),
    # then the kernel's assertions with those branch values kept.
    inside = in_kernel_line(kernel.node, facts.line)
    reach = reaching(kernel.node, facts.line) if inside else []
    # The side where the flagged access's mask local is None (`else: mask = None`) first: there it is unmasked.
    reach += none_mask_reach(kernel.node, uses, facts.line, reaching) if inside else []
    reach += _definition_reach(kernel.node, uses, facts)
    # Runtime parameters the kernel tests with `is None`. An optional input pointer (a bias, a flexpoint
    # scale, expert routing data) is passed as None, as callers do that lack it: each one the launch
    # gives brings its own dtype rules and data layout the finding does not need. Not the pointer the
    # flagged access goes through, nor one the branches the line sits under or an assertion ask for
    # (`if ExptData is None: ... else: tl.static_assert(M is None)`); sizes are given unless asked for.
    # Where the flagged line is in a helper, which of its arguments it reads is not followed: all given.
    optional = [p for p in optional_params(kernel.node, uses.constexprs, extracted.helpers) if p not in consts]
    optional.sort(key=lambda p: p not in pointers)
    in_kernel = kernel.node.lineno <= facts.line <= (kernel.node.end_lineno or 0)
    flagged = {uses.root(e) for e in uses.accesses if e.lineno <= facts.line <= (e.end_lineno or e.lineno)}
    env = {**consts, **{p: ABSENT if in_kernel and p in pointers and p not in flagged else PRESENT for p in optional}}
    free = chosen_order + optional
    before_reach = dict(env)
    env, _unreached = satisfy(reach, env, free, local)
    unpinned: dict[str, str] = dict(caller_ends)
    if _unreached:
        # The callers' literals keep the line's branch from running: the other side is taken all the
        # same (the finding is then latent, `runner._latent`), the other literals kept as they pass them.
        pinned = [p for p in consts if p in kept and p not in facts.flags_off and p not in facts.even_flags
                  and p in facts.launch_args and launch_literal(facts.launch_args[p]) is not None]
        trial, still = satisfy(reach, env, pinned, local)
        if len(still) < len(_unreached):
            unpinned.update({p: facts.launch_args[p] for p in pinned if trial[p] != env[p]})
            env, _unreached = trial, still
    steered = {p for p in free if env[p] is not before_reach[p] and env[p] != before_reach[p]}
    # An optional parameter the line needs as it is (its pointer, or a branch on it the line sits under)
    # stays so: an assertion elsewhere is no reason to drop the access the finding is about.
    steered |= {p for p in optional if (in_kernel and p in flagged) or len(broken(
        reach, {**env, p: ABSENT if env[p] is PRESENT else PRESENT}, local)) > len(_unreached)}
    spanned = arange_extents(kernel.node)
    env, _still_broken = satisfy(rules, env, sorted((p for p in free if p not in steered), key=lambda p: p in spanned),
                                 local)
    nulls = {p for p in optional if env[p] is ABSENT}
    consts = {k: v for k, v in env.items() if k not in optional}
    branch_env = env  # constexprs and which optional parameters are None: the branches the launch takes
    # Non-constexpr flags the finding names (`EVEN_K` passed as a plain bool).
    flag_args = {p: v for p, v in facts.flags_off.items() if p in sizes}

    # A local tile's value on the branches taken, per name: every build asks again, and neither `consts`,
    # `branch_env` nor `local` changes once the branches are chosen.
    mode_values: dict[str, Any] = {}

    def value_of(name: str | None) -> int:
        if name is None:
            return default_tile
        if name.isdigit():
            return int(name)
        v = consts.get(name)
        if name not in consts:  # a tile the kernel defines per mode (`PACKED = BLOCK_K // 32 * 32`)
            if name not in mode_values:
                mode_values[name] = taken_value(kernel.node, name, branch_env, local)
            v = mode_values[name]
            v = v if _positive(v) and v > 1 else None  # a tile of 1 has no partial tail to launch
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else DEFAULT_TILE

    tiles = [v for v in consts.values() if isinstance(v, int) and not isinstance(v, bool) and v > 1]
    base = 2 * max(tiles + [DEFAULT_TILE])
    base = min(base, 256)

    tile = value_of(facts.tile)
    # Tiles of a tile's groups (`GROUPS = BLOCK_K // GROUP_K`): the size is walked in tiles of BLOCK_K.
    dividend = per_tile(kernel.node, facts.tile)
    if dividend is not None and dividend in consts:
        tile = value_of(dividend)
    local_tiles = {n.args[1].id for n in ast.walk(kernel.node) if isinstance(n, ast.Call) and call_name(n) == "arange"
                   and len(n.args) == 2 and isinstance(n.args[1], ast.Name) and n.args[1].id not in consts
                   and taken_value(kernel.node, n.args[1].id, branch_env, local) is not None}
    int_like = uses.int_params() | set(segments.values()) | set(held.values())
    # Program axis -> (the size its tiles walk, the tile): the notes, the launch site, the kernel's masks.
    axes: dict[int, tuple[str | None, str | None]] = dict(uses.program_axes())
    for a, pair in launch_axes(facts.launch, uses.params, facts.host).items():
        axes[a] = pair
        if pair[0] in strides:
            # A row length the grid walks in tiles (`cdiv(hidden, block)` beside `hidden` passed as the
            # stride): a size too, made partial like any, and laid out as the row length it is.
            strides.discard(pair[0])
            sizes.add(pair[0])
            ordered_sizes.append(pair[0])
            ordered_sizes.sort(key=uses.order)
    host_order: list[str] = []  # host extents the grid covers, no parameter of the kernel
    # A grid over a host extent the kernel never receives (`cdiv(n_rows * n_cols, unroll)` beside
    # `(x, out, unroll)`): the extent is a pseudo size, made partial like any; the tensors the axis
    # walks hold exactly that many elements, as the host's tensors the extent counts do. Where the
    # kernel takes sizes of its own, only on the axis the finding's tile is partial along, and only
    # when none of them is read to bound that axis: there the host extent is the only one the
    # programs cover (`cdiv(batch, 256)` with `batch` a product of the dims the kernel is passed).
    finding_axis = facts.program_axis[0] if facts.program_axis is not None else None
    for a, (extent, tile_name) in host_extents(facts.launch, uses.params).items():
        if (not sizes or a == finding_axis) and axes.get(a, (None, None))[0] is None and tile_name in consts:
            axes[a] = (extent, tile_name)
            host_order.append(extent)
    host_sizes = set(host_order)
    sizes |= host_sizes
    ordered_sizes += host_order
    int_like |= host_sizes
    if facts.program_axis is not None and facts.program_axis[1] in sizes:
        axes[facts.program_axis[0]] = (facts.program_axis[1], facts.program_axis[2])
    # Axes whose programs cover a size past a start the host subtracts: the grid counts that span's tiles.
    offsets = {a: pair for a, pair in launch_offsets(facts.launch, uses.params).items()
               if axes.get(a, (None, None))[0] == pair[0]}
    # Tile indices computed from one program id (grouped or linearized): that axis runs a program
    # per tile of each size they walk, so the partial tile of every one of them is launched.
    grouped = {dim: {s: t for s, t in walked.items() if s in sizes}
               for dim, walked in uses.tile_indices(sizes).items() if axes.get(dim, (None, None))[0] is None}
    grouped = {dim: walked for dim, walked in grouped.items() if walked}
    # The axis to make partial: the size bounding the walked offset, then the sizes notes name.
    axis_order: list[str] = []
    if facts.program_axis is not None and facts.program_axis[1] in sizes:
        axis_order.append(facts.program_axis[1])
    elif facts.program_axis is not None and axes.get(facts.program_axis[0], (None, None))[0] in sizes:
        # The notes name a host extent the kernel is not passed (`hidden`): the size the launch's grid
        # on that axis was read to stand for (host_extents).
        axis_order.append(str(axes[facts.program_axis[0]][0]))
    owner_uses = uses
    if owner and owner != kernel.name and owner in extracted.helpers:
        owner_uses = uses.helper(owner) or uses
    walk = _walk_var(facts.walk)
    loop_walked: str | None = None
    if walk:
        b = owner_uses.bound(ast.Name(id=walk, ctx=ast.Load()), owner_uses.size_params() | sizes)
        if (b is None or b[0] not in ("size", "axis")) and owner_uses is not uses and walk not in owner_uses.params \
                and walk not in owner_uses.defs:
            # A jit helper's access whose offsets the kernel computes and hands it (`scale(s_ptr + k * BLOCK_K
            # + offs_k)`): the walk is the kernel's local, bounded where the kernel bounds it.
            b = uses.bound(ast.Name(id=walk, ctx=ast.Load()), uses.size_params() | sizes)
            if b is None or b[0] not in ("size", "axis"):  # bounded inside a sum (`i * T + offs < L`)
                b = uses.upper_bound_in_sum(walk, uses.size_params() | sizes)
        if b and b[0] == "div" and isinstance(b[1], tuple) and b[1][0] == "size":
            # Groups of a size (`arange(0, BLOCK_K // 32)` advanced a tile of K a step): K is walked, in
            # tiles of the dividend (BLOCK_K), not of the group count per tile.
            b = b[1]
            dividend = per_tile(kernel.node, facts.tile)
            if dividend is not None:
                tile = value_of(dividend)
        if b and b[0] == "size":
            axis_order.append(b[1])
        elif b and b[0] == "axis" and axes.get(b[1], (None, None))[0]:
            axis_order.append(str(axes[b[1]][0]))
            if facts.tile is None:
                tile = value_of(b[2])
        if (b is None or b[0] == "tile") and in_kernel:
            # Only its own tile bounds the walk (an access with no mask): the loop advancing it says what it
            # walks, and the flagged tensor holds that size along the walk (not one tile of it).
            looped = loop_sizes(kernel.node, facts.line, sizes & int_like)
            chunked = chunk_loop_size(uses, facts.line, sizes & int_like) if co_walks and not looped else None
            looped = [chunked] if chunked is not None else looped
            loop_walked = looped[0] if looped else None
            axis_order += looped
    # A bare tile at the flagged access stands for the size the host rounds it up from, or the size the
    # kernel compares those lanes with elsewhere (tied_tiles): that size is the one made partial. Only
    # where the walk is that bare tile: a tile whose walk a size or a program axis bounds keeps its value.
    # The walk a local of the kernel (`slot`, `offs`), not an expression the notes spell (`tl.arange(0,B)`).
    bare = walk is not None and facts.walk == walk and walk in uses.defs and not axis_order and facts.tile is not None
    pow2 = {t: s for t, s in pow2_sources(facts.launch, uses.params).items()
            if bare and t == facts.tile and t in consts and s in sizes}
    tied = compared_size(uses, walk, sizes & int_like) if bare else None
    tile_size = pow2.get(facts.tile or "") or tied
    if tile_size is not None:
        axis_order.append(tile_size)
    axis_order += [h for h in facts.axis_hints if h in sizes and h in int_like]
    axis_order += sorted((sizes & int_like) - set(axis_order), key=uses.order)
    if weak is not None and weak.walked in sizes:
        axis_order.insert(0, weak.walked)
    axis_order = [a for a in dict.fromkeys(axis_order) if a not in flag_args][:4]

    # What the analysis relates each flag to: its tiles, then the sizes those tiles walk.
    walked_in = {t: {s for s, t2 in axes.values() if t2 == t and s in sizes} for t in set().union(*facts.flag_tiles.values())}
    if walk and facts.tile and axis_order:
        walked_in.setdefault(facts.tile, set()).add(axis_order[0])
    related = {flag: set().union(*(walked_in.get(t, set()) for t in facts.flag_tiles.get(flag, ())))
               # The setter's own test (`sq % BLOCK_M == 0`) names what the flag vouches for; the sizes its
               # branches compare may be other flags' (`if EVEN_M & EVEN_N:` around a headdim mask).
               or setter_sizes(kernel, facts, flag, sizes) or flag_sizes(uses, flag, sizes)
               for flag in facts.even_flags if flag in consts}
    if even_others and not any(_stands_for_another(related.get(f, set()), a)
                               for f in facts.even_flags if f in consts and f not in facts.flags_off
                               for a in sizes):
        return []

    rank = _grid_rank(facts.launch)
    exact = {i for i, a in enumerate(facts.launch.grid) if a.kind == "exact"} if rank is not None else set()
    free_strides = _free_strides(uses, guessed, pointers, sizes, strides)
    own_base = {size: min(base, 2 * value_of(t)) for size, t in axes.values() if size is not None and t is not None}
    for walked in grouped.values():
        for size, t in walked.items():
            own_base.setdefault(size, min(base, 2 * value_of(t)))

    rounded = rounded_from(facts.launch)
    literal_locals = {n: v for n, v in ((n, literal(e)) for n, e in locals_of(kernel.node).items())
                      if isinstance(v, int) and not isinstance(v, bool) and v > 0}
    split = split_axes(kernel.node, axes)
    every_counted = loop_counted(kernel.node, sizes, segments)
    counted = every_counted - set(axis_order[:1])
    row_counts = index_only_sizes(kernel.node, sizes) - set(axis_order[:1])
    starts = shift_only_sizes(kernel.node, sizes) - set(axis_order[:1])

    index_locals = index_loads(uses, list(pointers))  # once: `loaded_as_index` follows locals deep
    index_starts = {q: uses.first_valid_index(q) for q in set(index_locals.values())}

    # The loop advancing the flagged tile ends at a local computed from a constexpr (`r = 2 ** BITS`):
    # that constexpr's values, not a size, make its last tile partial (derived_ends).
    derived = derived_end(kernel.node, facts.line, uses.constexprs, facts.tile) if in_kernel and walk else None
    if derived is not None and (derived.source not in consts or derived.source in kept):
        derived = None  # a value the callers pass as a literal is the only one they admit
    # A persistent kernel's tasks (`for t in range(pid, total, num_ctas)`): few of them, every one run.
    task_sizes, program_counts, task_splits = grid_stride_loops(kernel.node, sizes) if derived is not None \
        else (set(), set(), set())
    split_programs = split_program_axes(kernel.node) if derived is not None else {}
    split_rows = split_row_bounds(kernel.node, sizes) if split_programs else set()

    # Program axes whose tile walks the rows of a block the flagged pointer lays out (row_spans.py): the
    # grid covers the block's span there (`V + K` rows), where no launch site's grid says otherwise.
    launched = set(launch_axes(facts.launch, uses.params, facts.host))
    span_axes = spanned_axes([d for p in sorted(f for f in flagged if f is not None) for e in pointers.get(p, [])
                              if e.lineno <= facts.line <= (e.end_lineno or e.lineno)
                              for d in uses.dims(e, sizes, strides)], launched)

    # What every build reads of the pointers and does not vary (their taken accesses, dims, dtypes): read once.
    readings = BuildReadings(uses, kernel.node, branch_env, local)

    def build(axis: str | None, extent: int | None, label: str, derived_value: int | None = None,
              ones: frozenset[str] = frozenset()) -> Launch:
        # A size a program axis walks in its own tiles gets two of them, not two of the largest tile:
        # the same partial tiles, a fraction of the programs (the interpreter runs each one).
        size_values: dict[str, int] = {s: own_base.get(s, base) for s in ordered_sizes}
        # A size a loop counts one by one costs a pass of its body per unit: two passes show its stepping.
        # (With a derived loop end varied, no size is made partial: every counted size takes two passes.)
        loops = every_counted | task_sizes if derived_value is not None else counted
        size_values.update({s: min(size_values[s], LOOP_COUNT) for s in loops if s in size_values})
        if derived_value is not None:
            size_values.update({s: 1 for s in task_splits if s in size_values})
        # A size that only splits a program id into indices: as many rows as the grid runs (index_sizes).
        size_values.update({s: min(size_values[s], ROW_COUNT) for s in row_counts if s in size_values})
        # A size only added to offsets is a start: one tile moves the window without leaving every buffer.
        size_values.update({s: min(size_values[s], tile) for s in starts if s in size_values and s != axis})
        size_values.update({s: 1 for s in ones if s in size_values and s != axis})  # a single row (single_rows)
        if axis is not None and extent is not None:
            size_values[axis] = extent
        # A tile the host rounds up from a size is that size's power of two in each launch.
        launch_consts = {**consts, **{t: next_pow2(size_values[s]) for t, s in pow2.items() if s in size_values}}
        # A loop end computed from a constexpr: the constexpr at this launch's value, the end a stride and an
        # extent of its own (`p * r`, `bin_indices` spanning `r`), the loop's walk for the flagged tensor.
        end_values: dict[str, int] = {}
        walked_end, layout_strides = loop_walked, strides
        if derived is not None and derived_value is not None:
            launch_consts[derived.source] = derived_value
            end_values[derived.local] = derived.at(derived_value) or 1
            walked_end, layout_strides = derived.local, strides | {derived.local}
        # Keep sizes the host keeps multiples of each other multiples.
        for a, b in facts.multiples:
            step = int(b) if b.isdigit() else consts.get(b)
            if a in size_values and a != axis and isinstance(step, int) and not isinstance(step, bool) and step > 0:
                size_values[a] = -(-size_values[a] // step) * step
        grid: list[int] = []
        for dim in range(max(list(axes) + [-1]) + 1):
            if rank is not None and dim >= rank:
                grid.append(1)  # an axis the package's launch does not have: one program, program id 0
                continue
            size, tile_name = axes.get(dim, (None, None))
            span_start = offsets[dim][1] if dim in offsets else "0"
            covered = size_values.get(size or "", 0) - (
                int(span_start) if span_start.isdigit() else size_values.get(span_start, 0))
            if dim in span_axes and rank is None:
                covered = sum(_extent(part, size_values, [], launch_consts, base, axes) for part in span_axes[dim])
            if dim in split:
                grid.append(value_of(split[dim]))  # a split K: one program per part (split_axes.py)
            elif size is not None and size in size_values and dim in exact:
                # The host divides this axis exactly (`rows_total // BLOCK`): whole tiles only.
                grid.append(max(0, covered // value_of(tile_name)))
            elif size is not None and size in size_values:
                grid.append(max(1, -(-covered // value_of(tile_name))))
            elif dim in grouped:
                grid.append(_prod([max(1, -(-size_values[s] // value_of(t))) for s, t in grouped[dim].items()]))
            else:
                grid.append(ROW_PROGRAMS if dim in axes else 1)
        if derived_value is not None:  # each split's rows, all of them (`s * M_PER_SPLIT + pid_idx`)
            for dim, (splits, count) in split_programs.items():
                if dim < len(grid) and splits < len(grid):
                    grid[dim] = value_of(count)
                    # The rows compared with the split row index: those the splits cover.
                    size_values.update({s: grid[splits] * grid[dim] for s in split_rows if s in size_values})
        if co_walks and rank is not None:
            # Axes the launch model could not read, at the number the host's own arithmetic gives (host_grid.py):
            # a split program id (`cdiv(T, BTL) * NH`) runs more programs than one size's tiles.
            grid += [1] * (rank - len(grid))
            values = {**launch_consts, **size_values}
            for dim, host_axis in enumerate(facts.launch.grid):
                programs = grid_programs(host_axis.text, facts.launch.args, values) if host_axis.kind == "unknown" \
                    else None
                grid[dim] = max(1, programs) if programs is not None else grid[dim]
        while _prod(grid) > MAX_PROGRAMS:
            i = grid.index(max(grid))
            grid[i] = max(1, grid[i] // 2)
        if derived_value is not None:
            size_values.update({s: _prod(grid) for s in program_counts if s in size_values})
        args: list[Arg] = []
        # A tensor bounded by a segment's end holds every segment.
        totals = {k: v * ROW_PROGRAMS if k in segments.values() else v for k, v in size_values.items()}
        totals.update(end_values)
        stride_values: dict[str, int] = {**size_values, **end_values}  # a size used as a row length keeps its value
        # A size the host passes rounded up from another (`seqlen_q_rounded`): rounded up from the value here.
        padded_rows: dict[str, int] = {}  # the rounded parameter -> its value
        for p, (source, c) in rounded.items():
            step = int(c) if c.isdigit() else consts.get(c)
            if p != axis and source in size_values and isinstance(step, int) and not isinstance(step, bool) \
                    and step > 0:
                padded_rows[p] = -(-size_values[source] // step) * step
                stride_values[p] = padded_rows[p]
                if p in size_values:
                    size_values[p] = padded_rows[p]
        # A constexpr row length (`slot * D`) is a stride whose value the launch already fixes.
        # A constexpr stride nobody gives a value (`stride_am: tl.constexpr`) takes the layout's, like an int one.
        stride_values.update({k: v for k, v in launch_consts.items() if isinstance(v, int) and not isinstance(v, bool)
                              and k not in stride_values and k not in free_strides})
        numels: dict[str, int] = {}
        rows: dict[str, int] = {}
        # Tiles the kernel defines per mode (`PACKED = SCALE_K * 32` on the branch taken): a walk in
        # them is a walk of the axis whose tile has the same value.
        # Literal locals too (`MX_PACK_DIVISOR: tl.constexpr = 32`): a divisor of a walk's groups.
        tile_consts = {**literal_locals, **launch_consts, **{t: value_of(t) for t in local_tiles}}
        mode_tiles = frozenset(local_tiles)
        for p, exprs in pointers.items():
            # Only the accesses on the constexpr branches this launch takes (`tl.load(w + k * s + n) if
            # W_KMAJOR else tl.load(w + n * s + k)` lays out `w` one way or the other).
            taken = readings.taken(exprs)
            extents: list[tuple[str | None, int]] = []
            ends = readings.inclusive_ends(p)  # `n + 1` entries by the kernel's repeated `v <= n`
            caps = readings.capped_ends(p)  # `(v <= n) & (v < CAP)`: CAP entries
            dims: list[tuple[str | None, Any]] = []
            products: list[str] = []  # row lengths spelled as products (`H*D`)
            for expr in taken:
                expr_dims = readings.taken_dims(expr, sizes, layout_strides)
                for d in expr_dims:
                    if d == (None, None):
                        continue  # a constant term (`... else 0`): it spans nothing, and must not hide the unit dim
                    same = next((i for i, e in enumerate(dims) if e[0] == d[0]), None)
                    if same is None:
                        dims.append(d)
                    elif one_tile(dims[same][1]) and isinstance(d[1], tuple) and d[1][0] == "size":
                        # `k_ptrs + start_n * stride_kn`, `k_ptrs = K + offs_n[:, None] * stride_kn`: the tile
                        # moved along the rows by a loop over the size; the rows span the size, not one tile.
                        dims[same] = d
            # Rows laid out with a rounded-up stride are as long as it: the host allocates them padded.
            row_lengths = {rounded[st][0]: padded_rows[st] for st, _b in dims if st in padded_rows}
            walked_axes: list[str | None] = []  # the size each entry of `extents` walks
            for stride, bound in dims:
                if stride is not None and stride.isdigit():
                    stride_values[stride] = int(stride)  # a literal row length (`index * 24`)
                if stride is not None and "*" in stride:
                    product = _row_product(stride, stride_values)  # `o_c * (H * D)`: rows of H * D
                    if product is not None:
                        stride_values[stride] = product
                    products.append(stride)
                past = 1 if isinstance(bound, tuple) and bound[0] == "size" and bound[1] in ends else 0
                extent = _extent(bound, totals, grid, tile_consts, base, axes, mode_tiles) + past
                if isinstance(bound, tuple) and bound[0] == "size" and bound[1] in caps:
                    cap = caps[bound[1]]
                    cap_bound = ("const", int(cap)) if cap.isdigit() else ("size", cap) if cap in sizes \
                        else ("tile", cap)
                    extent = max(extent, _extent(cap_bound, totals, grid, tile_consts, base, axes, mode_tiles))
                walked = bound[1] if isinstance(bound, tuple) and bound[0] == "size" else \
                    axes.get(bound[1], (None, None))[0] if isinstance(bound, tuple) and bound[0] == "axis" else None
                if stride is None and walked in row_lengths:
                    extent = max(extent, row_lengths[walked])
                if derived_value is not None and bound == ("tile", facts.tile):
                    # The tile the derived loop walks spans the loop's end in every tensor it indexes.
                    extent, walked = end_values.get(walked_end or "", extent), walked_end
                elif p in flagged and isinstance(bound, tuple) and bound[0] == "tile":
                    held_size = pow2.get(bound[1]) or (tied or walked_end if bound[1] == facts.tile else None)
                    extent = totals.get(held_size or "", extent)
                    if held_size is not None and held_size == walked_end:
                        walked = held_size  # the loop's size: laid out outermost, where its overrun leaves
                extents.append((stride, extent))
                walked_axes.append(walked)
            if p in flagged:
                extents = _finding_axis_outermost(extents, walked_axes, axis, stride_values)
            # A literal offset past the indexed terms (`index * 24 + 17`) reaches that far into the row.
            reach = max((uses.constant_reach(e) for e in exprs if uses.block_ptr_of(e) is None), default=0)
            numels[p] = _layout(extents, stride_values, reach)
            if _settle_products(products, stride_values):
                numels[p] = _layout(extents, stride_values, reach)
            widest = _widest_extent(extents, stride_values)
            if widest is not None:
                rows[p] = widest
            # A pointer local defined on several branches: the buffer holds what each definition reaches
            # (of the accesses on the branches this launch takes, as above).
            for expr in taken:
                if uses.block_ptr_of(expr) is not None:
                    continue
                for other in readings.other_definitions(expr, sizes, strides):
                    alternative = [(st, _extent(b, totals, grid, tile_consts, base, axes, mode_tiles)) for st, b in other
                                   if (st, b) != (None, None)]
                    laid_out = dict(stride_values)
                    alternative_numel = _layout(alternative, laid_out, reach)
                    if alternative_numel > numels[p]:
                        numels[p] = alternative_numel
                        # The strides that definition lays out (`offs_m * stride_bm` on the side the launch
                        # takes), where nothing else set them: else the rows it reaches overlap.
                        for name, value in laid_out.items():
                            stride_values.setdefault(name, value)
        # A tensor whose rows loaded indices pick holds every row the index fill names (gathered_rows).
        for p, exprs in pointers.items():
            if p in numels and index_locals:
                taken = readings.taken(exprs)
                numels[p] = max(numels[p], gathered_numel(uses, p, taken, numels, stride_values, index_starts,
                                                          index_locals))
        # A tensor the host pads to X elements (`torch.zeros(X)` filled from a shorter one) holds X here too.
        for p, length in getattr(facts.launch, "padded", {}).items():
            held_length = _padded_value(length, facts.launch.args, {**launch_consts, **size_values})
            if p in numels and held_length is not None:
                numels[p] = max(numels[p], held_length)
        value_ints: dict[str, int] = {}  # value parameters launched as ints, shown at what they are
        for p in uses.params:
            if p in nulls:
                args.append(Arg(p, "none"))
            elif p in segments:
                args.append(Arg(p, "tensor", numel=ROW_PROGRAMS + 1, dtype="int32", fill="segments",
                                value=size_values[segments[p]]))
            elif p in held:
                args.append(Arg(p, "tensor", numel=max(1, numels[p]), dtype="int32", fill="count",
                                value=size_values[held[p]]))
            elif p in counts:
                # A row count read from memory: as many rows as the launch's tiles cover on that axis.
                count_axis, count_tile = counts[p]
                covered = (grid[count_axis] if count_axis < len(grid) else 1) * value_of(count_tile)
                args.append(Arg(p, "tensor", numel=max(1, numels[p]), dtype="int32", fill="count", value=covered))
            elif p in pointers:
                index = readings.loaded_as_index(p)
                declared = readings.dtype_of(p)
                bits = not index and (readings.loaded_bits(p) or declared in ("uint8", "int8"))
                dtype = declared or ("int32" if index else "uint8" if bits else float_dtype)
                fill = "index" if index else "randint" if bits else "randn"
                scaled = None if index or declared else readings.scaled_dot_use(p)
                if scaled is not None:  # an operand or e8m0 scale of `tl.dot_scaled`: the type its format asks
                    dtype, fill = scaled
                # Indices start at the first one the kernel works on (1 past a null slot 0).
                start = readings.first_valid_index(p) if index else 0
                args.append(Arg(p, "tensor", numel=max(1, numels[p]), dtype=dtype, fill=fill,
                                value=start or None))
            elif p in consts:
                value = stride_values.get(p, launch_consts[p]) if p in free_strides else launch_consts[p]
                if even_others and p in facts.even_flags and p not in facts.flags_off and _stands_for_another(
                        related.get(p, set()), axis):
                    value = facts.even_flags[p]
                args.append(Arg(p, "constexpr", value=value))
            elif p in heur:
                continue
            elif p in flag_args:
                args.append(Arg(p, "int", value=int(flag_args[p])))
            elif p in strides:
                args.append(Arg(p, "int", value=stride_values.get(p, 1)))
            elif p in sizes and (p in int_like or p in facts.axis_hints):
                args.append(Arg(p, "int", value=size_values[p]))
            elif p in defaults and literal(defaults[p]) is None and dotted(defaults[p]) == "None":
                args.append(Arg(p, "none"))
            else:  # a value: an int where the kernel or host says so (`n: tl.int64`), else data
                passed = getattr(facts.launch, "args", None) or {}
                whole = int_scalar(kernel.node, p, passed.get(p), facts.host,
                                   literal(defaults[p]) if p in defaults else None, size_values.get(p))
                if whole is not None:
                    value_ints[p] = whole
                args.append(Arg(p, "int", value=whole) if whole is not None else Arg(p, "float", value=0.5))
        shown = {s: value_ints.get(s, size_values[s]) for s in ordered_sizes
                 if s in segments.values() or s in held.values() or s in host_sizes
                 or any(a.name == s and a.kind == "int" for a in args)}
        if derived is not None and derived_value is not None:  # the value that shaped the loop's end, first
            shown = {derived.source: derived_value, **shown}
        return Launch(kernel.name, args, grid, axis, shown, label, dict(unpinned), rows)

    pairs: list[tuple[Launch, Launch]] = []
    largest = max([t for t in tiles if t & (t - 1) == 0] + [tile])  # the largest power-of-two tile
    candidate_axes: list[str | None] = list(axis_order) or [None]
    only_weak = weak is not None and facts.code == "TL103"
    if only_weak:
        # The predicate's own finding: only sizes it lets through show it (its flag is True there alone).
        assert weak is not None
        if weak.walked not in sizes:
            raise SynthesisError(f"`{weak.walked}`, which `{weak.predicate}` tests, is no size `{kernel.name}` takes")
        candidate_axes = [weak.walked]
    first: tuple[str, int, int, tuple[str, str]] | None = None  # the first partial-tile candidate (axis, sizes, labels)
    for axis in candidate_axes:
        if weak is not None and axis == weak.walked:
            # Sizes the weak predicate lets through, its tile partial (the flag's even side, unmasked).
            sized = {**{s: own_base.get(s, base) for s in ordered_sizes}, **consts}
            for passing, whole, label in passing_sizes(weak, sized):
                pairs.append((build(axis, passing, label), build(axis, whole, f"{axis}={whole}")))
            if only_weak and not pairs:
                raise SynthesisError(f"no size of `{axis}` up to three tiles of `{weak.tile}` makes `{weak.predicate}` "
                                     "hold with a partial tile (or a name in it has no value here)")
            if only_weak:
                continue
        # A size that is one summand of a block's span (`V` of `V + K` rows, row_spans.py) on an axis walked
        # in the finding's tiles: the span is what the tiles cover, so it is the span made partial (and whole
        # in the control), `V` off whole tiles by what the other summands add.
        shift = 0
        if axis is not None and not whole_tiles and axis not in pow2.values():
            values = {**{s: own_base.get(s, base) for s in ordered_sizes}, **consts}
            rests = [span_rest(parts, axis, values) for dim, parts in span_axes.items()
                     if value_of(axes.get(dim, (None, None))[1]) == tile]
            shift = next((rest % tile for rest in rests if rest is not None), 0)
        # A tile past whole ones, a single partial tile (a row shorter than its block), one element over.
        shapes = [(m, r, tile) for m, r in ((2, tile // 2), (0, tile // 2), (1, 1))]
        if co_walks and axis is not None:
            # First one element past a smaller tile walking the same size (co_walks.py): its chunks start
            # where the finding's tiles may straddle the end.
            shapes[:0] = [(1, 1, co) for co in smaller_co_tiles(uses, axis, tile, consts, sizes)]
        for m, r, step in shapes:
            if axis is None or r <= 0 or r >= step:
                continue
            at = m * step + r - shift
            at = at if at > 0 else at + tile
            if axis in const_sizes and [c for c in broken(rules, {**branch_env, axis: at}, local)
                                        if c not in _still_broken]:
                continue  # the kernel asserts this constexpr size away (`tl.static_assert(n % BLOCK == 0)`)
            # The control: the same launch with the axis a whole number of tiles (a power of two where the
            # host rounds the tile up to one from this size: the tile then covers it exactly).
            whole_step = math.lcm(step, tile)
            if axis in pow2.values():
                whole = next_pow2(at)
            elif shift:
                whole = at + tile - r  # the span (this size and the rest) whole
            else:
                whole = -(-at // whole_step) * whole_step
            if whole_tiles:
                whole = -(-whole // largest) * largest
            labels = (f"{axis}={m}*{step}+{r}" if not shift else f"{axis}={at}",
                      f"{axis}={whole}" if whole_tiles or axis in pow2.values() or step != tile or shift
                      else f"{axis}={m + 1}*{tile}")
            pairs.append((build(axis, at, labels[0]), build(axis, whole, labels[1])))
            first = first or (axis, at, whole, labels)
    if single_rows and first is not None and not only_weak:
        # Once more, where no candidate showed it (runner): the first candidate with the sizes that scale the
        # flagged row's start at 1 (`i_bh * T * K` at T = 1: single_rows.py), where the kernel allows it.
        grid_walked = {size for size, _ in axes.values() if size}
        # Not a size the host keeps a multiple of another (`assert T % BT == 0`): 1 is no value it admits.
        kept = {a for a, _ in facts.multiples}
        ones = frozenset(row_scale_sizes(kernel.node, facts.line, ACCESS, sizes, uses.defs) - grid_walked
                         - const_sizes - kept - {first[0]})
        if ones and not [c for c in broken(rules, {**branch_env, **dict.fromkeys(ones, 1)}, local)
                         if c not in _still_broken]:
            axis1, at1, whole1, (partial_label, whole_label) = first
            single = ", ".join(f"{s}=1" for s in sorted(ones))
            return [(build(axis1, at1, f"{partial_label}, {single}", ones=ones),
                     build(axis1, whole1, f"{whole_label}, {single}", ones=ones))]
    if derived is not None:
        # The host's values where it gives any (`bits = 1 if bool else 4`), else small guesses. Where the
        # host's values all fill whole tiles, the guesses still show the hazard, latent: the callers pass
        # only those (`runner._latent` reads the launch's `unpinned`).
        host = facts.host_values.get(derived.source, [])
        chosen = split_values(derived, tile, host or list(GUESSED_VALUES))
        admitted = not host or chosen is not None
        if chosen is None and host:
            chosen = split_values(derived, tile, list(GUESSED_VALUES))
        if chosen is not None:
            part, whole = chosen
            end = f"{derived.local} = {ast.unparse(derived.value)}"
            partial_label = f"{derived.source}={part} ({end} = {derived.at(part)}, tiles of {tile})"
            whole_label = f"{derived.source}={whole} ({end} = {derived.at(whole)})"
            derived_pair = (build(None, None, partial_label, derived_value=part),
                            build(None, None, whole_label, derived_value=whole))
            if not admitted:
                for launch in derived_pair:
                    launch.unpinned[derived.source] = " or ".join(str(v) for v in host)
            pairs.insert(0, derived_pair)
    if not pairs:
        pairs.append((build(None, None, "default sizes"), build(None, None, "default sizes")))
    return pairs


def _grid_rank(launch: Any) -> int | None:
    """How many axes the launch site's grid has, where it was read as an expression (`lambda META:
    (cdiv(M, BM) * cdiv(N, BN),)` has one: a kernel's `program_id(1)` is then 0); None where unknown
    (a grid name the launch model did not resolve reads as one bare name)."""
    grid = getattr(launch, "grid", None)
    if not grid:
        return None
    if len(grid) == 1 and (grid[0].kind == "unknown" and re.fullmatch(r"[A-Za-z_][\w.]*", grid[0].text.strip())):
        return None
    return len(grid)


def _free_strides(uses: Uses, guessed: set[str], pointers: dict[str, list[ast.expr]], sizes: set[str],
                  strides: set[str]) -> set[str]:
    """Guessed constexprs that are only strides of the kernel's pointers (`rk[None, :] * stride_ak` with
    `stride_ak: tl.constexpr`): the layout gives them contiguous values, as it does int strides; a
    guess of 16 each would overlap the rows. Not one that shapes a tile or bounds an offset."""
    out: set[str] = set()
    for exprs in pointers.values():
        for expr in exprs:
            out |= {stride for stride, _bound in uses.dims(expr, sizes, strides) if stride in guessed}
    for name in list(out):
        if any(_shapes_with(node, name) for node in ast.walk(uses.fn)) \
                or any(name in Uses._names(c) for c in uses.compares):
            out.discard(name)
    return out


def in_kernel_line(fn: ast.FunctionDef, line: int) -> bool:
    return fn.lineno <= line <= (fn.end_lineno or 0)


def _definition_reach(fn: ast.FunctionDef, uses: Uses, facts: Facts) -> list[Any]:
    """The branch tests over the definition of the flagged pointer that walks the finding's offset,
    where the pointer has several (`if not IS_KDA: p = a + row` else `p = a + row * K + o_k`): the
    flagged line sits under neither, yet only the second definition runs past the tensor."""
    walk = _walk_var(facts.walk)
    if walk is None or not fn.lineno <= facts.line <= (fn.end_lineno or 0):
        return []
    pointer_names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and call_name(node) in ACCESS and node.args \
                and node.lineno <= facts.line <= (node.end_lineno or node.lineno):
            pointer_names |= Uses._names(node.args[0])
    out: list[Any] = []
    for name in sorted(uses.reached(pointer_names, depth=4)):
        values = uses.defs.get(name, ())
        walking = [v for v in values if walk in uses.reached(Uses._names(v), depth=4)]
        # Every definition walking it, each under its own branch (`if USE_INT4: p = ...` / `elif USE_INT8:
        # p = ...`): the first one's branch, else neither may run and the pointer is never defined.
        if len(values) > 1 and walking:
            out += reaching(fn, walking[0].lineno)
    return out


def _row_product(stride: str, stride_values: dict[str, int]) -> int | None:
    """The value of a row length spelled as a product (`H*D`), from the values its factors take in
    this launch; None where one has none yet (the layout then lays it out contiguously)."""
    values = [int(part) if part.isdigit() else stride_values.get(part) for part in stride.split("*")]
    known = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    return _prod(known) if len(known) == len(values) else None


def _settle_products(products: list[str], stride_values: dict[str, int]) -> bool:
    """A product row length the layout gave a value of its own, with one factor the launch has not
    valued (a stride parameter only this tensor uses): that factor takes the smallest value whose
    product covers the row, and the product follows. True where a value changed (lay out again)."""
    changed = False
    for stride in products:
        parts = stride.split("*")
        unknown = [part for part in parts if not part.isdigit() and part not in stride_values]
        if len(unknown) != 1 or stride not in stride_values:
            continue
        known = _prod([int(part) if part.isdigit() else stride_values[part] for part in parts if part != unknown[0]])
        stride_values[unknown[0]] = max(1, -(-stride_values[stride] // max(1, known)))
        stride_values[stride] = stride_values[unknown[0]] * known
        changed = True
    return changed


def _prod(values: list[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _used_in_pointer(uses: Uses, p: str) -> bool:
    return any(p in Uses._names(e) for e in uses.accesses)


def _extent(bound: Any, sizes: dict[str, int], grid: list[int], consts: dict[str, Any], base: int,
            axes: dict[int, tuple[str | None, str | None]], mode_tiles: frozenset[str] = frozenset()) -> int:
    if bound is None:
        return 1
    kind, what = bound[0], bound[1]
    if kind == SPAN:  # a block's rows (row_spans.py): the sum of its parts
        return sum(_extent(part, sizes, grid, consts, base, axes, mode_tiles) for part in what)
    if kind == "div":
        divisor = consts.get(bound[2]) if not bound[2].isdigit() else int(bound[2])
        divisor = divisor if isinstance(divisor, int) and not isinstance(divisor, bool) and divisor > 0 else 1
        return -(-_extent(what, sizes, grid, consts, base, axes, mode_tiles) // divisor)
    if kind == "axis":
        size, axis_tile = axes.get(what, (None, None))
        # `pid * TILE` walks the axis's size only when TILE is the axis's tile: `pid * D` with
        # another constexpr indexes one row of D per program (a per-program output).
        # A tile local of the same value as the axis's tile (`PACKED = SCALE_K * 32` beside BLOCK_K): the
        # same walk. Never two parameters that merely got the same guessed value.
        same = axis_tile is not None and bound[2] in mode_tiles and _positive(consts.get(axis_tile)) \
            and consts.get(axis_tile) == consts.get(bound[2])
        if size is not None and size in sizes and (axis_tile is None or axis_tile == bound[2] or same):
            return sizes[size]
        tile = consts.get(bound[2]) if not bound[2].isdigit() else int(bound[2])
        tile = tile if isinstance(tile, int) and not isinstance(tile, bool) and tile > 0 else DEFAULT_TILE
        return (grid[what] if what < len(grid) else 1) * tile
    if kind == "size":
        return sizes.get(what, base)
    if kind == "grid":
        return grid[what] if isinstance(what, int) and what < len(grid) else 1
    if kind == "tile":
        v = consts.get(what)
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else DEFAULT_TILE
    if kind == "const":
        return int(what)
    return 1


def _finding_axis_outermost(extents: list[tuple[str | None, int]], walked: list[str | None], axis: str | None,
                            stride_values: dict[str, int]) -> list[tuple[str | None, int]]:
    """The flagged tensor's axis that the launch makes partial laid out outermost, where its stride is
    the launch's to choose: a tail tile's overrun on an inner axis lands in the next row, inside the
    buffer, unless the program reads the last row (a scale tile of 4 rows of 256: never); outermost,
    it leaves the buffer from any row. Kept where the stride is fixed (unit, or a value already set)."""
    if axis is None:
        return extents
    mine = [i for i, w in enumerate(walked) if w == axis and extents[i][0] is not None
            and extents[i][0] not in stride_values]
    if len(mine) != 1 or mine[0] == 0:
        return extents
    return [extents[mine[0]], *(e for i, e in enumerate(extents) if i != mine[0])]


def _widest_extent(extents: list[tuple[str | None, int]], stride_values: dict[str, int]) -> int | None:
    """The extent of the one axis with the widest stride (a unit-stride axis counts 1): the tensor's rows;
    None when two axes share the widest stride (which one is the leading dimension is not known)."""
    strides = [1 if s is None else stride_values.get(s, 1) for s, _ in extents]
    if not strides or strides.count(max(strides)) != 1:
        return None
    return extents[strides.index(max(strides))][1]


def _positive(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _layout(extents: list[tuple[str | None, int]], stride_values: dict[str, int], reach: int = 0) -> int:
    """Assign contiguous strides (unit-stride terms innermost), return the buffer's element count:
    one past the offset of the last in-bounds element, `1 + reach + sum((extent - 1) * stride)`
    (`reach`: the literal offset the accesses add inside the innermost row)."""
    unit = [e for s, e in extents if s is None]
    strided = [(s, e) for s, e in extents if s is not None]
    if not unit and strided and strided[-1][0] not in stride_values:
        s, e = strided.pop()
        stride_values[s] = 1
        unit = [e]
    span = 1 + reach + sum(e - 1 for e in unit)
    for s, e in reversed(strided):
        if s not in stride_values:
            stride_values[s] = span
        span += (e - 1) * stride_values[s]
    return span


def _guess_constexpr(uses: Uses, name: str) -> Any:
    """A value for a constexpr nobody sets: None where the kernel tests it with `is None`, a string
    it is compared with, False for a flag, 1 for a bit count, else 16."""
    for c in uses.compares:
        # An optional constexpr (`if ACTIVATION_FN is not None: out = ACTIVATION_FN(acc)`, a swizzle mode
        # `SWIZZLE is None or SWIZZLE == "HOPPER"`): absent, as its default callers leave it. A mode the
        # flagged line needs is taken from the branches it sits under; an unneeded one (a layout of the
        # values another operand's dtype must match) only adds rules the launch would have to keep.
        if any(isinstance(op, (ast.Is, ast.IsNot)) for op in c.ops) \
                and any(isinstance(y, ast.Name) and y.id == name for y in (c.left, *c.comparators)) \
                and any(isinstance(y, ast.Constant) and y.value is None for y in (c.left, *c.comparators)):
            return None
    for c in uses.compares:
        if name in Uses._names(c):
            for x in [c.left, *c.comparators]:
                if isinstance(x, ast.Constant) and isinstance(x.value, str):
                    return x.value
                if isinstance(x, ast.Constant) and isinstance(x.value, bool):
                    return False
                if isinstance(x, ast.Constant) and isinstance(x.value, int) and len(c.ops) == 1 \
                        and isinstance(c.ops[0], (ast.Eq, ast.NotEq)) and x.value > 0 \
                        and any(isinstance(y, ast.Name) and y.id == name for y in (c.left, *c.comparators)):
                    return x.value  # a mode (`X_DIM == 2`): a value the kernel has a branch for
    for node in ast.walk(uses.fn):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)) and isinstance(node.test, ast.Name) and node.test.id == name:
            return False
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Name) \
                and node.operand.id == name:
            return False
        if isinstance(node, ast.keyword) and node.arg == "dtype" and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return {"dtype": "float32"}
        if isinstance(node, ast.keyword) and node.arg in STRING_KEYWORDS and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return STRING_KEYWORDS[node.arg]  # a string option of the language (`input_precision=`)
        if isinstance(node, ast.Call) and call_name(node) == "to" and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id == name:
            return {"dtype": "float32"}
    if _divisor_only(uses, name) or divides_a_tile(uses, name):
        return GROUP
    if _bit_count(uses, name):
        return 1
    if _tile_count(uses, name):
        return ROW_PROGRAMS
    return DEFAULT_TILE


def _tile_count(uses: Uses, name: str) -> bool:
    """Whether the constexpr counts tiles (`BLOCK_K * SPLIT_K`: a product with a tile, never a tile
    itself): a count as large as a tile hides the tail its programs split among them."""
    tiles = {n.args[1].id for n in ast.walk(uses.fn) if isinstance(n, ast.Call) and call_name(n) == "arange"
             and len(n.args) == 2 and isinstance(n.args[1], ast.Name)}
    if name in tiles:
        return False
    counts = False
    for node in ast.walk(uses.fn):
        if _shapes_with(node, name) and not (isinstance(node, ast.Call) and call_name(node) in ("range", "cdiv")):
            return False
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            sides = (node.left, node.right)
            if any(isinstance(x, ast.Name) and x.id == name for x in sides) \
                    and any(isinstance(x, ast.Name) and x.id in tiles for x in sides):
                counts = True
            if any(uses.pid_axis(x) is not None for x in sides) and name in Uses._names(node):
                return False
    return counts


def _bit_count(uses: Uses, name: str) -> bool:
    """Whether the constexpr counts bits (`2 ** BITS`, `1 << BITS` bins, never a tile itself). At 16,
    a tile's value, the ranges it sizes are 65536 long and the run ends at the timeout; at 1 they are
    shortest, and `range(0, 2 ** BITS, TILE)` is a partial tile, as the host's narrowest type (a bool,
    one bit a pass) makes it."""
    exponent = False
    for node in ast.walk(uses.fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.LShift)) \
                and isinstance(node.right, ast.Name) and node.right.id == name:
            exponent = True
        elif _shapes_with(node, name):
            return False
    return exponent


def _divisor_only(uses: Uses, name: str) -> bool:
    """Whether the constexpr only divides offsets (`ks // GROUP_SIZE`): a group, not a tile.

    A group smaller than the tile lets a tile's overrun cross into the next group's index,
    where a group as large as the tile hides it."""
    divides = False
    for node in ast.walk(uses.fn):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) \
                and isinstance(node.right, ast.Name) and node.right.id == name:
            divides = True
        elif _shapes_with(node, name):
            return False
    return divides


def _shapes_with(node: ast.AST, name: str) -> bool:
    """Whether `node` uses `name` as a tile: an arange/zeros/range/cdiv argument, or a shape's element."""
    if isinstance(node, ast.Call) and call_name(node) in ("arange", "zeros", "full", "reshape", "static_range",
                                                          "range", "cdiv", "make_block_ptr",
                                                          "make_tensor_descriptor"):
        return name in {n.id for a in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(a)
                        if isinstance(n, ast.Name)}
    return isinstance(node, (ast.List, ast.Tuple)) and any(isinstance(e, ast.Name) and e.id == name
                                                           for e in node.elts)


def _padded_value(length: str, launch_args: Mapping[str, str], values: Mapping[str, Any]) -> int | None:
    """The value of a host length text in this launch: a literal, or the kernel parameter the launch
    passes that same text to (`H=H_padded` for `torch.zeros(H_padded)`)."""
    if length.isdigit():
        return int(length)
    for param, text in launch_args.items():
        value = values.get(param)
        if text == length and isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None
