"""Verdicts: out-of-bounds sites of both trees tied to the fixes, a verdict per fix, and one overall."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tritonlint.verify.compare import OutputEvidence, outputs_identical, weigh_outputs
from tritonlint.verify.records import (
    Access,
    Fix,
    Report,
    RunResult,
    Site,
    SiteKey,
    Verdict,
    hex_fill,
)
from tritonlint.verify.trees import (
    AstCache,
    LineMaps,
    call_span,
    edits_an_access,
    map_fixed_line,
    only_fix_in_kernel,
)

__all__ = ["Judgement", "Verdict", "judge"]

STILL_OUT = "still out of bounds in the fixed tree"


@dataclass
class Judgement:
    """The inputs of a judgement beside the report: the trees, line maps and tolerances."""

    trees: dict[str, Path]  # "original" and "fixed"
    opcodes: LineMaps  # original -> fixed
    zero: int
    device: str = "cpu"
    rtol: float = 0.0
    atol: float = 0.0
    ref_tol: float = 0.01
    strict: bool = False
    per_fix_maps: dict[str, LineMaps] = field(default_factory=dict)  # original -> each per-fix tree


# -- what the runs saw -------------------------------------------------------------------------


def _run_problems(runs: list[RunResult]) -> list[str]:
    """A harness run that did not finish (memcheck stopping at the access it reports is expected)."""
    out = []
    for r in runs:
        if (r.fill is None and r.sanitizer_errors) or r.without_fix is not None:
            continue
        if r.status != "ok":
            first = (r.error or "").strip().splitlines()
            fill = f" (fill {hex_fill(r.fill)})" if r.fill is not None else ""
            out.append(f"harness {r.status} on the {r.tree} tree{fill}: {first[-1] if first else ''}")
    return out


def _pad_violations(r: RunResult) -> Iterable[dict[str, Any]]:
    """Writes past the end seen by the padded allocator (GPU), as violations with no line: the
    allocation and the kernel parameters that were handed it; attributed later by kernel."""
    for a in (r.allocator or {}).get("written_past", []):
        for arg in a.get("args") or ["?.?"]:
            kernel, _, param = arg.partition(".")
            launch = next((x for x in r.launches if x.get("kernel") == kernel), None)
            yield {"path": launch["path"] if launch else None, "line": None, "kind": "store",
                   "tensor": param, "kernel": kernel, "direction": "/".join(a["written"]),
                   "max_elements": None, "source": "pad check", "allocation_site": a.get("site")}


def _add_original(sites: dict[SiteKey, Site], v: dict[str, Any], seen_by: str | None) -> Site:
    site = sites.get(SiteKey.of(v))
    if site is None:
        site = sites[SiteKey.of(v)] = Site.of(v)
    if seen_by is not None:
        site.fills.append(seen_by)
    if v.get("max_elements") and (site.max_elements or 0) < v["max_elements"]:
        site.max_elements = v["max_elements"]
    return site


def collect_sites(runs: list[RunResult]) -> tuple[dict[SiteKey, Site], dict[SiteKey, Site]]:
    """Out-of-bounds sites of the original and of the fixed tree, merged over their runs."""
    orig: dict[SiteKey, Site] = {}
    fixed: dict[SiteKey, Site] = {}
    poisoned = [r for r in runs if r.fill is not None and r.without_fix is None]
    for r in poisoned:
        if r.tree == "original":
            for v in r.violations:
                _add_original(orig, v, hex_fill(r.fill))
    for r in [x for x in poisoned if x.tree == "fixed"] + [x for x in runs if x.tree == "fixed" and x.fill is None]:
        for v in r.violations:
            fixed.setdefault(SiteKey.of(v), Site.of(v))
    for r in runs:
        if r.tree == "original" and r.fill is None:
            for v in r.violations:
                if SiteKey.of(v) not in orig:
                    orig[SiteKey.of(v)] = Site.of(v)
                    orig[SiteKey.of(v)].fills.append("memcheck")
    for r in runs:
        if r.without_fix is not None:
            continue
        for v in _pad_violations(r):
            if r.tree == "original":
                _add_original(orig, v, hex_fill(r.fill))
            else:
                fixed.setdefault(SiteKey.of(v), Site.of(v))
    return orig, fixed


def _owner(fixes: list[Fix], key: SiteKey, kernel: str | None, tree: Path, cache: AstCache) -> Fix | None:
    """The fix whose original lines meet the access's call (or the one fix in its kernel)."""
    if key.path and key.line:
        span = call_span(tree / key.path, key.line, cache)
        for f in fixes:
            if f.path == key.path and span[0] <= max(f.orig_lines) and f.orig_lines[0] <= span[1]:
                return f
    elif key.path and kernel:
        return only_fix_in_kernel(fixes, tree / key.path, key.path, kernel, key.kind, cache, key.tensor)
    return None


