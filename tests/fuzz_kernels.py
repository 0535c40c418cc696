"""Kernel generators and property checks for the fuzz suite (tests/test_fuzz.py, scripts/fuzz_long.py).

Kernels are made by mutating the fixture kernels (`fixtures/<rule>/<case>.py` and `.fixed.py`):
masks dropped or added, `if` branches swapped, names changed (unicode too), kernels nested in a
function or class, a jit helper in front of an access, comments and odd formatting inside calls,
tabs, CRLF and mixed line endings. Every mutant is valid Python (the generator checks).

Two kinds of cases:

* `generic_case(rng)`: any mutation. Properties (`generic_failures`): `check_source(strict=True)`
  neither raises nor reports an internal error; `fix_source(unsafe=True)` neither raises nor
  refuses; its output parses, re-checks with no finding on a call it fixed, is unchanged by a
  second fix, and differs from the input only inside the calls that were flagged with a fix.
* `detection_case(rng)`: a `.fixed.py` fixture with the mask/other its fix added taken out of one
  or more fixed calls (the original bug, re-created), then only meaning-preserving mutations
  (formatting, comments, renamed locals, `if F: A else: B` -> `if not (F): B else: A`, tabs,
  CRLF). Property (`detection_failures`): each such call is reported, TL101 for a load and TL102
  for a store (TL104 for an insufficient-mask fixture, whose fix changed a mask that was there).

Everything is driven by a `random.Random`, so a failure is reproduced by its seed
(`scripts/fuzz_long.py --seed N --show`), and hypothesis can drive it through `st.randoms()`.
"""

from __future__ import annotations

import ast
import io
import random
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tritonlint.config import Config
from tritonlint.engine import check_source, fix_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CONFIG = Config()
# The fix properties are about the kernel's load and store calls; TL103 reports (and fixes) the
# host predicate of a flag, outside them (tests/rules/weak_evenness_predicate/test_predicates.py holds its properties).
KERNEL_CONFIG = Config(ignore=frozenset({"TL103"}))
ACCESS = ("load", "store")
_NEWLINE = re.compile(r"\r\n|\r|\n")

# Identifiers: ASCII, accented Latin, Greek, CJK, and NFKC-sensitive ones (`ﬁ` normalizes to `fi`,
# so it is avoided: Python would treat two spellings as one name and the rename as no rename).
NEW_NAMES = ["renamed", "x_2", "ptrs_α", "offs_ñ", "δk", "変数", "väärä", "ÉTAT", "K_Ω", "_", "__tmp",
             "EVEN_Ζ", "IS_EVEN_NEW", "NO_TAIL_X", "DIVISIBLE_BY", "tile_ü", "Σ_total", "block_ж"]
COMMENTS = ["# note", "# ünïcødé — ∑ ≤ ≠", "# tl.load(x) looks like code", "#", "# (", "# )",
            "# mask=offs < K", "#\tTAB", "# 😀 emoji", "# expect: nothing"]


# --- the corpus ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    name: str
    text: str  # LF line endings
    crlf: bool  # the fixture itself had CRLF


@dataclass(frozen=True)
class FixedPair:
    name: str
    fixed: str  # the .fixed.py text (LF)
    original: str  # the .py text (LF)
    targets: tuple[int, ...]  # ordinals (among load/store calls) of the calls the fix changed


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@cache
def fixtures() -> tuple[Fixture, ...]:
    found = []
    for path in sorted(FIXTURES.glob("*/*.py")):
        if path.name.endswith("_harness.py") or path.name.startswith("_"):
            continue
        raw = path.read_bytes().decode("utf-8")
        found.append(Fixture(f"{path.parent.name}/{path.name}", _lf(raw), "\r\n" in raw))
    return tuple(found)


@cache
def fixed_pairs() -> tuple[FixedPair, ...]:
    pairs = []
    for fixed_path in sorted(FIXTURES.glob("*/*.fixed.py")):
        original_path = fixed_path.with_name(fixed_path.name.replace(".fixed.py", ".py"))
        fixed = _lf(fixed_path.read_text(encoding="utf-8"))
        original = _lf(original_path.read_text(encoding="utf-8"))
        a, b = access_calls(fixed), access_calls(original)
        if len(a) != len(b):
            continue
        targets = tuple(i for i, (x, y) in enumerate(zip(a, b))
                        if segment(fixed, x) != segment(original, y))
        if targets:
            pairs.append(FixedPair(fixed_path.parent.name + "/" + fixed_path.name, fixed, original, targets))
    return tuple(pairs)


# --- positions -----------------------------------------------------------------------------------


