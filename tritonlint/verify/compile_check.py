"""Compile jit kernels for Hopper (sm_90) on the CPU and list the TTIR's loads and stores with masks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

HOPPER = ("cuda", 90, 32)  # backend, compute capability, warp size


@dataclass(frozen=True)
class IRAccess:
    """One memory op of the TTIR."""

    op: str  # "tt.load", "tt.store", "tt.atomic_rmw", "tt.descriptor_load", ...
    kind: str  # "load", "store" or "atomic"
    masked: bool  # a mask operand (or a block-pointer boundary check / TMA descriptor) bounds it
    type: str  # the type after ':' (pointer tensor type), SSA names removed
    path: str | None
    line: int | None
    column: int | None
    callers: tuple[tuple[str, int, int], ...] = field(default=())  # inlining chain, innermost first
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def key(self) -> tuple[str, bool, str]:
        """What must not change for the even specialization: op, mask presence and type."""
        return (self.op, self.masked, self.type)


def _target(arch: int = 90) -> Any:
    from triton.backends.compiler import GPUTarget

    return GPUTarget(HOPPER[0], arch, HOPPER[2])


def _source(fn: Any, signature: Mapping[str, str], constexprs: Mapping[str, Any] | None) -> Any:
    from triton.compiler import ASTSource

    jit_fn = getattr(fn, "fn", None) if not hasattr(fn, "arg_names") else fn
    if jit_fn is None or not hasattr(jit_fn, "arg_names"):
        raise TypeError("compile_check needs a @triton.jit function compiled without "
                        f"TRITON_INTERPRET=1 (got {fn!r})")
    constexprs = dict(constexprs or {})
    sig = dict(signature)
    # ASTSource wants every argument in the signature; constexpr arguments are spelled so.
    for name in jit_fn.arg_names:
        if name in constexprs and name not in sig:
            sig[name] = "constexpr"
    missing = [n for n in jit_fn.arg_names if n not in sig]
    if missing:
        raise ValueError(f"signature lacks argument(s) {missing} of {jit_fn.__name__}")
    return ASTSource(jit_fn, sig, constexprs)


def compile_ttir(fn: Any, signature: Mapping[str, str], constexprs: Mapping[str, Any] | None = None,
                 *, arch: int = 90, full: bool = False, options: Mapping[str, Any] | None = None) -> str:
    """Return the TTIR (with locations) of `fn` specialised for sm_`arch`.

    `full=True` goes through `triton.compile` to a cubin (about 1.5 s a kernel; proves the
    kernel compiles for Hopper end to end); the default stops after the TTIR passes (0.1 s).
    """
    src = _source(fn, signature, constexprs)
    target = _target(arch)
    if full:
        import triton

        compiled = triton.compile(src, target=target, options=dict(options or {}))
        return str(compiled.asm["ttir"])
    from triton._C.libtriton import ir
    from triton.compiler.compiler import make_backend

    backend = make_backend(target)
    opts = backend.parse_options(dict(options or {}))
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = src.make_ir(target, opts, backend.get_codegen_implementation(opts),
                         backend.get_module_map(), context)
    stages: dict[str, Any] = {}
    backend.add_stages(stages, opts, src.language)
    return str(stages["ttir"](module, {}))


# -- TTIR parsing --------------------------------------------------------------------------

_LOC_DEF = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$")
_FILE_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_OP = re.compile(r"\b(tt\.(?:load|store|atomic_rmw|atomic_cas|descriptor_load|descriptor_store|"
                 r"descriptor_gather|descriptor_scatter))\b(.*)$")
_TRAILING_LOC = re.compile(r"\sloc\((.*)\)\s*$")
_SSA = re.compile(r"%[\w.$#-]+")


def _split_top(s: str) -> list[str]:
    """Split on commas that are not nested in (), <>, [] or {}."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


class _Locs:
    """Resolves `#locN` aliases, named locs, callsites and fused locs to file:line:col."""

    def __init__(self, ttir: str) -> None:
        self.defs: dict[str, str] = {}
        for line in ttir.splitlines():
            m = _LOC_DEF.match(line.strip())
            if m:
                self.defs[m.group(1)] = m.group(2)

    def resolve(self, body: str, depth: int = 0) -> list[tuple[str, int, int]]:
        """Innermost-first chain of file locations for a loc body (the text inside loc(...))."""
        body = body.strip()
        if depth > 64:
            return []
        if body.startswith("#loc"):
            return self.resolve(self.defs.get(body, "unknown"), depth + 1)
        m = _FILE_LOC.match(body)
        if m:
            # A quoted string followed by '(' is a named loc ("var"(#locN)); a bare one is a file.
            rest = body[m.end():]
            return [(m.group(1), int(m.group(2)), int(m.group(3)))] if not rest.startswith("(") else []
        if body.startswith("callsite(") and body.endswith(")"):
            inner = body[len("callsite("):-1]
            callee, _, caller = inner.partition(" at ")
            return self.resolve(callee, depth + 1) + self.resolve(caller, depth + 1)
        if body.startswith("fused"):
            start = body.find("[")
            if start >= 0:
                for part in _split_top(body[start + 1:body.rfind("]")]):
                    got = self.resolve(part, depth + 1)
                    if got:
                        return got
            return []
        named = re.match(r'^"(?:[^"\\]|\\.)*"\((.*)\)$', body)
        if named:
            return self.resolve(named.group(1), depth + 1)
        return []


