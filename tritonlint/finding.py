"""What a rule reports: a frozen finding that words itself, proposes its fix and becomes a diagnostic."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from tritonlint.diagnostics import Applicability, Diagnostic, Fix
from tritonlint.fixing.edits import fitted_edit
from tritonlint.fixing.masks import CallFix
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.host.weak_facts import weak_facts
from tritonlint.semantic.verdicts import TailHazard


@dataclass(frozen=True)
class FileView:
    """The file a finding is placed in: its path, text and line starts, and the longest line a fix
    may leave before it names its mask on the line above. Without `fixes`, an access's fix (the
    costly part of a diagnostic) is left out, and so are the notes only the fix writes."""

    path: str
    text: str
    starts: Sequence[int]
    line_length: int = 0
    fixes: bool = True


class Finding:
    """One thing a rule reports. Subclasses are frozen dataclasses carrying everything their message
    and fix need (the verdict that made them): neither re-runs an analysis."""

    def key(self) -> Hashable | None:
        """Reported once per key and rule (a helper's access, reached from two callers); None: once
        per place in the file (a predicate shared by two kernels' launch)."""
        return None

    def diagnostic(self, code: str, name: str, file: FileView) -> Diagnostic:
        """The finding placed in the file, with its message, notes and fix."""
        raise NotImplementedError


@dataclass(frozen=True)
class AccessFinding(Finding):
    """A `tl.load` or `tl.store` judged to run past the end: the hazard, and the context of the
    jit function that holds the access (a helper's, when a caller reaches it)."""

    hazard: TailHazard
    context: KernelContext

    def key(self) -> Hashable:
        return id(self.hazard.access)

    def message(self) -> str:
        """The finding's first line."""
        raise NotImplementedError

    def fix(self) -> CallFix | None:
        """The rewritten call, or why there is none; None when the rule offers no fix."""
        return None

    def facts(self) -> tuple[tuple[str, str], ...]:
        """What the finding names, for tools (`Diagnostic.facts`): the weak predicate (TL103) that lets
        the access run unmasked, whose launches the witness builds; none otherwise."""
        if self.hazard.weak is None:
            return ()
        return tuple((k, v) for k, v in weak_facts(self.hazard.weak, self.context) if k != "access")

    def predicate_fix(self) -> Fix:
        """Where a weak predicate lets the access run unmasked: it is fixed where it is written."""
        return Fix(f"Test {self.hazard.predicate} instead", Applicability.DISPLAY_ONLY, ())

    def diagnostic(self, code: str, name: str, file: FileView) -> Diagnostic:
        hazard, model, text, starts = self.hazard, self.context, file.text, file.starts
        span = model.span_of(hazard.access.call)
        line, end_line = span.line, span.end_line
        start_offset = starts[line - 1] + span.column
        end_offset = starts[end_line - 1] + span.end_column
        message = self.message()
        notes = [hazard.condition, f"walks {hazard.walked or model.describe_walk(hazard.walk)}", hazard.evidence]
        if hazard.guard:
            notes.append(hazard.guard)
        fix = None
        proposed = self.fix() if file.fixes and not hazard.via and not hazard.predicate else None
        if hazard.predicate:
            fix = self.predicate_fix()
        if hazard.via:
            notes.insert(0, f"in a jit helper, {hazard.via}")
            notes.append("no fix: the offsets and bound live in the caller; pass a mask into the helper")
            fix = Fix("pass a mask into the helper", Applicability.DISPLAY_ONLY, ())
        if proposed is not None:
            if proposed.new_call is None:
                notes.append(f"no fix: {proposed.title}")
                fix = Fix(proposed.title, Applicability.DISPLAY_ONLY, ())
            else:
                kernel = model.outline
                assert kernel is not None, "a fix is printed into the file the context was built from"
                edit = fitted_edit(model, kernel, hazard, proposed.new_call, text, span, starts, file.line_length)
                fix = Fix(proposed.title, proposed.applicability, (edit,))
        return Diagnostic(
            code=code, name=name, message=message, path=file.path,
            line=line, column=span.column + 1, end_line=end_line, end_column=span.end_column + 1,
            notes=tuple(notes), fix=fix, start_offset=start_offset, end_offset=end_offset, facts=self.facts(),
        )