def line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    return starts


class Positions:
    """ast (line, UTF-8 byte column) -> character offset in the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)

    def offset(self, line: int, byte_col: int) -> int:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        raw = self.text[start:end].encode("utf-8")
        return start + len(raw[:byte_col].decode("utf-8"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]


def is_access(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr in ACCESS) or \
        (isinstance(func, ast.Name) and func.id in ACCESS)


def access_calls(text: str) -> list[ast.Call]:
    """Every `*.load(...)` / `*.store(...)` call, in source order."""
    tree = ast.parse(text)
    calls = [n for n in ast.walk(tree) if is_access(n)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return calls  # type: ignore[return-value]


def access_spans(text: str) -> list[tuple[int, int]]:
    positions = Positions(text)
    return [positions.span(call) for call in access_calls(text)]


def segment(text: str, node: ast.AST, positions: Positions | None = None) -> str:
    start, end = (positions or Positions(text)).span(node)
    return text[start:end]


def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# --- mutations (each on LF text; None when it does not apply) --------------------------------------

Mutation = Callable[[str, random.Random], "str | None"]


def _keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def render_call(text: str, call: ast.Call, rng: random.Random, *, drop: frozenset[str] = frozenset(),
                add: tuple[tuple[str, str], ...] = (), replace: dict[str, str] | None = None,
                odd: bool = False) -> str:
    """The call's text rebuilt from its own argument texts, with keywords dropped/added/replaced.

    `odd` formats it strangely: newlines and comments between arguments, spaces around `=`, a
    trailing comma, a comment after the open parenthesis, redundant parentheses.
    """
    positions = Positions(text)
    func = segment(text, call.func, positions)
    parts = [segment(text, arg, positions) for arg in call.args]
    keywords = []
    for kw in call.keywords:
        if kw.arg in drop:
            continue
        value = (replace or {}).get(kw.arg or "", segment(text, kw.value, positions))
        keywords.append((kw.arg, value))
    keywords.extend(add)
    line = text[positions.starts[call.lineno - 1]:].split("\n", 1)[0]
    indent = line[:len(line) - len(line.lstrip())] + "        "
    pieces = []
    for part in parts:
        pieces.append(f"({part})" if odd and rng.random() < 0.15 else part)
    for name, value in keywords:
        if name is None:
            pieces.append(f"**{value}")
        else:
            eq = rng.choice(["=", " = ", "= ", " ="]) if odd else "="
            pieces.append(f"{name}{eq}{value}")
    if not odd:
        return f"{func}({', '.join(pieces)})"
    out = [func, rng.choice(["(", "(", "(  # " + rng.choice(COMMENTS)[2:] + "\n" + indent, "(\n" + indent])]
    for i, piece in enumerate(pieces):
        out.append(piece)
        if i < len(pieces) - 1:
            out.append(rng.choice([",", ", ", " , ", ",\n" + indent, ",  " + rng.choice(COMMENTS) + "\n" + indent,
                                   ",\n\n" + indent, ",\\\n" + indent]))
    out.append(rng.choice(["", ",", ",\n" + indent[:-4], "\n" + indent[:-8], "  " + rng.choice(COMMENTS) + "\n" +
                           indent[:-8]]))
    out.append(")")
    return "".join(out)


def _pick_call(text: str, rng: random.Random, want: Callable[[ast.Call], bool]) -> ast.Call | None:
    calls = [c for c in access_calls(text) if want(c)]
    return rng.choice(calls) if calls else None


def drop_mask(text: str, rng: random.Random) -> str | None:
    call = _pick_call(text, rng, lambda c: bool({"mask", "other"} & {k.arg for k in c.keywords}))
    if call is None:
        return None
    drop = rng.choice([frozenset({"mask", "other"}), frozenset({"mask"}), frozenset({"other"})])
    start, end = Positions(text).span(call)
    return replace_span(text, start, end, render_call(text, call, rng, drop=drop))


def _comparisons(text: str) -> list[str]:
    tree = ast.parse(text)
    positions = Positions(text)
    found = {segment(text, n, positions) for n in ast.walk(tree)
             if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Lt, ast.LtE))}
    return sorted(t for t in found if "\n" not in t)


def add_mask(text: str, rng: random.Random) -> str | None:
    call = _pick_call(text, rng, lambda c: _keyword(c, "mask") is None and not any(k.arg is None for k in c.keywords)
                      and len(c.args) <= (1 if c.func.attr == "load" else 2)  # type: ignore[attr-defined]
                      if isinstance(c.func, ast.Attribute) else False)
    comparisons = _comparisons(text)
    if call is None or not comparisons:
        return None
    mask = rng.choice(comparisons)
    if rng.random() < 0.3 and len(comparisons) > 1:
        mask = f"({mask}) & ({rng.choice(comparisons)})"
    if rng.random() < 0.2:
        mask = f"None if {rng.choice(['EVEN_K', 'True', 'False', 'EVEN_M'])} else {mask}"
    add: list[tuple[str, str]] = [("mask", mask)]
    is_load = isinstance(call.func, ast.Attribute) and call.func.attr == "load"
    if is_load and _keyword(call, "other") is None and rng.random() < 0.6:
        add.append(("other", rng.choice(["0.0", "0", "float('-inf')", "None"])))
    start, end = Positions(text).span(call)
    return replace_span(text, start, end, render_call(text, call, rng, add=tuple(add)))


def _ifs_with_else(text: str) -> list[ast.If]:
    ifs = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.If) and node.orelse and node.body[0].lineno > node.test.end_lineno:  # type: ignore
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and \
                    text.splitlines()[node.orelse[0].lineno - 1].lstrip().startswith("elif"):
                continue
            ifs.append(node)
    return ifs


def swap_if(text: str, rng: random.Random, *, negate: bool | None = None) -> str | None:
    """`if T: A else: B` -> `if not (T): B else: A` (negate, the same meaning) or `if T: B else: A`."""
    ifs = _ifs_with_else(text)
    if not ifs:
        return None
    node = rng.choice(ifs)
    lines = text.split("\n")
    indent = lines[node.lineno - 1][:len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip())]
    else_line = next((i for i in range(node.body[-1].end_lineno, node.orelse[0].lineno - 1)  # type: ignore[arg-type]
                      if re.match(re.escape(indent) + r"else\s*:", lines[i])), None)
    if else_line is None:
        return None
    header_end = node.test.end_lineno  # type: ignore[attr-defined]
    if not lines[header_end - 1].rstrip().endswith(":") or not lines[else_line].rstrip().endswith(":"):
        return None  # a comment after the colon: leave it
    body = lines[header_end:else_line]
    orelse = lines[else_line + 1:node.orelse[-1].end_lineno]  # type: ignore[misc]
    header = lines[node.lineno - 1:header_end]
    if negate is None:
        negate = rng.random() < 0.5
    if negate:
        positions = Positions(text)
        test = segment(text, node.test, positions)
        joined = "\n".join(header)
        start = positions.span(node.test)[0] - positions.starts[node.lineno - 1]
        joined = joined[:start] + f"not ({test})" + joined[start + len(test):]
        header = joined.split("\n")
    new = header + orelse + [lines[else_line]] + body
    return "\n".join(lines[:node.lineno - 1] + new + lines[node.orelse[-1].end_lineno:])  # type: ignore[misc]


def _names(text: str) -> tuple[set[str], set[str]]:
    """(renamable names, names that must not be touched: attributes, keywords, imports, defs)."""
    tree = ast.parse(text)
    names: set[str] = set()
    blocked: set[str] = {"tl", "triton", "range", "print", "len", "min", "max", "int", "float", "None",
                         "True", "False", "self", "cls", "args"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute):
            blocked.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            blocked.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                blocked.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            blocked.add(node.name)
    return names - blocked, blocked


def rename_token(text: str, old: str, new: str) -> str:
    out = []
    lines = text.split("\n")
    edits: list[tuple[int, int, int]] = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and token.string == old:
            edits.append((token.start[0], token.start[1], token.end[1]))
    for row, start, end in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    out = lines
    return "\n".join(out)


def rename(text: str, rng: random.Random, *, neutral: bool = False) -> str | None:
    names, blocked = _names(text)
    if neutral:  # lowercase locals only, given a prefix: keeps the `_k` suffixes dimension names carry
        tree = ast.parse(text)
        stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        candidates = sorted(n for n in names & stored if n == n.lower() and not n.startswith("_"))
    else:
        candidates = sorted(names)
    if not candidates:
        return None
    old = rng.choice(candidates)
    taken = names | blocked
    if neutral:
        new = rng.choice(["ü_", "v_", "ñ", "δ_", "loc_"]) + old
    else:
        new = rng.choice(NEW_NAMES + [old + "_r", old.upper(), old.lower() + "x"])
    if new in taken or new == old or not new.isidentifier():
        return None
    return rename_token(text, old, new)


def _top_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def keep_one_kernel(text: str, rng: random.Random) -> str | None:
    """Drop every top-level function the chosen one does not reach by name (fewer kernels, faster)."""
    tree = ast.parse(text)
    functions = {f.name: f for f in _top_functions(tree)}
    if len(functions) < 2:
        return None
    keep = {rng.choice(sorted(functions))}
    changed = True
    while changed:
        changed = False
        for name in sorted(keep):
            used = {n.id for n in ast.walk(functions[name]) if isinstance(n, ast.Name)}
            users = {other for other, f in functions.items()
                     if name in {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}}
            for extra in (used | users) & set(functions):
                if extra not in keep:
                    keep.add(extra)
                    changed = True
    lines = text.split("\n")
    for name in sorted(set(functions) - keep, key=lambda n: -functions[n].lineno):
        f = functions[name]
        first = min([f.lineno] + [d.lineno for d in f.decorator_list])
        del lines[first - 1:f.end_lineno]  # type: ignore[misc]
    return "\n".join(lines)


def wrap_kernel(text: str, rng: random.Random) -> str | None:
    """Nest a top-level function (with its decorators) in `def _outer():` or `class _Outer:`."""
    tree = ast.parse(text)
    functions = [f for f in _top_functions(tree) if f.decorator_list]
    if not functions:
        return None
    f = rng.choice(functions)
    first = min([f.lineno] + [d.lineno for d in f.decorator_list])
    lines = text.split("\n")
    string_lines = _lines_inside_strings(text)
    body = [line if (i + first in string_lines or not line) else "    " + line
            for i, line in enumerate(lines[first - 1:f.end_lineno])]  # type: ignore[misc]
    head = rng.choice(["def _outer():", "class _Outer:", "def _outer(x, *args, **kw):", "if True:"])
    tail = ["    return " + f.name] if head.startswith("def") else []
    return "\n".join(lines[:first - 1] + [head] + body + tail + lines[f.end_lineno:])  # type: ignore[misc]


def _lines_inside_strings(text: str) -> set[int]:
    """1-based lines that continue a multi-line string (their indentation is string content)."""
    inside = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    return inside


HELPER = '''

@triton.jit
def _fz_{kind}(p, *rest, mask=None, other=None):
    return tl.{kind}(p, *rest, mask=mask{other})
'''


def add_helper(text: str, rng: random.Random) -> str | None:
    """Route one access through a new jit helper: `tl.load(p, mask=m)` -> `_fz_load(p, mask=m)`."""
    call = _pick_call(text, rng, lambda c: isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)
                      and c.func.value.id == "tl")
    if call is None or "import triton\n" not in text or "import triton.language as tl\n" not in text:
        return None
    if any(isinstance(fn, ast.FunctionDef) and fn.name.startswith("_fz_") and
           fn.lineno <= call.lineno <= fn.end_lineno for fn in ast.walk(ast.parse(text))):  # type: ignore[operator]
        return None  # the helper's own access: routed through itself, it would call itself forever
    kind = call.func.attr  # type: ignore[attr-defined]
    positions = Positions(text)
    start, end = positions.span(call.func)
    text = replace_span(text, start, end, f"_fz_{kind}")
    if f"def _fz_{kind}(" not in text:
        text += HELPER.format(kind=kind, other=", other=other" if kind == "load" else "")
    return text


def comment_lines(text: str, rng: random.Random) -> str | None:
    """Comment lines before statements, at the statement's indentation or any other."""
    tree = ast.parse(text)
    starts = sorted({n.lineno for n in ast.walk(tree) if isinstance(n, ast.stmt)})
    lines = text.split("\n")
    for line in sorted(rng.sample(starts, min(len(starts), rng.randint(1, 4))), reverse=True):
        current = lines[line - 1]
        indent = current[:len(current) - len(current.lstrip())] if rng.random() < 0.7 else " " * rng.randint(0, 9)
        lines.insert(line - 1, indent + rng.choice(COMMENTS))
    return "\n".join(lines)