def parse_accesses(ttir: str) -> list[IRAccess]:
    """Every load/store/atomic of the TTIR, in order, with its resolved source location."""
    locs = _Locs(ttir)
    out: list[IRAccess] = []
    # An atomic without `mask=` gets an all-true constant mask operand from the frontend: not a mask.
    always_true = set(re.findall(r"^\s*(%[\w.$-]+) = arith\.constant (?:dense<true>|true\b)", ttir, re.MULTILINE))
    for raw in ttir.splitlines():
        line = raw.strip()
        if line.startswith("#loc"):
            continue
        m = _OP.search(line)
        if not m:
            continue
        op, rest = m.group(1), m.group(2)
        loc_m = _TRAILING_LOC.search(rest)
        loc_body = loc_m.group(1) if loc_m else ""
        if loc_m:
            rest = rest[:loc_m.start()]
        operands_txt, _, type_txt = rest.partition(" : ")
        attrs = ""
        brace = operands_txt.find("{")
        if brace >= 0:
            attrs = operands_txt[brace:]
            operands_txt = operands_txt[:brace]
        # Only leading SSA values are operands; keywords like cacheModifier = ... come after.
        operands = []
        for tok in _split_top(operands_txt):
            tok = tok.strip()
            head = tok.split()[0] if tok.split() else ""
            if head.startswith("%"):
                operands.append(head)
            elif op.startswith("tt.atomic") and not operands:
                continue  # `tt.atomic_rmw add, relaxed, gpu, %ptr, %val, %mask`: the keywords lead
            else:
                break
        if op == "tt.load":
            masked = len(operands) >= 2 or "boundaryCheck = array<i32: " in attrs
            kind = "load"
        elif op == "tt.store":
            masked = len(operands) >= 3 or ("boundaryCheck = array<i32: " in attrs)
            kind = "store"
        elif op.startswith("tt.atomic"):
            masked = op == "tt.atomic_rmw" and len(operands) >= 3 and operands[2] not in always_true
            kind = "atomic"
        else:
            # TMA descriptors clip to the tensor's shape in hardware.
            masked = True
            kind = "store" if ("store" in op or "scatter" in op) else "load"
        chain = locs.resolve(loc_body) if loc_body else []
        path, ln, col = chain[0] if chain else (None, None, None)
        out.append(IRAccess(op, kind, masked, _SSA.sub("%", type_txt.strip()), path, ln, col,
                            tuple(chain[1:]), line))
    return out


def access_keys(accesses: Iterable[IRAccess]) -> list[tuple[str, bool, str]]:
    return [a.key() for a in accesses]


def same_accesses(before: str | list[IRAccess], after: str | list[IRAccess]) -> bool:
    """True when two TTIRs have the same loads/stores in order, each as masked as before.

    Locations are ignored: a fix that inserts lines shifts them without changing the code.
    """
    b = parse_accesses(before) if isinstance(before, str) else before
    a = parse_accesses(after) if isinstance(after, str) else after
    return access_keys(b) == access_keys(a)


def unmasked(accesses: Iterable[IRAccess], *, path: str | None = None,
             lines: Iterable[int] | None = None) -> list[IRAccess]:
    """Unmasked accesses, optionally only those at `path` (suffix match) and on `lines`."""
    want = set(lines) if lines is not None else None
    out = []
    for a in accesses:
        if a.masked:
            continue
        if path is not None and (a.path is None or not _same_file(a.path, path)):
            continue
        if want is not None and a.line not in want:
            continue
        out.append(a)
    return out


def _same_file(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b.lstrip("/")) or b.endswith("/" + a.lstrip("/"))


def check_fix(original_fn: Any, fixed_fn: Any, signature: Mapping[str, str],
              constexprs: Mapping[str, Any], flag: str = "EVEN_K",
              fixed_lines: Iterable[int] | None = None, full: bool = False) -> dict[str, Any]:
    """Compile both kernels with `flag` True and False; return what a fix must satisfy.

    - `even_unchanged`: the even specialization's TTIR accesses are identical before/after.
    - `tail_unmasked_before` / `tail_unmasked_after`: unmasked tail accesses; with
      `fixed_lines` (lines of the fixed file the fix touched) `tail_unmasked_after` keeps only
      those, so it must be empty for the fix to be right.
    """
    res: dict[str, Any] = {}
    ev = {**dict(constexprs), flag: True}
    tail = {**dict(constexprs), flag: False}
    ev_before = parse_accesses(compile_ttir(original_fn, signature, ev, full=full))
    ev_after = parse_accesses(compile_ttir(fixed_fn, signature, ev, full=full))
    tail_before = parse_accesses(compile_ttir(original_fn, signature, tail, full=full))
    tail_after = parse_accesses(compile_ttir(fixed_fn, signature, tail, full=full))
    res["even_unchanged"] = access_keys(ev_before) == access_keys(ev_after)
    res["tail_unmasked_before"] = [a.to_dict() for a in unmasked(tail_before)]
    res["tail_unmasked_after"] = [a.to_dict() for a in unmasked(tail_after, lines=fixed_lines)]
    res["ok"] = res["even_unchanged"] and not res["tail_unmasked_after"]
    return res
