"""InsufficientMaskFinding: a mask that misses an axis the pointer walks, with the verdict that says which shape."""

from __future__ import annotations

from dataclasses import dataclass

from tritonlint.finding import AccessFinding
from tritonlint.fixing.masks import CallFix
from tritonlint.semantic.ir import PROGRAM

from .analysis import MaskSufficiency, SufficiencyVerdict
from .fix import sufficiency_fix


@dataclass(frozen=True)
class InsufficientMaskFinding(AccessFinding):
    """The verdict that made the finding, every verdict on the same access (a swapped store re-broadcasts
    all its axes at once), and the reading that judged them (its questions answer the fix)."""

    verdict: SufficiencyVerdict
    verdicts: tuple[SufficiencyVerdict, ...]
    reading: MaskSufficiency

    def message(self) -> str:
        """By the shape that made the finding."""
        verdict, hazard = self.verdict, self.hazard
        call = hazard.access.call_name
        label = f"`{self.context.label(hazard.walk.dim or '')}`"
        if verdict.shape == "axes":
            return f"the mask of {call} bounds {label} on another axis than the pointer walks it"
        if verdict.shape == "units":
            return (f"the mask of {call} compares the packed tile {label} with a bound in unpacked units "
                    f"({verdict.slices[1]} per tile)")
        if verdict.shape == "group":
            return (f"the mask of {call} bounds {label} by the tensor's end only, but the tile of "
                    f"{verdict.slices[0]} lanes is wider than the group of `{verdict.slices[1]}` it walks")
        if verdict.shape == "late":
            return (f"the mask of {call} bounds {label} before an offset is added: the pointer walks "
                    f"`{verdict.slices[0]}`")
        if verdict.shape == "inclusive":
            return (f"the mask of {call} lets {label} reach its bound (`{verdict.slices[0]}`), one lane past "
                    f"where the mask at line {verdict.slices[1]} stops the same offsets")
        if verdict.shape == "start":
            return (f"the mask of {call} bounds {label} from above only, but the pointer shifts it below the "
                    f"tensor's start: the first tile's first lanes reach before it (no `{verdict.slices[1]}`)")
        mover = "the program id" if verdict.shift == PROGRAM else "the loop"
        return (f"the mask of {call} bounds {label} as in-tile offsets against the whole extent, but {mover} "
                "moves the pointer's tile")

    def facts(self) -> tuple[tuple[str, str], ...]:
        """A tile wider than its group names both: the witness's padded-group oracle launches with them.
        Offsets shifted before the start name the lower bound they miss."""
        if self.verdict.shape == "group":
            return (("tile", str(self.verdict.slices[0])), ("group", str(self.verdict.slices[1])))
        if self.verdict.shape == "start":
            # The witness takes a read before the start as the evidence, at full tiles too (the first tile's).
            return (("before_start", self.verdict.slices[1]),)
        return ()

    def fix(self) -> CallFix:
        return sufficiency_fix(self.reading, self.verdict, self.verdicts)
