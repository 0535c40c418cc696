"""The verification report as text (JSON is `Report.to_dict`)."""

from __future__ import annotations

from tritonlint.verify.records import Access, Fix, Report, Verdict, describe_outputs, hex_fill


def _describe_site(a: Access) -> str:
    s, k = a.site, a.site.key
    edge = {"after": "past the end of", "before": "before the start of"}.get(s.direction or "", "outside")
    where = f"{k.path}:{k.line}" if k.line else f"{k.path} (no line)"
    if s.source == "compute-sanitizer":
        size = f" of {s.allocation_size} bytes" if s.allocation_size else ""
        return (f"original {k.kind} at {where} ran up to {s.max_bytes} byte(s) {edge} "
                f"`{k.tensor}`{size} (kernel {s.kernel}, memcheck: {s.count} error(s))")
    if s.source == "pad check":
        return (f"original {k.kind} in kernel {s.kernel} wrote {edge} `{k.tensor}` "
                f"(its fill-padded allocation changed; fills {', '.join(s.fills)})")
    return (f"original {k.kind} at {where} ran up to {s.max_elements} element(s) {edge} "
            f"`{k.tensor}` (kernel {s.kernel}, fills {', '.join(s.fills)})")


def _fix_line(f: Fix) -> str:
    state = "not reached" if f.verdict == Verdict.NOT_EXERCISED else str(f.verdict)
    return f"  fix {f.where}: {state}" + (f" - {f.reason}" if f.reason else "")


def _tally(report: Report) -> str | None:
    """How many fixes each verdict has, when they do not all share one."""
    counts = {v: len(report.fixes_by(v)) for v in Verdict}
    if len([n for n in counts.values() if n]) < 2:
        return None
    text = (f"  fixes: {counts[Verdict.VERIFIED]} verified, {counts[Verdict.FAILED]} failed, "
            f"{counts[Verdict.NOT_EXERCISED]} not reached by any run")
    if counts[Verdict.NOT_EXERCISED] and not report.strict:
        text += " (--strict fails the run on those)"
    return text


def _counts(d: dict[str, int] | None) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in (d or {}).items()) + "}"


def _outputs_line(report: Report) -> list[str]:
    c = report.checks
    if not c:
        return []
    zero = next((k for k in c if k.startswith("fixed_vs_original_at_")), None)
    same = None if zero is None or c[zero] is None else not c[zero]
    rel = c.get("fixed_vs_reference_relative_error") or {}
    off = next((v for k, v in c.items() if k.startswith("original_off_reference_at_") and v), None)
    lines = [("  outputs: NaN original " + _counts(c.get("original_nan")) + ", fixed "
             + _counts(c.get("fixed_nan")) + "; depend on the fill: original "
             + (", ".join(c.get("original_fill_dependent") or []) or "no") + ", fixed "
             + (", ".join(c.get("fixed_fill_dependent") or []) or "no")
             + (f"; fixed == original at {zero[len('fixed_vs_original_at_'):]}"
                f"{' in the other outputs' if off else ''}: {'yes' if same else 'no'}"
                if same is not None and zero else "")
             + ("; fixed vs reference: " + ", ".join(f"{k} {v:.4%} of max|ref|" for k, v in rel.items())
                if rel else ""))]
    if off:
        lines.append("  original off the reference (where it differs from the fixed tree): " + ", ".join(
            f"{k} {v['elements']} element(s), up to {v['max_original_error']:.4g} off"
            for k, v in sorted(off.items())))
    return lines


def format_text(report: Report, keep: bool = False) -> str:
    """The report as a user reads it: the verdict, each fix and its sites, the runs, the reasons."""
    fills = ", ".join(hex_fill(f) or "" for f in report.fills)
    head = (f"tritonlint verify: {report.verdict.upper()}  ({report.path}, harness {report.harness}, "
            f"device {report.device}, fills {fills})")
    lines = [head]
    tally = _tally(report)
    if tally:
        lines.append(tally)
    for w in report.witness:
        launch = w.get("launch")
        shape = (", ".join(f"{k}={v}" for k, v in launch["sizes"].items()) + f"; grid {tuple(launch['grid'])}"
                 if launch else "")
        lines.append(f"  witness {w['where']} {w['code']}: " + (f"launched ({shape})" if launch else
                     f"no launch ({w['status']}: {w['reason']})"))
    for f in report.fixes:
        lines.append(_fix_line(f))
        lines.extend("    " + _describe_site(s) for s in f.sites)
    for a in report.accesses:
        if a.fix:
            continue
        where = f"{a.path}:{a.line}" if a.line else f"{a.path} ({a.site.kernel})"
        lines.append(f"  access {where} {a.kind} of `{a.tensor}`: {a.verdict} - {a.reason}")
    for c in report.compile:
        state = {True: "ok", False: "FAILED", None: "not compiled"}[c.get("ok")]
        lines.append(f"  compile sm_90 {c['path']}::{c['kernel']}: {state}"
                     + (f" - {'; '.join(c['problems'])}" if c["problems"] else ""))
    for r in report.runs:
        nan = sum(d["nan"] for d in (describe_outputs(r.outputs) or {}).values())
        written = len((r.allocator or {}).get("written_past", []))
        tree = r.tree if r.without_fix is None else f"without {r.without_fix}"
        lines.append(f"  run {tree:8} fill {hex_fill(r.fill) or 'memcheck'!s:8} {r.status:8} "
                     f"{r.elapsed:6.1f}s  NaN {nan if r.outputs is not None else '-':>6}  "
                     f"{len(r.violations)} OOB site(s)"
                     + (f"  {written} allocation(s) written past" if r.allocator else "")
                     + (f"  memcheck errors: {r.sanitizer_errors}" if r.sanitizer_errors is not None else "")
                     + (f"  log {r.log}" if keep else ""))
    lines.extend(_outputs_line(report))
    lines.extend(f"  reason: {reason}" for reason in report.reasons)
    return "\n".join(lines)