def inline_comments(text: str, rng: random.Random) -> str | None:
    """`  # comment` at the end of lines, including lines inside a call's parentheses."""
    ends = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.NL, tokenize.NEWLINE) and token.line.rstrip("\n") and "#" not in token.line:
            ends.append(token.start)
    if not ends:
        return None
    lines = text.split("\n")
    for row, col in sorted(rng.sample(ends, min(len(ends), rng.randint(1, 5))), reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + rng.choice(["  ", " ", "\t"]) + rng.choice(COMMENTS) + line[col:]
    return "\n".join(lines)


def odd_format(text: str, rng: random.Random) -> str | None:
    """Re-render one access call with newlines, comments and odd spacing between its arguments."""
    call = _pick_call(text, rng, lambda c: bool(c.args) and not any(k.arg is None for k in c.keywords))
    if call is None:
        return None
    start, end = Positions(text).span(call)
    new = render_call(text, call, rng, odd=True)
    candidate = replace_span(text, start, end, new)
    try:
        ast.parse(candidate)
    except SyntaxError:
        return None
    return candidate


def tabs(text: str) -> str:
    """Indentation of every logical line as tabs (one per 4 spaces); continuation lines keep theirs."""
    rows = set()
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if previous in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) and \
                token.type not in (tokenize.INDENT, tokenize.DEDENT, tokenize.NL, tokenize.COMMENT):
            rows.add(token.start[0])
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.type
    lines = text.split("\n")
    for row in rows:
        line = lines[row - 1]
        stripped = line.lstrip(" ")
        width = len(line) - len(stripped)
        if width % 4 == 0:
            lines[row - 1] = "\t" * (width // 4) + stripped
    return "\n".join(lines)


def line_endings(text: str, rng: random.Random, style: str) -> str:
    if style == "crlf":
        return text.replace("\n", "\r\n")
    if style == "mixed":  # some lines CRLF, some LF (editors on two systems)
        return "".join(piece + ("\r\n" if rng.random() < 0.5 else "\n") for piece in text.split("\n")[:-1]) + \
            text.split("\n")[-1]
    return text


GENERIC: dict[str, Mutation] = {
    "drop_mask": drop_mask, "add_mask": add_mask, "swap_if": swap_if, "rename": rename,
    "wrap_kernel": wrap_kernel, "add_helper": add_helper, "comment_lines": comment_lines,
    "inline_comments": inline_comments, "odd_format": odd_format,
}
NEUTRAL: dict[str, Mutation] = {
    "swap_if_negated": lambda t, r: swap_if(t, r, negate=True),
    "rename_local": lambda t, r: rename(t, r, neutral=True),
    "comment_lines": comment_lines, "inline_comments": inline_comments, "odd_format": odd_format,
}


def _apply(text: str, rng: random.Random, table: dict[str, Mutation], count: int, log: list[str]) -> str:
    for _ in range(count):
        name = rng.choice(sorted(table))
        try:
            candidate = table[name](text, rng)
        except (SyntaxError, tokenize.TokenError, IndexError, ValueError):
            candidate = None  # a mutation that did not fit this text: skip it
        if candidate is None or candidate == text:
            continue
        ast.parse(candidate)  # a generator bug if not: let it raise
        text = candidate
        log.append(name)
    return text


def _finish(text: str, rng: random.Random, log: list[str], *, mixed: bool, crlf: bool = False) -> str:
    if rng.random() < 0.15:
        text = tabs(text)
        ast.parse(text)
        log.append("tabs")
    style = "crlf" if crlf or rng.random() < 0.2 else ("mixed" if mixed and rng.random() < 0.1 else "lf")
    if style != "lf":
        log.append(style)
    return line_endings(text, rng, style)


# --- cases ---------------------------------------------------------------------------------------


@dataclass
class Case:
    source: str  # the fixture it came from
    text: str
    mutations: list[str] = field(default_factory=list)
    targets: tuple[int, ...] = ()  # detection cases: ordinals of calls that must be reported
    kinds: tuple[str, ...] = ()  # "load"/"store" for each target


def generic_case(rng: random.Random, max_mutations: int = 5) -> Case:
    fixture = rng.choice(fixtures())
    log: list[str] = []
    text = fixture.text
    if rng.random() < 0.6:
        trimmed = keep_one_kernel(text, rng)
        if trimmed is not None:
            text = trimmed
            log.append("keep_one_kernel")
    text = _apply(text, rng, GENERIC, rng.randint(1, max_mutations), log)
    text = _finish(text, rng, log, mixed=True, crlf=fixture.crlf and rng.random() < 0.5)
    return Case(fixture.name, text, log)


def detection_case(rng: random.Random, max_mutations: int = 4) -> Case:
    # Targets are found again after the mutations by a comment on their last line and their place
    # among that line's calls of their kind; a reformatting that splits a line of several such calls
    # (`tl.load(a) - tl.load(b)`) moves them apart, so those targets are not drawn.
    pairs = [(pair, alone) for pair in fixed_pairs() for alone in [_alone_on_their_line(pair)] if alone]
    pair, alone = rng.choice(pairs)
    chosen = sorted(rng.sample(alone, rng.randint(1, len(alone))))
    text = pair.fixed
    original_calls = access_calls(pair.original)
    for ordinal in reversed(chosen):  # from the end: earlier offsets stay valid
        start, end = Positions(text).span(access_calls(text)[ordinal])
        text = replace_span(text, start, end, segment(pair.original, original_calls[ordinal]))
    # Mark each target with a comment at the end of its last line: mutations reorder calls
    # (a swapped `if`), the marker moves with its line.
    calls = access_calls(text)
    lines = text.split("\n")
    marks: list[tuple[int, str, int]] = []
    for number, ordinal in enumerate(chosen):
        call = calls[ordinal]
        same_line = _marked(text, calls, call.end_lineno, _kind(call))  # type: ignore[arg-type]
        lines[call.end_lineno - 1] += f"  # FUZZ-T{number}"  # type: ignore[operator]
        marks.append((number, _kind(call), same_line.index(call)))
    text = "\n".join(lines)
    ast.parse(text)
    log = [f"unfix{chosen}"]
    text = _apply(text, rng, NEUTRAL, rng.randint(0, max_mutations), log)
    calls = access_calls(text)
    targets = []
    for number, kind, index in marks:
        row = next(i for i, line in enumerate(text.split("\n"), 1) if f"# FUZZ-T{number}" in line)
        targets.append(calls.index(_marked(text, calls, row, kind)[index]))
    text = _finish(text, rng, log, mixed=False)
    return Case(pair.name, text, log, tuple(targets), tuple(kind for _n, kind, _i in marks))


def _alone_on_their_line(pair: FixedPair) -> list[int]:
    calls = access_calls(pair.original)
    return [t for t in pair.targets
            if sum(c.end_lineno == calls[t].end_lineno and _kind(c) == _kind(calls[t]) for c in calls) == 1]


def _marked(text: str, calls: list[ast.Call], row: int, kind: str) -> list[ast.Call]:
    """The `kind` calls a marker at the end of line `row` stands for: those of the simple statement
    ending there (a load nested in a store keeps its statement when a reformatting moves the store's
    closing bracket, and the marker, to a line of its own), else those ending on that line."""
    statements = [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.stmt)
                  and not hasattr(node, "body") and node.end_lineno == row]
    if statements:
        start = max(node.lineno for node in statements)
        return [c for c in calls if _kind(c) == kind and start <= c.lineno and c.end_lineno <= row]  # type: ignore[operator]
    return [c for c in calls if c.end_lineno == row and _kind(c) == kind]


