"""TailTileFinding: an access that can run on a partial tile of a walked dimension with no mask bounding it."""

from __future__ import annotations

from dataclasses import dataclass

from tritonlint.diagnostics import Applicability, Fix
from tritonlint.finding import AccessFinding
from tritonlint.fixing.masks import CallFix
from tritonlint.semantic.context import KernelContext
from tritonlint.semantic.verdicts import TailHazard

from .fix import tail_fix


@dataclass(frozen=True)
class TailTileFinding(AccessFinding):
    """TL101/TL102 (fixable) and TL111/TL112 (kept from the tail by the host: no fix offered)."""

    fixable: bool = True

    @classmethod
    def of(cls, hazard: TailHazard, kernel: KernelContext, fixable: bool = True) -> TailTileFinding:
        """The finding in the context that holds the access: a jit helper's, when a caller reaches it."""
        owner = hazard.helper or kernel
        assert isinstance(owner, KernelContext)  # the engine builds every context of a file alike
        return cls(hazard, owner, fixable)

    def message(self) -> str:
        hazard = self.hazard
        call = hazard.access.call_name
        verb = "read" if hazard.access.kind == "load" else "write"
        what = f"`{self.context.label(hazard.walk.dim)}`" if hazard.walk.dim else "the loop's tile"
        return f"{call} can {verb} past the end of the tensor on a partial tail tile: no mask bounds {what}"

    def fix(self) -> CallFix | None:
        return tail_fix(self.context, self.hazard) if self.fixable else None

    def predicate_fix(self) -> Fix:
        # The predicate is TL103's finding, where it is written; the access is fixed there.
        return Fix(f"Test {self.hazard.predicate} instead (TL103)", Applicability.DISPLAY_ONLY, ())
