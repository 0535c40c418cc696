"""`check --explain PATH:LINE`: the analysis's reasons for every access on one line, reported or not."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import libcst as cst

from tritonlint.config import Config
from tritonlint.engine import build_contexts, check_source, parse_file
from tritonlint.rule import all_rules
from tritonlint.runner import SourceFile, neighbours_of
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.ir import Access
from tritonlint.semantic.verdicts import Judgement


class ExplainError(Exception):
    """The file cannot be read or parsed: one line naming it and the reason."""


def explain(path: str, line: int, config: Config) -> tuple[list[str], bool]:
    """The explanation of `path:line` as lines of text, and whether a finding is reported there."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ExplainError(f"{path}: cannot read: {error}") from error
    return explain_source(path, text, line, config)


def explain_source(path: str, text: str, line: int, config: Config) -> tuple[list[str], bool]:
    """`explain` of a text that need not be on disk (an editor's unsaved buffer)."""
    try:
        found, kernels = parse_file(text)
    except Exception as error:  # a syntax error of any parser: one line, no traceback
        raise ExplainError(f"{path}: cannot parse: {error}") from error
    neighbours = neighbours_of(SourceFile(path, Path(path)))
    models, helpers, _ = build_contexts(path, text, found, kernels, config, neighbours, strict=True)
    report = check_source(path, text, config, neighbours=neighbours)
    findings = [d for d in report.diagnostics if d.line <= line <= d.end_line]
    out: list[str] = []
    try:
        for kernel, model in models:
            for access in model.accesses:
                span = model.span_of(access.call)
                if span.line <= line <= span.end_line:
                    out.append(f"{path}:{span.line}:{span.column + 1}: {access.call_name}({_source(model, access.pointer)}, ...) "
                               f"in {kernel.name}")
                    out.extend(_judged(model, access, model.hazards.judgements(access)))
                    out.extend(_seen_from_callers(models, model, access))
    finally:
        helpers.clear()  # the models refer to each other through `helpers`: no cycle left behind
    if not out:
        out.append(f"{path}:{line}: no tl.load or tl.store of a jit function on this line")
    for finding in findings:
        if finding.fix is not None:  # what the fix does, and why it is safe or not
            out.append(f"fix ({finding.fix.applicability.value}): {finding.fix.title}")
        out.append(f"verdict: reported as {finding.code} at {path}:{finding.line}:{finding.column}: {finding.message}")
    if not findings:
        out.append("verdict: nothing reported on this line")
    return out, bool(findings)


def _judged(model: KernelContext, access: Access, judgements: Iterator[Judgement], indent: str = "  ") -> list[str]:
    lines = [f"{indent}mask: {_source(model, access.mask) if access.mask is not None else 'none'}"
             + (f"; boundary_check: {_source(model, access.boundary_check)}" if access.boundary_check is not None
                else "")]
    if not model.walker.walks(access):
        return lines + [f"{indent}walks no tiled dimension (a scalar access): nothing to bound"]
    for judged in judgements:
        lines.append(f"{indent}walks {model.describe_walk(judged.walk)}")
        if judged.hazard is not None:
            lines.append(f"{indent}  partial tile: {judged.hazard.evidence}")
            lines.append(f"{indent}  unbounded: {judged.hazard.condition}")
        else:
            lines.append(f"{indent}  bounded: {judged.reason}")
            if judged.fact is not None:
                where = _line(model, judged.fact.node)
                lines.append(f"{indent}  fact: {judged.fact.idiom}" + (f" (line {where})" if where else ""))
    for rule in all_rules():  # each rule's own reading of the access (of its mask, of its masked lanes)
        lines += rule().explain(model, access, indent)
    return lines


def _source(model: KernelContext, node: cst.CSTNode) -> str:
    """The node as written (on one line), or as printed for a caller's view of a helper access."""
    return " ".join(model.module.code_for_node(node).split())


def _line(model: KernelContext, node: cst.CSTNode | None) -> int | None:
    """The line of a fact's node, when it has one in this kernel."""
    if node is None:
        return None
    try:
        return model.line_of(node)
    except KeyError:  # a node of another kernel's tree (a helper's, say)
        return None


def _seen_from_callers(models: Sequence[tuple[object, KernelContext]], helper: KernelContext,
                       access: Access) -> list[str]:
    """A jit helper's access judged at each call site, with the caller's offsets and flags."""
    lines: list[str] = []
    for _, caller in models:
        for site in caller.ir.calls:
            if caller.helpers.get(site.name) is not helper or caller is helper:
                continue
            for inner, view in caller.hazards.inline(site, helper):
                if inner is access:
                    lines.append(f"  seen from {caller.function.name.value} at line {caller.line_of(site.call)}:")
                    lines.extend(_judged(caller, view, caller.hazards.judgements(view), indent="    "))
    return lines