# Kernels of fix shapes the fixtures lack (tests/regressions/): one whose first fix round creates
# the evidence for a second, and a reported load whose mask is already `None if F else m`.
SHAPES = ("fix_needs_second_round.py", "none_mask_combined_with_and.py")
REGRESSIONS = ROOT / "tests" / "regressions"


def shape_case(rng: random.Random, max_mutations: int = 3) -> Case:
    """One of SHAPES under meaning-preserving mutations only, so the shape (and its finding) stays."""
    name = rng.choice(SHAPES)
    log: list[str] = []
    text = _apply((REGRESSIONS / name).read_text(), rng, NEUTRAL, rng.randint(0, max_mutations), log)
    text = _finish(text, rng, log, mixed=False)
    return Case(f"regressions/{name}", text, log)


def _kind(call: ast.Call) -> str:
    return call.func.attr if isinstance(call.func, ast.Attribute) else call.func.id  # type: ignore[attr-defined]


# --- properties ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    kind: str  # "crash", "bad-fix", "missed"
    detail: str


def _ordinal(spans: list[tuple[int, int]], start: int) -> int | None:
    return next((i for i, (s, _e) in enumerate(spans) if s == start), None)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def outside_is_identical(before: str, after: str, spans: list[tuple[int, int]]) -> bool:
    """`after` is `before` with only the text inside `spans` (merged) replaced."""
    merged = _merge(spans)
    gaps = []
    position = 0
    for start, end in merged:
        gaps.append(before[position:start])
        position = end
    gaps.append(before[position:])
    if not after.startswith(gaps[0]) or not after.endswith(gaps[-1]):
        return False
    cursor = len(gaps[0])
    for gap in gaps[1:-1]:
        found = after.find(gap, cursor)
        if found < 0:
            return False
        cursor = found + len(gap)
    return cursor <= len(after) - len(gaps[-1])