def per_fix_sites(fixes: list[Fix], runs: list[RunResult], j: Judgement, orig: dict[SiteKey, Site],
                  cache: AstCache) -> dict[str, bool]:
    """Add to the original's sites what each per-fix run saw at its own fix; per fix, whether its
    runs' outputs differ from the fixed tree's or depend on the fill (its tail was reached even
    where no site is known).

    A per-fix run has every fix but one applied: a site it reports at that fix's lines is that
    fix's, even when, in the original, another fault stopped the process first (memcheck) or an
    overread of several fixes mixed in the outputs.
    """
    by_where = {f.where: f for f in fixes}
    outputs: dict[str, dict[int, dict[str, Any]]] = {}
    for r in runs:
        left_out = by_where.get(r.without_fix or "")
        if left_out is None:
            continue
        if r.fill is not None and r.outputs is not None:
            outputs.setdefault(left_out.where, {})[r.fill] = r.outputs
        maps = j.per_fix_maps.get(left_out.where, {})
        for v in list(r.violations) + list(_pad_violations(r)):
            line = v.get("line")
            if line is not None and v.get("path") in maps:
                line = map_fixed_line(maps[v["path"]], line)
                if line is None:
                    continue  # inside another fix's new text: the fixed tree's business
            v = {**v, "line": line}
            if _owner(fixes, SiteKey.of(v), v.get("kernel"), j.trees["original"], cache) is left_out:
                _add_original(orig, v, "memcheck" if r.fill is None else hex_fill(r.fill))
    fixed_outputs = {r.fill: r.outputs for r in runs if r.tree == "fixed" and r.fill is not None
                     and r.without_fix is None and r.outputs is not None}
    return {where: any(_changed(fixed_outputs.get(fill), o) or bool(outputs_identical(outs.get(j.zero, o), o))
                       for fill, o in outs.items())
            for where, outs in outputs.items()}


def _changed(fixed: dict[str, Any] | None, left_out: dict[str, Any]) -> bool:
    """Whether leaving one fix out changes the outputs at a fill (the fixed tree's at the same fill).

    The fill showing through is one way; an overrun that stays inside the storage (no fill
    reaches it) and changes the values is the other.
    """
    return fixed is not None and bool(outputs_identical(fixed, left_out))


# -- tying sites to fixes ----------------------------------------------------------------------


def _still_out(key: SiteKey, fixed: dict[SiteKey, Site], opcodes: LineMaps) -> bool:
    """Whether the fixed tree still goes out of bounds at an original site."""
    for fk in fixed:
        if fk.path != key.path or fk.kind != key.kind:
            continue
        if key.line is None:
            if fk.line is None and fk.tensor == key.tensor:
                return True
        elif fk.line is not None and map_fixed_line(opcodes.get(key.path or ""), fk.line) == key.line:
            return True
    return False


def attribute(report: Report, orig: dict[SiteKey, Site], fixed: dict[SiteKey, Site], j: Judgement,
              problems: list[str], cache: AstCache) -> None:
    """Judge every original site, tie it to the fix that owns it, and give the fixes their sites."""
    unmatched: list[Access] = []  # clean now, and on no fix's lines
    for f in report.fixes:
        f.sites = []
    for key, s in sorted(orig.items(), key=lambda kv: (kv[0].path or "", kv[0].line or 0)):
        match = _owner(report.fixes, key, s.kernel, j.trees["original"], cache)
        ok = Verdict.FAILED if problems else Verdict.VERIFIED
        if _still_out(key, fixed, j.opcodes):
            access = Access(s, Verdict.FAILED, STILL_OUT)
        elif match is None:
            # The fixer touched something else (a shared mask, say) and the site is clean now.
            access = Access(s, ok, "no fix on this line, but the fixed tree no longer goes out of bounds")
        else:
            access = Access(s, ok, "; ".join(problems))
        access.fix = match.where if match else None
        if match is not None:
            match.sites.append(access)
        elif access.verdict == Verdict.VERIFIED:
            unmatched.append(access)
        report.accesses.append(access)
    # A fix that edits no load or store (TL103 rewrites the host predicate of an evenness flag)
    # owns the sites of its file that no other fix owns and that the fixed tree no longer hits.
    for f in report.fixes:
        mine = [a for a in unmatched if a.path == f.path]
        if mine and not f.sites and not edits_an_access(j.trees["original"] / f.path, f.orig_lines):
            f.sites = mine


