"""Comparing harness outputs: bit equality, new NaN, closeness, and the distance from a reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tritonlint.verify.records import RunResult, hex_fill


def _bits(t: Any) -> Any:
    import torch

    if t.dtype == torch.bool or not (t.is_floating_point() or t.is_complex()):
        return t
    int_ty = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}
    size = t.element_size()
    t = t.contiguous()
    return t.view(int_ty[size]) if size in int_ty and size != 16 else t.view(torch.int64)


def outputs_identical(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Keys whose tensors differ bit for bit (NaN payloads included)."""
    import torch

    diff = []
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b or a[k].shape != b[k].shape or a[k].dtype != b[k].dtype or not torch.equal(_bits(a[k]), _bits(b[k])):
            diff.append(k)
    return diff


def nan_mask(t: Any) -> Any:
    import torch

    return torch.isnan(t) if t.is_floating_point() else torch.zeros_like(t, dtype=torch.bool)


def new_nans(out: dict[str, Any], ref: dict[str, Any]) -> dict[str, int]:
    """NaN elements of `out` where `ref` has none, per key."""
    res = {}
    for k, t in out.items():
        m = nan_mask(t)
        if k in ref and ref[k].shape == t.shape:
            m = m & ~nan_mask(ref[k])
        n = int(m.sum())
        if n:
            res[k] = n
    return res


def mismatches(a: dict[str, Any], b: dict[str, Any], rtol: float, atol: float) -> dict[str, float]:
    """Keys not close (equal_nan) with their max abs difference."""
    import torch

    res = {}
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b or a[k].shape != b[k].shape:
            res[k] = float("inf")
            continue
        x, y = a[k], b[k]
        if rtol == 0 and atol == 0:
            same = torch.equal(_bits(x), _bits(y)) or bool(
                (x == y).logical_or(nan_mask(x) & nan_mask(y)).all())
        else:
            same = torch.allclose(x.double(), y.double(), rtol=rtol, atol=atol, equal_nan=True)
        if not same:
            d = (x.double() - y.double()).abs()
            d = d[~torch.isnan(d)]
            res[k] = float(d.max()) if d.numel() else float("nan")
    return res


def original_off_reference(orig: Any, fixed: Any, ref: Any, tol: float) -> dict[str, Any] | None:
    """Whether the original's difference from the fixed output is the original being wrong.

    None unless, at every element where the two differ (NaN payloads aside), the fixed output
    is within `tol` of max |ref| of the reference and the original is further from it than the
    fixed output is. Otherwise a summary: how many elements, and how far off the original is.
    """
    import torch

    if orig is None or fixed is None or ref is None or not (orig.shape == fixed.shape == ref.shape):
        return None
    x, y, r = orig.double(), fixed.double(), ref.to(orig.device).double()
    differ = ~((x == y) | (torch.isnan(x) & torch.isnan(y)))
    if not differ.any() or torch.isnan(r[differ]).any():
        return None
    finite = ~torch.isnan(r)
    scale = float(r[finite].abs().max()) if finite.any() else 0.0
    err_fixed = (y - r).abs()[differ]
    err_orig = (x - r).abs()[differ]
    err_orig = torch.where(torch.isnan(err_orig), torch.full_like(err_orig, float("inf")), err_orig)
    if torch.isnan(err_fixed).any() or bool((err_fixed > tol * scale).any()) or not bool((err_orig > err_fixed).all()):
        return None
    return {"elements": int(differ.sum()), "max_original_error": float(err_orig.max()),
            "max_fixed_error": float(err_fixed.max())}


def relative_error(out: dict[str, Any], ref: dict[str, Any]) -> dict[str, float]:
    """max |out - ref| / max |ref| per shared key."""
    res = {}
    for k in sorted(set(out) & set(ref)):
        x, y = out[k].double(), ref[k].double()
        if x.shape != y.shape:
            res[k] = float("inf")
            continue
        ok = ~(torch_isnan(x) | torch_isnan(y))
        scale = float(y[ok].abs().max()) if ok.any() else 0.0
        err = float((x[ok] - y[ok]).abs().max()) if ok.any() else 0.0
        res[k] = err / scale if scale else err
    return res


def torch_isnan(t: Any) -> Any:
    import torch

    return torch.isnan(t)