def reported_in_rounds(text: str, config: Config, rounds: int = 8) -> set[int]:
    """The ordinals of the load/store calls reported in any round of `--fix` (fix_source's loop): a
    first round's mask can be a later round's evidence about another call, which that round fixes."""
    from tritonlint.diagnostics import Applicability
    from tritonlint.engine import apply_edits

    current, out = text, set()
    count = len(access_spans(text))
    for _ in range(rounds):
        report = check_source("fuzz.py", current, config, strict=True)
        spans = access_spans(current)
        if len(spans) != count:
            break  # the calls no longer line up with the original's
        out |= {i for d in report.diagnostics if (i := _ordinal(spans, d.start_offset)) is not None}
        edits = [d.fix.edits[0] for d in report.diagnostics if d.fix is not None and d.fix.edits
                 and d.fix.applicability in (Applicability.SAFE, Applicability.UNSAFE)]
        candidate = apply_edits(current, edits) if edits else current
        if candidate == current:
            break
        try:
            ast.parse(candidate)
        except SyntaxError:
            break
        current = candidate
    return out


def same_tree_but_calls(before: str, after: str, ordinals: set[int]) -> bool:
    """`after` parses to `before`'s statements once the arguments of the calls at `ordinals` are put
    back: only what the fixes own changed, whatever the layout (a fixed call wrapped over lines moves
    the text of the statement around it, never its syntax tree)."""
    try:
        tree_b, tree_a = ast.parse(before), ast.parse(after)
    except SyntaxError:
        return False
    calls_b = sorted((n for n in ast.walk(tree_b) if is_access(n)), key=lambda n: (n.lineno, n.col_offset))
    calls_a = sorted((n for n in ast.walk(tree_a) if is_access(n)), key=lambda n: (n.lineno, n.col_offset))
    if len(calls_a) != len(calls_b):
        return False
    for i in ordinals:
        a, b = calls_a[i], calls_b[i]
        assert isinstance(a, ast.Call) and isinstance(b, ast.Call)
        a.args, a.keywords = b.args, b.keywords
    return ast.dump(tree_a) == ast.dump(tree_b)


