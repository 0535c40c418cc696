"""PredicateFinding: a weak evenness predicate, placed where it is written when it is in this file."""

from __future__ import annotations

from dataclasses import dataclass

from tritonlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from tritonlint.finding import FileView, Finding
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.host.flag_setters import WeakPredicate
from tritonlint.semantic.host.weak_facts import weak_facts
from tritonlint.source.locations import Span, char_column


@dataclass(frozen=True)
class PredicateFinding(Finding):
    """The predicate setting an evenness flag, and the kernel whose flag it sets."""

    weak: WeakPredicate
    context: KernelContext

    def facts(self) -> tuple[tuple[str, str], ...]:
        """What the witness launches: the kernel, the predicate in its names, and an access it lets through."""
        return weak_facts(self.weak, self.context)

    def diagnostic(self, code: str, name: str, file: FileView) -> Diagnostic:
        """At the predicate where it is in this file (a launch argument, a heuristics lambda), else at
        the kernel's flag parameter with a note naming where it is set."""
        weak, model, text, starts = self.weak, self.context, file.text, file.starts
        walks = f"the kernel walks {weak.walked} in tiles of {weak.tile} and drops its masks when {weak.flag} is True"
        notes = [walks, f"full tiles need `{weak.needs}`"]
        span: Span | None = None
        if weak.node is not None:
            span = model.span_of(weak.node)
        elif weak.launch is not None and weak.launch.local and weak.span is not None:
            line, column, end_line, end_column = weak.span
            span = Span(line, char_column(text, starts, line, column), end_line,
                        char_column(text, starts, end_line, end_column))
        in_place = span is not None  # at the predicate itself, which the fix can rewrite
        if span is None:
            param = next(p for p in model.function.params.params if p.name.value == weak.flag)
            span = model.span_of(param.name)
            notes.insert(0, f"set at {weak.where} by `{weak.text}`")
        elif weak.launch is not None:
            notes.insert(0, f"sets {weak.flag} for the launch at {weak.launch.where}")
        start, end = starts[span.line - 1] + span.column, starts[span.end_line - 1] + span.end_column
        if weak.replacement and in_place:
            fix = Fix(f"Test `{weak.replacement}`", Applicability.UNSAFE, (Edit(start, end, weak.replacement),))
        else:
            fix = Fix(f"Test `{weak.needs}` where {weak.flag} is set", Applicability.DISPLAY_ONLY, ())
            why = "the tile is not named where the flag is set" if not weak.replacement else \
                "the predicate is in another file"
            notes.append(f"no fix: {why}")
        message = f"`{weak.text}` sets {weak.flag} without implying full tiles of {weak.tile}"
        return Diagnostic(code=code, name=name, message=message, path=file.path, line=span.line,
                          column=span.column + 1, end_line=span.end_line, end_column=span.end_column + 1,
                          notes=tuple(notes), fix=fix, start_offset=start, end_offset=end, facts=self.facts())
