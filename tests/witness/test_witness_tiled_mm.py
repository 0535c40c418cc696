"""A tiled matmul in the old `triton.ops` shape, the way packages vendor it: the pointer parameters
moved to the program's tile (`A = A + (ram[:, None] * s_am + rk[None, :] * s_ak)`), strides taken as
constexprs nobody gives a value, the row offsets of the loads unmasked while a twin spelled the same
(`rm`) is masked at the store, a 1-D launch grid beside a kernel that reads `program_id(1)`, a type
test of the loaded tiles (`a.dtype != b.dtype`), and decorators whose tables the cut-out module cannot
build (`@tuner(configs=table("mm"))`, `@triton.heuristics(table("flags"))`).

Each test names the capability it needs; each failed once with that capability taken out."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path
from typing import Any

from tritonlint.config import check_selectors, load_config
from tritonlint.witness import analysis
from tritonlint.witness.extract import extract
from tritonlint.witness.runner import witness
from tritonlint.witness.uses import Uses

TUNING = textwrap.dedent("""\
    from pkg._native import Registry


    def table(name):
        return {}


    def tuner(configs, key=None, policy: Registry = Registry.default):
        return lambda fn: fn
""")

KERNEL = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    from pkg.tuning import table, tuner


    @tuner(configs=table("mm"), key=["M", "N", "K"])
    @triton.heuristics(table("flags"))
    @triton.jit
    def tiled_mm(A, B, C, M, N, K, s_am: tl.constexpr, s_ak: tl.constexpr, s_bk: tl.constexpr,
                 s_bn: tl.constexpr, s_cm: tl.constexpr, s_cn: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):
        pid = tl.program_id(0)
        pid_z = tl.program_id(1)
        grid_m = tl.cdiv(M, BLOCK_M)
        grid_n = tl.cdiv(N, BLOCK_N)
        width = GROUP_M * grid_n
        group_id = pid // width
        group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
        pid_m = group_id * GROUP_M + (pid % group_size)
        pid_n = (pid % width) // group_size
        ram = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rbn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = pid_z * BLOCK_K + tl.arange(0, BLOCK_K)
        A = A + (ram[:, None] * s_am + rk[None, :] * s_ak)
        B = B + (rk[:, None] * s_bk + rbn[None, :] * s_bn)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            if EVEN_K:
                a = tl.load(A)
                b = tl.load(B)
            else:
                k_remaining = K - k * BLOCK_K
                a = tl.load(A, mask=rk[None, :] < k_remaining, other=0.0)
                b = tl.load(B, mask=rk[:, None] < k_remaining, other=0.0)
            if a.dtype != b.dtype:
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc += tl.dot(a, b)
            A += BLOCK_K * s_ak
            B += BLOCK_K * s_bk
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        C = C + (rm[:, None] * s_cm + rn[None, :] * s_cn)
        tl.store(C, acc, mask=(rm < M)[:, None] & (rn < N)[None, :])


    def mm(a, b):
        M, K = a.shape
        _, N = b.shape
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)
        tiled_mm[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                       c.stride(0), c.stride(1), GROUP_M=8)
        return c
""")

MASKED_A_LINE = 35  # `a = tl.load(A, mask=rk[None, :] < k_remaining, ...)`: rows of A unmasked


def _package(root: Path) -> Path:
    (root / "pkg" / "ops").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "tuning.py").write_text(TUNING)
    (root / "pkg" / "ops" / "__init__.py").write_text("")
    path = root / "pkg" / "ops" / "mm.py"
    path.write_text(KERNEL)
    return path


def _witnessed(tmp_path: Path, line: int = MASKED_A_LINE) -> Any:
    path = _package(tmp_path)
    config = dataclasses.replace(load_config(None), select=check_selectors(["ALL"], "--select"))
    files, _errors = analysis.check_paths([str(path)], config)
    checked = files[0]
    d = next(d for d in checked.diagnostics if d.line == line)
    return witness(checked.path, checked.display, checked.text, d, checked.launches, checked.flags,
                   analysis.fixed_text(checked.text, d), timeout=120)


def test_the_rows_past_m_are_read_on_the_package_launch(tmp_path: Path) -> None:
    # Needs every capability below at once: the grid rank (a second axis would walk pid_z past K in the
    # control), the moved pointer's terms and the twin bound (A sized M rows of K), no index fill of A.
    w = _witnessed(tmp_path)
    assert w.status == "confirmed", w.reason
    assert w.evidence["tensor"] == "A"
    launch = w.launch
    assert launch["grid"][1:] == [1]  # the package's grid has one axis
    args = {a["name"]: a for a in launch["args"]}
    k = launch["sizes"]["K"]
    assert args["s_am"]["value"] == k and args["s_ak"]["value"] == 1  # the layout's strides, row-major
    assert args["A"]["fill"] == "randn" and args["A"]["numel"] == launch["sizes"]["M"] * k


def test_dropped_decorators_pull_nothing_in(tmp_path: Path) -> None:
    # `tuner`'s default reads a name of a module that is not there: cut out, its `def` stopped the module.
    path = _package(tmp_path)
    source = extract(path, KERNEL, "tiled_mm").source
    assert "def tuner" not in source and "table(" not in source
    assert "@triton.heuristics" not in source


def test_a_moved_pointer_parameter_keeps_its_terms() -> None:
    extracted = extract(Path("mm.py"), KERNEL, "tiled_mm")
    uses = Uses(extracted.kernel, extracted.helpers)
    load_a = next(e for e in uses.accesses if isinstance(e, __import__("ast").Name) and e.id == "A")
    sizes = {"M", "N", "K"}
    dims = uses.dims(load_a, sizes, set())
    # The rows: `ram`, unmasked, bounded through its twin `rm < M`; the columns by the K loop.
    assert ("s_am", ("size", "M")) in dims and ("s_ak", ("size", "K")) in dims


def test_a_type_test_of_the_loaded_tiles_is_no_index() -> None:
    extracted = extract(Path("mm.py"), KERNEL, "tiled_mm")
    uses = Uses(extracted.kernel, extracted.helpers)
    assert not uses.loaded_as_index("A") and not uses.loaded_as_index("B")