# A hoisted mask: one line, or (too long for one) `name = (` then its lines indented deeper, then
# `)` at the assignment's indentation (the layout black gives it).
_HOISTED = re.compile(r"^(?P<indent>[ \t]*)(?P<name>\w+_mask(?:_\d+)?) = "
                      r"(?:\(\r?\n(?:(?P=indent)[ \t]+[^\r\n]*\r?\n)+(?P=indent)\)|[^\r\n]*)\r?\n", re.MULTILINE)
# `(None if F else m) & m2`: None on one side, so `None & tensor` on that side does not compile.
_NONE_AND = re.compile(r"\(\s*None\s+if\b[^()]*(?:\([^()]*\)[^()]*)*\)\s*&|&\s*\(\s*None\s+if\b")


def generic_failures(case: Case, config: Config = KERNEL_CONFIG) -> list[Failure]:
    text = case.text
    try:
        report = check_source("fuzz.py", text, config, strict=True)
    except Exception as error:  # noqa: BLE001
        return [Failure("crash", f"check_source raised {type(error).__name__}: {error} <- {error.__cause__!r}")]
    if report.crashes:
        return [Failure("crash", report.crashes[0])]
    if report.errors:
        return [Failure("crash", f"valid Python reported as an error: {report.errors[0]}")]
    spans = access_spans(text)
    fixable = [d for d in report.diagnostics if d.fix is not None and d.fix.edits]
    failures = []
    for d in report.diagnostics:
        if _ordinal(spans, d.start_offset) is None:
            failures.append(Failure("bad-fix", f"finding at {d.line}:{d.column} is not at a load/store call"))
    try:
        fixed = fix_source("fuzz.py", text, config, unsafe=True, strict=True)
    except Exception as error:  # noqa: BLE001
        return failures + [Failure("crash", f"fix_source raised {type(error).__name__}: {error} <- {error.__cause__!r}")]
    if fixed.crashes:
        return failures + [Failure("crash", fixed.crashes[0])]
    if fixed.errors:
        return failures + [Failure("bad-fix", f"fix refused: {fixed.errors[0]}")]
    if fixed.fixed_text is None:
        if fixable:
            failures.append(Failure("bad-fix", f"{len(fixable)} finding(s) with a fix, but nothing changed"))
        return failures
    after = fixed.fixed_text
    try:
        ast.parse(after)
    except SyntaxError as error:
        return failures + [Failure("bad-fix", f"fixed text does not parse: {error}")]
    reported = sorted({_ordinal(spans, d.start_offset) for d in report.diagnostics} - {None})  # type: ignore
    # A long fix names its mask on the line above its statement (`offs_k_mask = ...`): that line is
    # the fix's too. Every such line must be new, and its name read by a reported call.
    hoisted = [m for m in _HOISTED.finditer(after) if m.group(0) not in text]
    for m in hoisted:
        if not re.search(rf"\bmask\s*=\s*{re.escape(m.group('name'))}\b", after):  # `mask = x_mask` kept spaced
            failures.append(Failure("bad-fix", f"hoisted mask {m.group('name')} is not used by a call"))
    unhoisted = _HOISTED.sub(lambda m: "" if m.group(0) not in text else m.group(0), after)
    if not outside_is_identical(text, unhoisted, [spans[i] for i in reported]) and \
            not same_tree_but_calls(text, unhoisted, reported_in_rounds(text, config)):
        failures.append(Failure("bad-fix", "text outside the reported calls changed"))
    after_spans = access_spans(after)
    if len(after_spans) != len(spans):
        failures.append(Failure("bad-fix", f"the fix changed the number of load/store calls "
                                           f"({len(spans)} -> {len(after_spans)})"))
        return failures
    changed = [i for i, ((s0, e0), (s1, e1)) in enumerate(zip(spans, after_spans)) if text[s0:e0] != after[s1:e1]]
    for i in changed:
        call = after[after_spans[i][0]:after_spans[i][1]]
        if _NONE_AND.search(call):
            failures.append(Failure("bad-fix", f"a mask that is None on one side is combined with `&`: {call!r}"))
    try:
        recheck = check_source("fuzz.py", after, config, strict=True)
    except Exception as error:  # noqa: BLE001
        return failures + [Failure("crash", f"re-check raised {type(error).__name__}: {error}")]
    for d in recheck.diagnostics:
        if _ordinal(after_spans, d.start_offset) in changed:
            failures.append(Failure("bad-fix", f"fixed call still reported at {d.line}:{d.column}: {d.message}"))
    try:
        second = fix_source("fuzz.py", after, config, unsafe=True, strict=True)
    except Exception as error:  # noqa: BLE001
        return failures + [Failure("crash", f"second fix raised {type(error).__name__}: {error}")]
    if second.fixed_text is not None or second.errors:
        failures.append(Failure("bad-fix", "a second fix changed the text again" if second.fixed_text is not None
                                else f"second fix refused: {second.errors[0]}"))
    return failures


