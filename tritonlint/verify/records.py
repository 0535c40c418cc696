"""The verifier's records: verdicts, fixes, runs, out-of-bounds sites and the report they make up."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

DEFAULT_FILLS = (0x00, 0xFE, 0xFF)


class VerifyError(Exception):
    """A problem with the inputs or the fixer, as opposed to a verdict (exit code 2)."""


class HarnessError(VerifyError):
    """The harness failed on both trees: nothing about the fix can be concluded (exit code 2)."""


class Verdict(StrEnum):
    """What the runs proved about one fix, one access site, or the whole report.

    A str enum, so that the JSON report and comparisons with the plain strings stay as they were.
    """

    VERIFIED = "verified"
    FAILED = "failed"
    NOT_EXERCISED = "not-exercised"  # of a fix: no run reached it; of a report: nothing was proven


def hex_fill(fill: int | None) -> str | None:
    """A fill byte as written in reports ("0xff"); None (a memcheck run) stays None."""
    return None if fill is None else f"0x{fill:02x}"


@dataclass(frozen=True)
class SiteKey:
    """Where an access went out of bounds: one call (or one kernel, when no line is known) and tensor."""

    path: str | None
    line: int | None
    kind: str  # load, store or atomic
    tensor: str

    @staticmethod
    def of(violation: dict[str, Any]) -> SiteKey:
        return SiteKey(violation.get("path"), violation.get("line"), violation["kind"],
                       violation.get("tensor", "?"))


@dataclass
class Site:
    """An out-of-bounds access site of one tree, merged over the runs that hit it."""

    key: SiteKey
    kernel: str | None = None
    direction: str | None = None
    max_elements: int | None = None
    source: str = "interpreter"  # interpreter, compute-sanitizer or pad check
    max_bytes: int | None = None
    count: int | None = None
    allocation_size: int | None = None
    fills: list[str] = field(default_factory=list)  # "0xff", "memcheck": the runs that saw it

    @staticmethod
    def of(violation: dict[str, Any]) -> Site:
        return Site(SiteKey.of(violation), violation.get("kernel"), violation.get("direction"),
                    violation.get("max_elements"), violation.get("source", "interpreter"),
                    violation.get("max_bytes"), violation.get("count"), violation.get("allocation_size"))


@dataclass
class Access:
    """A judged out-of-bounds site: which fix owns it and what became of it in the fixed tree."""

    site: Site
    verdict: Verdict
    reason: str
    fix: str | None = None  # "path:line" of the owning fix
    in_fixed_tree: bool = False  # a site the fixed tree made (it has no original counterpart)

    @property
    def path(self) -> str | None:
        return self.site.key.path

    @property
    def line(self) -> int | None:
        return self.site.key.line

    @property
    def kind(self) -> str:
        return self.site.key.kind

    @property
    def tensor(self) -> str:
        return self.site.key.tensor

    def to_dict(self) -> dict[str, Any]:
        s = self.site
        if self.in_fixed_tree:
            return {"path": self.path, "line": self.line, "kind": self.kind, "tensor": self.tensor,
                    "kernel": s.kernel, "max_elements": s.max_elements, "direction": s.direction,
                    "fills": [], "tree": "fixed", "fix": self.fix, "verdict": str(self.verdict),
                    "reason": self.reason}
        return {"path": self.path, "line": self.line, "kind": self.kind, "tensor": self.tensor,
                "kernel": s.kernel, "max_elements": s.max_elements, "direction": s.direction,
                "fills": s.fills, "source": s.source, "max_bytes": s.max_bytes, "count": s.count,
                "allocation_size": s.allocation_size, "fix": self.fix, "verdict": str(self.verdict),
                "reason": self.reason}


@dataclass
class Fix:
    """A changed region of a file, found by diffing the original and fixed trees."""

    path: str  # relative to root
    orig_lines: tuple[int, int]  # 1-based inclusive range in the original (start > end: insertion)
    fixed_lines: tuple[int, int]
    diff: str
    verdict: Verdict = Verdict.NOT_EXERCISED
    reason: str = ""
    sites: list[Access] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.orig_lines[0]}"

    @property
    def reached(self) -> bool:
        """Whether some run reached this fix (verified or failed): only a reached fix has a verdict."""
        return self.verdict != Verdict.NOT_EXERCISED

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.orig_lines[0], "orig_lines": list(self.orig_lines),
                "fixed_lines": list(self.fixed_lines), "verdict": str(self.verdict),
                "reached": self.reached, "reason": self.reason,
                "sites": [s.to_dict() for s in self.sites], "diff": self.diff}


@dataclass
class RunResult:
    """One harness run in one tree: its status, the out-of-bounds accesses it saw and its outputs."""

    tree: str  # "original" or "fixed"
    fill: int | None  # None for a compute-sanitizer run
    status: str = "ok"  # ok, crashed, timeout
    error: str | None = None
    elapsed: float = 0.0
    violations: list[dict[str, Any]] = field(default_factory=list)  # paths relative to the tree
    launches: list[dict[str, Any]] = field(default_factory=list)
    specs: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] | None = None
    reference: dict[str, Any] | None = None
    sanitizer_errors: int | None = None
    log: str = ""  # the run's own stdout/stderr (kept with --keep)
    allocator: dict[str, Any] | None = None  # padded-allocator summary of a poisoned GPU run
    # "path:line" of the one fix left out of this run's tree (every other fix applied): a run that
    # attributes what it sees to that fix alone. None for the original and fixed trees.
    without_fix: str | None = None

    def summary(self) -> dict[str, Any]:
        return {"tree": self.tree, "fill": hex_fill(self.fill), "status": self.status,
                "error": self.error, "elapsed": round(self.elapsed, 3),
                "violations": self.violations, "launches": self.launches,
                "outputs": describe_outputs(self.outputs),
                "sanitizer_errors": self.sanitizer_errors, "log": self.log,
                "allocator": self.allocator, "without_fix": self.without_fix}


@dataclass
class Report:
    """Everything one verification found: the fixes and their verdicts, the runs, the checks."""

    path: str
    harness: str
    root: str
    device: str
    fills: list[int]
    runs: list[RunResult] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)
    accesses: list[Access] = field(default_factory=list)
    checks: dict[str, Any] = field(default_factory=dict)
    compile: list[dict[str, Any]] = field(default_factory=list)
    verdict: Verdict = Verdict.NOT_EXERCISED
    reasons: list[str] = field(default_factory=list)
    strict: bool = False  # --strict: a fix no run reached fails the run
    # No --harness: what the witness made of each fixable finding (its launch, or why none).
    witness: list[dict[str, Any]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == Verdict.VERIFIED else 1

    def fixes_by(self, verdict: Verdict) -> list[str]:
        return [f.where for f in self.fixes if f.verdict == verdict]

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "harness": self.harness, "root": self.root,
                "device": self.device, "fills": [hex_fill(f) for f in self.fills],
                "verdict": str(self.verdict), "reasons": self.reasons, "exit_code": self.exit_code,
                "strict": self.strict, "verified_fixes": self.fixes_by(Verdict.VERIFIED),
                "failed_fixes": self.fixes_by(Verdict.FAILED),
                "not_reached_fixes": self.fixes_by(Verdict.NOT_EXERCISED),
                "fixes": [f.to_dict() for f in self.fixes],
                "accesses": [a.to_dict() for a in self.accesses],
                "checks": self.checks, "compile": self.compile,
                "runs": [r.summary() for r in self.runs],
                **({"witness": self.witness} if self.witness else {})}


def describe_outputs(outputs: dict[str, Any] | None) -> dict[str, Any] | None:
    """Shape, dtype and NaN count of each output tensor (the tensors themselves stay out of reports)."""
    if outputs is None:
        return None
    import torch

    desc = {}
    for k, t in outputs.items():
        nan = int(torch.isnan(t).sum()) if t.is_floating_point() else 0
        desc[k] = {"shape": list(t.shape), "dtype": str(t.dtype), "nan": nan}
    return desc
