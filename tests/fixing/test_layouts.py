"""Lane maps (tritonlint/fixing/layouts.py): where each lane of a loaded tile lands after a jit helper
reshapes and transposes it, and the fixer's masks that follow it, for helpers in the kernel's file or
imported from another module of its package."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import libcst as cst
import numpy as np
import pytest

from tritonlint.cli import main
from tritonlint.config import Config
from tritonlint.diagnostics import Applicability
from tritonlint.engine import check_source
from tritonlint.fixing.layouts import Size, lane_map
from tritonlint.source.imports import imported_helper, module_constants

HOPPER = """\
@triton.jit
def unswizzle(x, mx_axis: tl.constexpr, num_warps: tl.constexpr):
    \"\"\"inverse of the host swizzle\"\"\"
    tl.static_assert(len(x.shape) == 2, "NYI")
    x = x.trans() if mx_axis == 0 else x
    M: tl.constexpr = x.shape[0]
    K: tl.constexpr = x.shape[1]
    x = x.reshape(M // num_warps, num_warps, K // 64, 2, 8, 2, 2)
    x = x.trans(0, 3, 1, 6, 4, 2, 5)
    x = x.reshape(M * 32, K // 32)
    x = x.trans() if mx_axis == 0 else x
    return x
"""

BLACKWELL = """\
OUTER = 128
INNER = 4


@triton.jit
def unswizzle(x, SIZE_OUTER: tl.constexpr = OUTER, SIZE_INNER: tl.constexpr = INNER):
    shape_0: tl.constexpr = x.shape[0]
    shape_1: tl.constexpr = x.shape[1]
    x = x.reshape(shape_0, (shape_1 // SIZE_OUTER) // SIZE_INNER, 32, SIZE_OUTER // 32, SIZE_INNER)
    x = x.trans(0, 3, 2, 1, 4).reshape(shape_0 * SIZE_OUTER, shape_1 // SIZE_OUTER)
    return x
"""


def _function(source: str) -> cst.FunctionDef:
    module = cst.parse_module(source)
    return next(s for s in module.body if isinstance(s, cst.FunctionDef))


def _call(text: str) -> cst.Call:
    call = cst.parse_expression(text)
    assert isinstance(call, cst.Call)
    return call


def _columns(index: str, lanes: int) -> np.ndarray:
    return np.asarray(eval(index.replace("{}", "j"), {"j": np.arange(lanes)}))


def _numpy_unswizzle_columns(source: str, call: str, rows: int, lanes: int, **symbols: int) -> np.ndarray:
    """Run the helper's reshapes and transposes in numpy on a tile whose entries are their lane: the
    lane each output column holds, per output position (ground truth for the symbolic map)."""
    function = _function(source)
    tile = np.broadcast_to(np.arange(lanes)[None, :], (rows, lanes))
    env: dict[str, object] = dict(symbols, **module_constants(source))
    for param in function.params.params:
        if param.default is not None and isinstance(param.default, cst.Name):
            env.setdefault(param.name.value, env.get(param.default.value))
    for arg, param in zip(_call(call).args, function.params.params):
        if isinstance(arg.value, cst.Integer):
            env[(arg.keyword or param.name).value] = int(arg.value.value)
    body = cst.Module(body=list(function.body.body)).code
    body = body.replace(".trans(0, 3, 1, 6, 4, 2, 5)", ".transpose(0, 3, 1, 6, 4, 2, 5)").replace(
        ".trans(0, 3, 2, 1, 4)", ".transpose(0, 3, 2, 1, 4)").replace(".trans()", ".T")
    body = "\n".join(line for line in body.splitlines() if "static_assert" not in line and '"""' not in line)
    body = body.replace(": tl.constexpr", "")
    namespace = {**env, "x": tile}
    exec(body.replace("return x", "result = x"), {}, namespace)  # noqa: S102 - the test's own helper text
    return np.asarray(namespace["result"])


@pytest.mark.parametrize("lanes", [64, 128, 256, 512])
def test_hopper_chain_maps_lane_to_interleaved_column(lanes: int) -> None:
    found = lane_map(_call("unswizzle(tl.load(P), mx_axis=1, num_warps=num_warps)"), 0, [None, "PACKED"], 1,
                     _function(HOPPER))
    assert found is not None
    assert found.index == "(2 * ({} // 64) + ({} // 2) % 2)"
    assert found.size == "PACKED // 32"
    truth = _numpy_unswizzle_columns(HOPPER, "unswizzle(t, mx_axis=1, num_warps=4)", 4, lanes, num_warps=4)
    # every output column holds lanes whose mapped index is that column
    for column in range(truth.shape[1]):
        assert set(_columns(found.index, lanes)[truth[:, column]]) == {column}


def test_blackwell_chain_uses_module_constants_for_defaults() -> None:
    found = lane_map(_call("unswizzle(tl.load(P))"), 0, [None, "PACKED"], 1, _function(BLACKWELL),
                     constants=module_constants(BLACKWELL))
    assert found is not None and found.size == "PACKED // 128"
    lanes = 1024
    truth = _numpy_unswizzle_columns(BLACKWELL, "unswizzle(t)", 1, lanes)
    for column in range(truth.shape[1]):
        assert set(_columns(found.index, lanes)[truth[:, column]]) == {column}
    # without the constants the defaults are symbols: strides are unknown, no map
    assert lane_map(_call("unswizzle(tl.load(P))"), 0, [None, "PACKED"], 1, _function(BLACKWELL)) is None


@pytest.mark.parametrize("body", [
    "    return tl.trans(x)",                       # lanes stay in order along their own axis
    "    y = x * 2\n    return y",                  # arithmetic on the tile
    "    if mx_axis:\n        x = x.trans()\n    return x",  # a branch
    "    x = x.reshape(3, 5)\n    return x",        # sizes that cannot be matched
    "    x = x.trans() if flag == 0 else x\n    return x",  # not decided by a constant argument
    "    return x.permute(flag, 0)",                # an axis not decided by a constant argument
])
def test_no_map(body: str) -> None:
    source = f"@triton.jit\ndef unswizzle(x, mx_axis: tl.constexpr, flag):\n{body}\n"
    assert lane_map(_call("unswizzle(tl.load(P), 1, f)"), 0, [None, "PACKED"], 1, _function(source)) is None


def test_a_helper_size_written_in_hex_is_read() -> None:
    """Python's integer literals in any base: `K // 0x40` is `K // 64`, the same map."""
    source = HOPPER.replace("K // 64, 2, 8, 2, 2", "K // 0x40, 0b10, 0o10, 2, 2")
    assert source != HOPPER
    found = lane_map(_call("unswizzle(tl.load(P), mx_axis=1, num_warps=num_warps)"), 0, [None, "PACKED"], 1,
                     _function(source))
    assert found is not None and found.index == "(2 * ({} // 64) + ({} // 2) % 2)" and found.size == "PACKED // 32"


def test_mx_axis_zero_takes_the_other_branch() -> None:
    """`x.trans() if mx_axis == 0 else x`: decided by the constant argument; the walked axis is then 0."""
    found = lane_map(_call("unswizzle(tl.load(P), mx_axis=0, num_warps=8)"), 0, ["PACKED", None], 0,
                     _function(HOPPER))
    assert found is not None and found.index == "(2 * ({} // 64) + ({} // 2) % 2)"
    assert lane_map(_call("unswizzle(tl.load(P), mx_axis=1, num_warps=8)"), 0, ["PACKED", None], 0,
                    _function(HOPPER)) is None  # the lanes axis is then split across rows


def test_size_algebra() -> None:
    packed = Size.of("PACKED")
    assert (packed / Size.of(64) * Size.of(2)).text() == "PACKED // 32"
    assert (packed / Size.of(64) * Size.of(64)) == packed
    assert (packed / Size.of("W")).whole() is False and (packed * Size.of(2)).whole() is True
    assert Size.of("BLOCK_K//32").text() == "(BLOCK_K//32)"
    # a whole coefficient leads the product, the symbols follow in their order
    assert (Size.of("B") * Size.of(3) * Size.of("A")).text() == "3 * A * B"
    assert (Size.of("B") * Size.of(3) * Size.of("A") / Size.of(4)).text() == "(3 * A * B) // 4"


KERNEL = """\
import triton
import triton.language as tl

from {module} import unswizzle


@triton.jit
def matmul(X, S, Y, K, stride_n, stride_k, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    PACKED: tl.constexpr = (BLOCK_K // 32) * 32
    offs_k = tl.arange(0, BLOCK_K)
    offs_s = tl.arange(0, PACKED)
    offs_n = tl.arange(0, BLOCK_N // 32)
    XPtrs = X + offs_k
    SPtrs = S + offs_n[:, None] * stride_n + offs_s[None, :] * stride_k
    acc = tl.zeros((BLOCK_N, BLOCK_K // 32), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K):
        if EVEN_K:
            mask_k = tl.full([BLOCK_K], True, dtype=tl.int1)
        else:
            mask_k = offs_k < k
        x = tl.load(XPtrs, mask=mask_k, other=0.0)
        s = unswizzle(tl.load(SPtrs), mx_axis=1, num_warps=4)
        acc += s.to(tl.float32) * tl.sum(x)
        XPtrs += BLOCK_K
        SPtrs += PACKED * stride_k
    tl.store(Y + tl.arange(0, BLOCK_N)[:, None] * (BLOCK_K // 32) + tl.arange(0, BLOCK_K // 32)[None, :], acc)
"""
INTERLEAVED = "(2 * (offs_s // 64) + (offs_s // 2) % 2)[None, :] * BLOCK_K // (PACKED // 32) < k"


def _package(root: Path, module: str, level_dots: str = "") -> Path:
    (root / "pkg" / "layout").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "layout" / "__init__.py").write_text("")
    (root / "pkg" / "layout" / "hopper.py").write_text("import triton\nimport triton.language as tl\n\n\n" + HOPPER)
    kernel = root / "pkg" / "kernel.py"
    kernel.write_text(KERNEL.format(module=level_dots + module))
    return kernel


@pytest.mark.parametrize(("module", "dots"), [("pkg.layout.hopper", ""), ("layout.hopper", ".")])
def test_fix_follows_a_helper_imported_from_the_package(tmp_path: Path, module: str, dots: str) -> None:
    kernel = _package(tmp_path, module, dots)
    report = check_source(str(kernel), kernel.read_text(), Config(), strict=True)
    helps = [d.fix.title for d in report.diagnostics if d.fix is not None and "offs_s" in d.fix.title]
    assert len(helps) == 1 and INTERLEAVED in helps[0] and "`unswizzle`" in helps[0], helps
    assert report.depends == (str((tmp_path / "pkg" / "layout" / "hopper.py").resolve()),)


def test_helper_module_missing_gives_a_display_only_fix_not_the_lane_order(tmp_path: Path) -> None:
    # The helper may permute the lanes: without its text the lane-order rescaling is a guess that can
    # drop real scales, so the fix is display-only and names the helper it could not read.
    kernel = _package(tmp_path, "elsewhere.hopper")
    report = check_source(str(kernel), kernel.read_text(), Config(), strict=True)
    fixes = [d.fix for d in report.diagnostics if d.fix is not None and "unswizzle" in d.fix.title]
    assert len(fixes) == 1 and fixes[0].applicability is Applicability.DISPLAY_ONLY and not fixes[0].edits, fixes
    assert "`unswizzle`, which the fixer cannot read" in fixes[0].title
    assert report.depends == ()


def test_imported_helper_resolution(tmp_path: Path) -> None:
    kernel = _package(tmp_path, "pkg.layout.hopper")
    found = imported_helper("unswizzle", kernel.read_text(), str(kernel))
    assert found is not None and found[0].name.value == "unswizzle" and found[1].name == "hopper.py"
    assert imported_helper("unswizzle", "from pkg.layout.hopper import other\n", str(kernel)) is None
    assert imported_helper("unswizzle", "from pkg.layout.nothing import unswizzle\n", str(kernel)) is None
    (tmp_path / "pkg" / "layout" / "hopper.py").write_text("def unswizzle(x):\n    return x\n")  # not jit
    assert imported_helper("unswizzle", kernel.read_text(), str(kernel)) is None


def test_a_helper_defined_in_a_package_init_is_found(tmp_path: Path) -> None:
    """`from pkg.layout import unswizzle` with the helper in `pkg/layout/__init__.py`: the package's
    `__init__.py` is the module (there is no `pkg/layout.py`)."""
    kernel = _package(tmp_path, "pkg.layout")
    package = tmp_path / "pkg" / "layout" / "__init__.py"
    package.write_text("import triton\nimport triton.language as tl\n\n\n" + HOPPER)
    (tmp_path / "pkg" / "layout" / "hopper.py").unlink()
    found = imported_helper("unswizzle", kernel.read_text(), str(kernel))
    assert found is not None and found[0].name.value == "unswizzle" and found[1] == package.resolve()
    report = check_source(str(kernel), kernel.read_text(), Config(), strict=True)
    helps = [d.fix.title for d in report.diagnostics if d.fix is not None and "offs_s" in d.fix.title]
    assert len(helps) == 1 and INTERLEAVED in helps[0], helps


def test_a_report_that_read_a_helper_module_is_cached_with_its_hash(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The cache knows a result by the file's bytes and, where the fixer read a helper module, that
    module's bytes: a warm run reuses it, a changed helper module changes the fix."""
    kernel = _package(tmp_path, "pkg.layout.hopper")
    cache = tmp_path / "cache"
    assert main(["check", "--cache-dir", str(cache), str(kernel)]) == 1
    assert INTERLEAVED in capsys.readouterr().out
    [entry] = cache.rglob("*.json")
    assert json.loads(entry.read_text())["depends"] == [["layout/hopper.py", mock_hash(tmp_path)]]
    entry.write_text(entry.read_text().replace(INTERLEAVED.replace('"', '\\"'), "CACHED"))  # mark the entry
    assert main(["check", "--cache-dir", str(cache), str(kernel)]) == 1
    assert "CACHED" in capsys.readouterr().out  # the warm run read the entry
    helper = tmp_path / "pkg" / "layout" / "hopper.py"
    helper.write_text(helper.read_text().replace("x = x.trans(0, 3, 1, 6, 4, 2, 5)\n", ""))  # no interleave now
    assert main(["check", "--cache-dir", str(cache), str(kernel)]) == 1
    out = capsys.readouterr().out
    assert INTERLEAVED not in out and "CACHED" not in out and "offs_s" in out


def mock_hash(root: Path) -> str:
    return hashlib.sha256((root / "pkg" / "layout" / "hopper.py").read_bytes()).hexdigest()


def test_an_identical_kernel_file_importing_another_helper_gets_its_own_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two copies of the kernel file share an entry only while the helpers each imports, found from
    its own folder, hold the bytes the entry was made with."""
    first = _package(tmp_path / "a", "pkg.layout.hopper")
    second = _package(tmp_path / "b", "pkg.layout.hopper")
    helper = tmp_path / "b" / "pkg" / "layout" / "hopper.py"
    helper.write_text(helper.read_text().replace("x = x.trans(0, 3, 1, 6, 4, 2, 5)\n", ""))
    cache = tmp_path / "cache"
    assert main(["check", "--cache-dir", str(cache), str(first)]) == 1
    assert INTERLEAVED in capsys.readouterr().out
    assert main(["check", "--cache-dir", str(cache), str(second)]) == 1
    out = capsys.readouterr().out
    assert INTERLEAVED not in out and "offs_s" in out