def detection_failures(case: Case, config: Config = CONFIG) -> list[Failure]:
    try:
        report = check_source("fuzz.py", case.text, config, strict=True)
    except Exception as error:  # noqa: BLE001
        return [Failure("crash", f"check_source raised {type(error).__name__}: {error} <- {error.__cause__!r}")]
    if report.crashes or report.errors:
        return [Failure("crash", (report.crashes + report.errors)[0])]
    spans = access_spans(case.text)
    found = {(_ordinal(spans, d.start_offset), d.code) for d in report.diagnostics}
    failures = []
    for ordinal, kind in zip(case.targets, case.kinds):
        # A mask taken back out of an insufficient-mask fixture is the mask that was there but wrong; an
        # unsafe-masked-lanes fix adds an `other=`, and taking it out brings back the TL105 it settled.
        code = "TL104" if case.source.startswith("insufficient-mask/") else \
            "TL105" if case.source.startswith("unsafe-masked-lanes/") else "TL101" if kind == "load" else "TL102"
        if (ordinal, code) not in found:
            start, end = spans[ordinal]
            failures.append(Failure("missed", f"{code} not reported at call #{ordinal}: "
                                              f"{case.text[start:end]!r}"))
    return failures


def tail_mask_of(fixed: str, marker: str) -> str:
    """The tail-side mask the fixer gave the call `marker` names (`outer(tl.load(POINTER,`), read
    from the syntax tree whatever its layout: written inline (`mask=None if EVEN_K else m`) or named
    by the assignment above the call (`offs_k_mask = None if EVEN_K else m`, then `mask=offs_k_mask`)."""
    outer, _, pointer = marker.rstrip(",").split("(")
    tree = ast.parse(fixed)
    assignments: dict[str, list[ast.Assign]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assignments.setdefault(node.targets[0].id, []).append(node)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func) == outer and node.args
                and isinstance(node.args[0], ast.Call) and node.args[0].args
                and ast.unparse(node.args[0].args[0]) == pointer):
            continue
        mask = next(k.value for k in node.args[0].keywords if k.arg == "mask")
        if isinstance(mask, ast.Name):
            mask = max((a for a in assignments[mask.id] if a.lineno < node.lineno), key=lambda a: a.lineno).value
        assert isinstance(mask, ast.IfExp) and ast.unparse(mask.test) == "EVEN_K", ast.unparse(mask)
        return ast.unparse(mask.orelse)
    raise AssertionError(f"no {marker} call in the fixed text")