@dataclass
class OutputEvidence:
    """What the outputs of the poisoned runs say, both trees, and the problems they show in the fix."""

    zero: int  # the fill the trees are compared at (0x00 when it ran)
    checks: dict[str, Any] = field(default_factory=dict)  # the report's `checks`, less the site counts
    problems: list[str] = field(default_factory=list)  # what is wrong with the fixed outputs
    fill_evidence: bool = False  # the fill shows through the original's outputs
    # Outputs where the original differs from the fix and is off the harness reference (the
    # overrun stays inside the storage, where no fill reaches).
    explained: dict[str, dict[str, Any]] = field(default_factory=dict)
    original_fill_dependent: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        """Whether the outputs alone show the original misbehaving."""
        return self.fill_evidence or bool(self.explained)


def _fill_dependent(outputs: dict[int, dict[str, Any]], zero: int) -> list[str]:
    """Keys whose tensors change with the fill."""
    return sorted({k for o in outputs.values() for k in outputs_identical(outputs.get(zero, o), o)}) \
        if outputs else []


def _nan_counts(outputs: dict[int, dict[str, Any]]) -> dict[str | None, int]:
    return {hex_fill(f): sum(int(nan_mask(t).sum()) for t in o.values()) for f, o in outputs.items()}


def weigh_outputs(runs: list[RunResult], zero: int, rtol: float, atol: float,
                  ref_tol: float) -> OutputEvidence:
    """Compare the outputs of the poisoned runs of the original and fixed trees."""
    orig = {r.fill: r for r in runs if r.tree == "original" and r.fill is not None and r.without_fix is None}
    ok_orig = {f: r.outputs for f, r in orig.items() if f is not None and r.outputs is not None}
    ok_fixed = {r.fill: r.outputs for r in runs if r.tree == "fixed" and r.fill is not None
                and r.without_fix is None and r.outputs is not None}
    ev = OutputEvidence(zero)
    ev.original_fill_dependent = orig_fill_dep = _fill_dependent(ok_orig, zero)
    fixed_fill_dep = _fill_dependent(ok_fixed, zero)
    orig_nan = _nan_counts(ok_orig)
    ref_run = orig.get(zero)
    harness_ref = ref_run.reference if ref_run is not None else None
    reference = harness_ref if harness_ref else ok_orig.get(zero)
    extra_nans = {hex_fill(f): new_nans(o, reference) for f, o in ok_fixed.items()} if reference else {}
    extra_nans = {f: n for f, n in extra_nans.items() if n}
    mism = mismatches(ok_orig[zero], ok_fixed[zero], rtol, atol) \
        if zero in ok_orig and zero in ok_fixed else None
    rel_err = relative_error(ok_fixed[zero], harness_ref) if harness_ref and zero in ok_fixed else None
    # The original can be wrong at fill 0x00 without any fill showing through: an overrun
    # that stays inside the storage (a row's tail reads or writes the next row) is not
    # poisoned. Such differences are the bug, not the fix, when the harness reference
    # says so: at every element where the two differ, the fixed output is on the reference
    # and the original is further off it.
    if mism and harness_ref:
        for k in list(mism):
            why = original_off_reference(ok_orig[zero].get(k), ok_fixed[zero].get(k), harness_ref.get(k), ref_tol)
            if why is not None:
                ev.explained[k] = why
                del mism[k]
    ev.checks = {
        "original_fill_dependent": orig_fill_dep, "original_nan": orig_nan,
        "fixed_fill_dependent": fixed_fill_dep, "fixed_nan": _nan_counts(ok_fixed),
        "fixed_new_nan": extra_nans, f"fixed_vs_original_at_{hex_fill(zero)}": mism,
        f"original_off_reference_at_{hex_fill(zero)}": ev.explained,
        "fixed_vs_reference_relative_error": rel_err,
    }
    if fixed_fill_dep:
        ev.problems.append(f"fixed outputs change with the fill: {', '.join(fixed_fill_dep)}")
    if extra_nans:
        ev.problems.append(f"fixed outputs have NaN the reference lacks: {extra_nans}")
    if mism:
        ev.problems.append(f"fixed outputs differ from the original at fill {hex_fill(zero)}: "
                           + ", ".join(f"{k} (max |diff| {d:g})" for k, d in mism.items()))
    over = {k: e for k, e in (rel_err or {}).items() if e > ref_tol}
    if over:
        ev.problems.append(f"fixed outputs off the harness reference by more than {ref_tol:g} of max |ref|: {over}")
    ev.fill_evidence = bool(orig_fill_dep) or any(
        n > 0 and n > orig_nan.get(hex_fill(zero), 0) for n in orig_nan.values())
    return ev