def new_fixed_sites(report: Report, orig: dict[SiteKey, Site], fixed: dict[SiteKey, Site],
                    opcodes: LineMaps) -> list[str]:
    """Fixed-tree sites with no original counterpart: the fix (or something) made new ones.
    Their owning fix fails; returns a reason for each."""
    reasons = []
    for fk, fv in fixed.items():
        if fk.line is None:
            if any(k.path == fk.path and k.line is None and k.kind == fk.kind and k.tensor == fk.tensor
                   for k in orig):
                continue
            orig_line = None
        else:
            orig_line = map_fixed_line(opcodes.get(fk.path or ""), fk.line)
        if orig_line is not None and any(k.path == fk.path and k.line == orig_line and k.kind == fk.kind
                                         for k in orig):
            continue
        where = f"{fk.path}:{fk.line}"
        owner = None
        for f in report.fixes:
            if fk.line is not None and f.path == fk.path and f.fixed_lines[0] <= fk.line <= max(f.fixed_lines):
                owner = f
        report.accesses.append(Access(fv, Verdict.FAILED, f"fixed tree goes out of bounds at {where}",
                                      owner.where if owner else None, in_fixed_tree=True))
        reasons.append(f"fixed tree goes out of bounds at {where} ({fk.kind} of {fk.tensor})")
        if owner is not None:
            owner.verdict, owner.reason = Verdict.FAILED, f"the fixed code goes out of bounds at {where}"
    return reasons


# -- a verdict per fix -------------------------------------------------------------------------


@dataclass
class _Evidence:
    """What a fix's verdict is weighed on, beside its own sites."""

    outputs: OutputEvidence
    have_site_info: bool  # the runs can place an access on a line (interpreter, memcheck)
    any_original_site: bool
    runs_incomplete: bool  # a run other than a faulting memcheck run did not finish
    several: int  # how many fixes there are
    per_fix_fill: dict[str, bool]  # per fix with its own runs: whether leaving it out changed the outputs


def _verified_reason(f: Fix, ev: _Evidence) -> str:
    out = ev.outputs
    zero = hex_fill(out.zero)
    if f.sites:
        reason = ("original goes out of bounds here; fixed tree does not, outputs identical across "
                  f"fills and equal to the original at fill {zero}")
    elif ev.per_fix_fill.get(f.where):
        reason = ("with every other fix applied, the outputs change only while this fix is left out; "
                  "the fixed tree's do not depend on the fill")
    else:
        reason = "original outputs depend on the fill; fixed outputs do not" if out.fill_evidence else (
            "no access goes out of bounds; the original is off the harness reference where the "
            "fixed tree is on it: " + ", ".join(sorted(out.explained)))
        if ev.several > 1:
            reason += (f" (said of the {ev.several} fixes together: without --sanitizer a GPU run "
                       "cannot tell which line the fill reached; prove one with --only FILE:LINE)")
    if out.explained and (f.sites or out.original_fill_dependent):
        reason += (" except where the original is off the harness reference "
                   "(an overrun inside the storage): " + ", ".join(sorted(out.explained)))
    return reason


def _reached(f: Fix, ev: _Evidence) -> bool:
    """Whether some run reached the fix's tail: its own sites, its own runs' outputs, or (when no
    run can name a line) the outputs of all runs together."""
    if f.sites or ev.per_fix_fill.get(f.where):
        return True
    if f.where in ev.per_fix_fill:
        return False  # it had runs of its own, and they did not reach it
    return (not ev.have_site_info and ev.outputs.any) or (bool(ev.outputs.explained) and not ev.any_original_site)


def _unreached_note(f: Fix, ev: _Evidence) -> str:
    """What else the runs saw, for a fix no run reached."""
    if f.where in ev.per_fix_fill:
        return "; with every other fix applied, leaving it out changes no output"
    if ev.outputs.fill_evidence:
        return " (though original outputs depend on the fill)"
    if ev.outputs.explained:
        return " (though the original is off the harness reference)"
    return ""


def judge_fix(f: Fix, ev: _Evidence, compile_problems: list[str]) -> None:
    """The verdict of one fix: failed, verified, or not reached (NOT_EXERCISED)."""
    if f.verdict == Verdict.FAILED:
        return
    bad_sites = [s for s in f.sites if s.verdict == Verdict.FAILED]
    if bad_sites:
        f.verdict, f.reason = Verdict.FAILED, "; ".join(sorted({s.reason for s in bad_sites}))
    elif compile_problems:
        f.verdict, f.reason = Verdict.FAILED, "; ".join(compile_problems)
    elif _reached(f, ev):
        # In bounds but wrong is reached too, with the harness reference as the evidence (TL105's
        # masked-off lanes in a reduction; TL104's padded tile reaching the next group).
        if ev.outputs.problems or ev.runs_incomplete:
            f.verdict = Verdict.FAILED
            f.reason = "; ".join(ev.outputs.problems) or "a harness run did not complete"
        else:
            f.verdict, f.reason = Verdict.VERIFIED, _verified_reason(f, ev)
    else:
        f.verdict = Verdict.NOT_EXERCISED
        f.reason = "the harness never made this access go out of bounds" + _unreached_note(f, ev)


# -- the overall verdict -----------------------------------------------------------------------


def overall(fixes: list[Fix], problems: list[str], strict: bool,
            original_misbehaves: bool) -> tuple[Verdict, list[str]]:
    """The report's verdict from the verdicts of its fixes, and the reasons it adds.

    VERIFIED when every fix a run reached is verified, at least one was, and nothing outside the
    fixes went wrong (`problems`: a crashed run, wrong fixed outputs, an access no fix owns still
    out of bounds). Fixes no run reached are listed, not held against the others, unless `strict`.
    """
    reached = [f for f in fixes if f.reached]
    not_reached = [f.where for f in fixes if not f.reached]
    if not problems and reached and all(f.verdict == Verdict.VERIFIED for f in reached):
        if strict and not_reached:
            return Verdict.NOT_EXERCISED, ["--strict: no run reached the fix at " + ", ".join(not_reached)]
        return Verdict.VERIFIED, []
    if problems or any(f.verdict == Verdict.FAILED for f in fixes):
        return Verdict.FAILED, []
    if not fixes and original_misbehaves:
        return Verdict.FAILED, ["the original goes out of bounds (or depends on the fill) but the fixer changed nothing"]
    if not fixes:
        return Verdict.NOT_EXERCISED, ["no fixes to verify and no out-of-bounds access in the original"]
    return Verdict.NOT_EXERCISED, ["the harness never reached the tail of: " + ", ".join(not_reached)]


def judge(report: Report, j: Judgement) -> None:
    """Fill in the verdicts of the report's accesses, fixes and the report itself from its runs."""
    runs = report.runs
    cache: AstCache = {}
    run_problems = _run_problems(runs)
    orig, fixed = collect_sites(runs)
    per_fix_fill = per_fix_sites(report.fixes, runs, j, orig, cache)
    outputs = weigh_outputs(runs, j.zero, j.rtol, j.atol, j.ref_tol)
    report.checks = {**outputs.checks, "original_oob_sites": len(orig), "fixed_oob_sites": len(fixed)}
    attribute(report, orig, fixed, j, outputs.problems, cache)
    fixed_tree = new_fixed_sites(report, orig, fixed, j.opcodes)
    compile_problems = [p for c in report.compile if c.get("ok") is False for p in c["problems"]]
    ev = _Evidence(outputs, j.device == "cpu" or any(r.fill is None and r.sanitizer_errors is not None for r in runs),
                   bool(orig), any(r.status != "ok" and not (r.fill is None and r.sanitizer_errors)
                                   and r.without_fix is None for r in runs),
                   len(report.fixes), per_fix_fill)
    for f in report.fixes:
        judge_fix(f, ev, [p for c in report.compile if c.get("ok") is False and c["path"] == f.path
                          for p in c["problems"]])
    unfixed = [a for a in report.accesses if a.verdict == Verdict.FAILED and not a.in_fixed_tree]
    unfixed_reasons = [f"{a.path}:{a.line}: {a.kind} of {a.tensor}: {a.reason}" for a in unfixed]
    compile_reasons = [f"compile check: {p}" for p in compile_problems]
    reasons = run_problems + outputs.problems + fixed_tree + compile_reasons + unfixed_reasons
    # What fails the run beyond the verdicts of the fixes: a failed access that no fix owns
    # counts here; one a fix owns has already failed that fix.
    problems = (run_problems + outputs.problems + compile_reasons
                + [r for a, r in zip(unfixed, unfixed_reasons) if a.fix is None]
                + [a.reason for a in report.accesses if a.in_fixed_tree and a.fix is None])
    report.verdict, more = overall(report.fixes, problems, j.strict, bool(orig) or outputs.any)
    report.strict = j.strict
    report.reasons = list(dict.fromkeys(reasons + more))
