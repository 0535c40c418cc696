"""Launch sites as evidence: grids that round up, host guards (TL111/TL112), launches from another module."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from tritonlint.cli import main
from tritonlint.config import Config, check_selectors
from tritonlint.engine import check_source, fix_source
from tritonlint.semantic.host.launches import find_launches

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "unmasked-tail-load"
PACKAGE = FIXTURES / "launch_package"

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)
'''


def _findings(path: str, text: str, select: frozenset[str] | None = None) -> list[tuple[int, str]]:
    chosen = None if select is None else check_selectors(sorted(select), "test")  # `ALL` as the CLI reads it
    report = check_source(path, text, Config(select=chosen), strict=True)
    return [(d.line, d.code) for d in report.diagnostics]


def _launcher(body: str) -> str:
    return KERNEL + "\n\ndef add(x, y, out, n, BLOCK=1024):\n" + "".join(f"    {line}\n" for line in body.splitlines())


TAIL = [(9, "TL101"), (10, "TL101"), (11, "TL102")]


def test_no_launch_keeps_todays_behaviour() -> None:
    assert _findings("k.py", KERNEL) == []
    assert _findings("k.py", KERNEL, frozenset({"ALL"})) == []


@pytest.mark.parametrize("launch", [
    "add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)",
    "add_kernel[((n + BLOCK - 1) // BLOCK,)](x, y, out, n, BLOCK)",
    "add_kernel[lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)](x, y, out, n, BLOCK_SIZE=1024)",
    "grid = (triton.cdiv(n, 1024),)\nadd_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)",
    "blocks = (n + 1023) // 1024\nadd_kernel[(blocks,)](x, y, out, n, BLOCK_SIZE=1024)",
])
def test_rounded_up_grid_flags_the_tutorial_vector_add(launch: str) -> None:
    assert _findings("k.py", _launcher(launch)) == TAIL


@pytest.mark.parametrize("launch", [
    "add_kernel[(n // BLOCK,)](x, y, out, n, BLOCK_SIZE=BLOCK)",
    "add_kernel[(triton.cdiv(n, 2 * BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)",  # not the kernel's tile
    "add_kernel[(triton.cdiv(4096, 1024),)](x, y, out, n, BLOCK_SIZE=1024)",  # divides
    "split = 1\nadd_kernel[(triton.cdiv(n, split),)](x, y, out, n, BLOCK_SIZE=split)",  # tiles of one
    "add_kernel[(n, triton.cdiv(n, BLOCK))](x, y, out, n, BLOCK_SIZE=BLOCK)",  # another axis
])
def test_exact_or_unrelated_grids_stay_quiet(launch: str) -> None:
    assert _findings("k.py", _launcher(launch), frozenset({"ALL"})) == []


@pytest.mark.parametrize(("launch", "guard"), [
    ("assert n % BLOCK == 0\nadd_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)",
     "`assert n % BLOCK == 0` at k.py:15"),
    ("if n % BLOCK != 0:\n    raise ValueError(n)\nadd_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)",
     "`if n % BLOCK != 0: raise` at k.py:15"),
    ("if n % BLOCK == 0:\n    add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)",
     "`if n % BLOCK == 0:` at k.py:15"),
    # A multiple along one dimension makes the element count a multiple.
    ("assert x.shape[-1] % BLOCK == 0\nadd_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)",
     "`assert x.shape[-1] % BLOCK == 0` at k.py:15"),
])
def test_guarded_launch_is_tl111_tl112_only_when_selected(launch: str, guard: str) -> None:
    text = _launcher(launch)
    assert _findings("k.py", text) == []
    assert _findings("k.py", text, frozenset({"TL1"})) == []  # the family prefix keeps the default rules
    assert _findings("k.py", text, frozenset({"ALL"})) == [(9, "TL111"), (10, "TL111"), (11, "TL112")]
    assert _findings("k.py", text, frozenset({"TL112"})) == [(11, "TL112")]
    report = check_source("k.py", text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    assert all(f"every launch keeps it in bounds: {guard}" in d.notes for d in report.diagnostics)


def test_one_unguarded_launch_keeps_the_finding_and_names_it() -> None:
    text = _launcher("assert n % BLOCK == 0\nadd_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)\n"
                     "add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=256)")
    report = check_source("k.py", text, Config(), strict=True)
    assert [(d.line, d.code) for d in report.diagnostics] == TAIL
    assert "launched at k.py:17 on `triton.cdiv(n, 256)` programs" in report.diagnostics[0].notes


def test_padded_allocation_guards_the_store_only() -> None:
    text = _launcher("blocks = triton.cdiv(n, BLOCK)\nout = torch.empty(blocks * BLOCK)\n"
                     "add_kernel[(blocks,)](x, y, out, n, BLOCK_SIZE=BLOCK)")
    assert _findings("k.py", text, frozenset({"ALL"})) == [(9, "TL101"), (10, "TL101"), (11, "TL112")]


def test_program_stopping_itself_is_not_launch_evidence() -> None:
    text = KERNEL.replace("    offsets =", "    if pid * BLOCK_SIZE >= n_elements:\n        return\n    offsets =")
    text += "\n\ndef add(x, y, out, n):\n    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)\n"
    assert _findings("k.py", text, frozenset({"ALL"})) == []


def test_fix_masks_with_the_parameter_the_grid_divides() -> None:
    report = check_source("k.py", _launcher("add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)"),
                          Config(), strict=True)
    assert {d.fix.title.split("; the lanes")[0] for d in report.diagnostics if d.fix} == {
        "Mask the load with `offsets < n_elements` (derived from the launch grid)",
        "Mask the store with `offsets < n_elements` (derived from the launch grid)"}


def _check_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    main(["check", "--no-cache", "--output-format", "json", *argv])
    found: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return found


def test_kernel_launched_from_a_sibling_module(capsys: pytest.CaptureFixture[str]) -> None:
    found = _check_json(capsys, str(PACKAGE / "kernels.py"))
    assert [(f["line"], f["code"]) for f in found] == [(11, "TL101"), (12, "TL101"), (13, "TL102")]
    assert all("launched at ops.py:14 on `triton.cdiv(n, meta['BLOCK_SIZE'])` programs" in f["notes"]  # type: ignore[operator]
               for f in found)
    guarded = _check_json(capsys, "--select", "TL11", str(PACKAGE / "kernels.py"))
    assert [(f["line"], f["code"]) for f in guarded] == [(19, "TL112"), (19, "TL111")]
    everything = _check_json(capsys, "--select", "ALL", str(PACKAGE / "kernels.py"))
    assert [(f["line"], f["code"]) for f in everything] == [(11, "TL101"), (12, "TL101"), (13, "TL102"),
                                                            (19, "TL112"), (19, "TL111")]
    assert all("every launch keeps it in bounds: `assert n % 256 == 0` at ops.py:21" in f["notes"]  # type: ignore[operator]
               for f in guarded)


def test_sibling_change_is_seen_through_the_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(PACKAGE, package)
    cache = str(tmp_path / "cache")
    kernels = str(package / "kernels.py")
    main(["check", "--cache-dir", cache, "--output-format", "json", kernels])
    assert len(json.loads(capsys.readouterr().out)) == 3
    ops = package / "ops.py"
    # The copy kernel's exact grid turned into a rounded-up one: only ops.py changes.
    ops.write_text(ops.read_text().replace("[(n // block,)]", "[(triton.cdiv(n, block),)]"))
    main(["check", "--cache-dir", cache, "--output-format", "json", kernels])
    assert [(f["line"], f["code"]) for f in json.loads(capsys.readouterr().out)][3:] == [(24, "TL102"), (24, "TL101")]


def test_a_module_that_does_not_import_the_kernel_launches_nothing(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(PACKAGE, package)
    ops = package / "ops.py"
    # Same names, another module: `from .other import add_kernel` is not this kernel.
    ops.write_text(ops.read_text().replace("from . import kernels\nfrom .kernels import", "from .other import"))
    found = _check_json(capsys, str(package / "kernels.py"))
    assert found == []


_HELPERS = {
    "loop": "def pick(n, cap):\n    for d in (1024, 512, 256):\n        if n % d == 0 and d <= cap:\n            return d\n",
    "while": "def pick(n, cap):\n    d = cap\n    while n % d:\n        d //= 2\n    return d\n",
    "gcd": "def pick(n, cap):\n    return math.gcd(cap, n)\n",
    # Look-alikes: a disjunction, a return outside the test, a test on another parameter.
    "or": "def pick(n, cap):\n    for d in (1024, 512):\n        if n % d == 0 or d <= cap:\n            return d\n",
    "fallback": "def pick(n, cap):\n    for d in (1024, 512):\n        if n % d == 0:\n            return d\n    return cap\n",
    "other": "def pick(n, cap):\n    for d in (1024, 512):\n        if cap % d == 0:\n            return d\n",
}


@pytest.mark.parametrize(("helper", "exact"), [("loop", True), ("while", True), ("gcd", True),
                                                ("or", False), ("fallback", False), ("other", False)])
def test_host_helper_returning_a_divisor_makes_the_grid_exact(helper: str, exact: bool) -> None:
    text = _launcher("d = pick(x.shape[1], 1024)\n"
                     "add_kernel[(triton.cdiv(x.shape[0] * x.shape[1], d),)](x, y, out, n, BLOCK_SIZE=d)")
    text += "\n\n" + _HELPERS[helper]
    assert _findings("k.py", text, frozenset({"ALL"})) == ([] if exact else TAIL)


def test_divisor_of_one_factor_is_not_a_divisor_of_another() -> None:
    text = _launcher("d = math.gcd(x.shape[1], 1024)\n"
                     "add_kernel[(triton.cdiv(x.shape[0] + x.shape[1], d),)](x, y, out, n, BLOCK_SIZE=d)")
    assert _findings("k.py", text, frozenset({"ALL"})) == TAIL


GATHER = ROOT / "fixtures" / "unmasked-tail-store" / "launch_token_loop_gather.py"


def test_tile_in_a_token_loop_is_read_term_by_term() -> None:
    text = GATHER.read_text()
    assert _findings("g.py", text) == [(30, "TL101"), (31, "TL102")]
    guarded = text.replace("    grid = (", "    assert hidden % block == 0\n    grid = (")
    assert _findings("g.py", guarded) == []
    assert _findings("g.py", guarded, frozenset({"ALL"})) == [(30, "TL111"), (31, "TL112")]


def test_tile_term_that_also_moves_with_the_loop_is_not_placed_by_the_program() -> None:
    # `(cur_block + tok) * BLOCK_D`: the block moves with the token loop too; the grid says nothing of it.
    text = GATHER.read_text().replace("out + tok * out_stride0 + cur_block * BLOCK_D + off_d",
                                      "out + tok * out_stride0 + (cur_block + tok) * BLOCK_D + off_d")
    assert _findings("g.py", text, frozenset({"ALL"})) == [(30, "TL101")]


def test_fix_leaves_a_finding_that_has_no_fix_alone() -> None:
    # TL111/TL112 offer no fix at all (`fix` is None): `--fix` reports them and changes nothing.
    text = _launcher("if n % BLOCK == 0:\n    add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)")
    report = fix_source("k.py", text, Config(select=check_selectors(["ALL"], "test")), unsafe=True, strict=True)
    assert [(d.line, d.code, d.fix) for d in report.diagnostics] == [(9, "TL111", None), (10, "TL111", None),
                                                                       (11, "TL112", None)]
    assert report.fixed_text is None and not report.errors


def test_fix_sees_the_launches_of_a_sibling_module_from_its_first_round() -> None:
    text = (PACKAGE / "kernels.py").read_text()
    ops = (PACKAGE / "ops.py").read_text()
    report = fix_source("kernels.py", text, Config(), unsafe=True, strict=True, neighbours=lambda: [("ops.py", ops)])
    assert report.fixed_text is not None and report.fixed == ("TL101", "TL101", "TL102")
    # without the module that launches it, the kernel has nothing to fix
    assert fix_source("kernels.py", text, Config(), unsafe=True, strict=True).fixed_text is None


@pytest.mark.parametrize(("host", "multiples"), [
    ("    assert BTL % BTS == 0\n    k[(n,)](x, BTL=BTL, BTS=BTS)\n", {("BTL", "BTS")}),
    ("    if BTL % BTS != 0:\n        raise ValueError(BTS)\n    k[(n,)](x, BTL=BTL, BTS=BTS)\n", {("BTL", "BTS")}),
    ("    if BTL % BTS == 0:\n        k[(n,)](x, BTL=BTL, BTS=BTS)\n", {("BTL", "BTS")}),
    # the other way round: the pair as written, not (BTL, BTS)
    ("    assert BTS % BTL == 0\n    k[(n,)](x, BTL=BTL, BTS=BTS)\n", {("BTS", "BTL")}),
    # after the launch, or on the other side of the `if`: nothing kept
    ("    k[(n,)](x, BTL=BTL, BTS=BTS)\n    assert BTL % BTS == 0\n", set()),
    ("    if BTL % BTS == 0:\n        pass\n    else:\n        k[(n,)](x, BTL=BTL, BTS=BTS)\n", set()),
    # a test of names that are not the launch's arguments
    ("    assert n % BTS == 0\n    k[(n,)](x, BTL=BTL, BTS=BTS)\n", set()),
    # both given the same host value: equal, each a multiple of the other
    ("    k[(n,)](x, BTL=n, BTS=n)\n", {("BTL", "BTS"), ("BTS", "BTL")}),
    ("    k[(n,)](x, BTL=n // 2, BTS=n // 2)\n", {("BTL", "BTS"), ("BTS", "BTL")}),
    ("    k[(n,)](x, BTL=n, BTS=n // 2)\n", set()),
])
def test_a_host_test_keeps_one_argument_a_multiple_of_another(host: str, multiples: set[tuple[str, str]]) -> None:
    tree = ast.parse("def run(x, n, BTL, BTS):\n" + host)
    [launch] = find_launches(tree, {"k": "k"}, {"k": ["x", "BTL", "BTS"]}, "ops.py")
    assert set(launch.multiples) == multiples


@pytest.mark.parametrize(("host", "covers"), [
    ("    if n <= B:\n        k[(r,)](x, n, B=B)\n", {"B": {"n"}}),
    ("    if B >= n and r > 0:\n        k[(r,)](x, n, B=B)\n", {"B": {"n"}}),
    ("    if n > B:\n        pass\n    else:\n        k[(r,)](x, n, B=B)\n", {"B": {"n"}}),
    ("    if not n > B:\n        k[(r,)](x, n, B=B)\n", {"B": {"n"}}),
    ("    if n > B or r == 0:\n        return\n    else:\n        k[(r,)](x, n, B=B)\n", {"B": {"n"}}),
    # the branch where the size may exceed the block keeps only the block within the size
    ("    if n > B:\n        k[(r,)](x, n, B=B)\n", {"n": {"B"}}),
    # a disjunction, or an assert: nothing read
    ("    if n <= B or r == 0:\n        k[(r,)](x, n, B=B)\n", {}),
    ("    assert n <= B\n    k[(r,)](x, n, B=B)\n", {}),
    # a test of a name the launch does not pass
    ("    if r <= B:\n        k[(r,)](x, n, B=B)\n", {}),
])
def test_a_dispatch_keeps_a_size_within_the_block(host: str, covers: dict[str, set[str]]) -> None:
    tree = ast.parse("def run(x, n, r, B):\n" + host)
    [launch] = find_launches(tree, {"k": "k"}, {"k": ["x", "n", "B"]}, "ops.py")
    assert {block: {size for size, _ in sizes} for block, sizes in launch.covers.items()} == covers


def test_a_name_is_read_at_its_last_assignment_by_line_however_deep() -> None:
    # The nested `g` comes later in a walk of the tree, but the `g` the launch reads is the one on line 5.
    host = ("def run(x, n, flag):\n    if flag:\n        if n > 0:\n            g = (n // 64,)\n"
            "        g = (triton.cdiv(n, 64),)\n        k[g](x, n)\n")
    [launch] = find_launches(ast.parse(host), {"k": "k"}, {"k": ["x", "n"]}, "ops.py")
    assert [axis.kind for axis in launch.grid] == ["partial"]


def test_fix_through_a_named_pointer_masks_the_offset_not_the_pointer() -> None:
    """`out_ptrs = out_ptr + offsets` then `tl.store(out_ptrs, ...)`: the mask compares the offset
    with the size (`offsets < n_elements`), never the pointer (`out_ptrs < n_elements` does not compile)."""
    text = _launcher("add_kernel[(triton.cdiv(n, BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)").replace(
        "    tl.store(out_ptr + offsets, x + y)", "    out_ptrs = out_ptr + pid * 0 + offsets\n    tl.store(out_ptrs, x + y)")
    report = check_source("k.py", text, Config(), strict=True)
    assert "Mask the store with `offsets < n_elements` (derived from the launch grid)" in {
        d.fix.title.split("; the lanes")[0] for d in report.diagnostics if d.fix}


def test_a_host_test_keeping_a_loops_extent_a_multiple_of_its_step_guards_the_loop() -> None:
    """`assert K % 128 == 0` before the launch, `BLOCK_K` given by a host name assigned 128: the K
    loop's last tile is whole, so its unmasked load is TL111 (naming the assert), not TL101; the
    same host asserting another size leaves it TL101."""
    path = FIXTURES / "loop_guarded_by_host.py"
    text = path.read_text()
    found = _findings(str(path), text, frozenset({"ALL"}))
    assert found == [(19, "TL111"), (28, "TL111"), (37, "TL101")]
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    assert "`assert K % 128 == 0` at loop_guarded_by_host.py:43" in notes[19]
    assert "`if k % block_k == 0:` at loop_guarded_by_host.py:50" in notes[28]
    # The host name's literal is what the assert names: without it, nothing keeps K whole.
    unresolved = text.replace("    BLOCK_K = 128\n", "    BLOCK_K = choose_block(K)\n")
    assert _findings(str(path), unresolved, frozenset({"ALL"}))[0] == (19, "TL101")


def test_a_callers_test_or_a_choosers_returns_keep_a_loops_tiles_whole_only_on_every_path() -> None:
    path = FIXTURES / "loop_guarded_by_caller.py"
    text = path.read_text()
    found = _findings(str(path), text, frozenset({"ALL"}))
    assert found == [(26, "TL111"), (35, "TL111"), (44, "TL111"),
                     (53, "TL101"), (62, "TL101"), (71, "TL101"), (80, "TL101")]
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    # Both callers' tests are named, renamed to nothing: the note quotes the host as written.
    assert "`if x2d.shape[-1] % 128 == 0:` at loop_guarded_by_caller.py:92" in notes[26]
    assert "`assert k % 128 == 0` at loop_guarded_by_caller.py:100" in notes[26]
    assert "`256 if K % 256 == 0 else 64`" in notes[35] and "`assert K % 64 == 0`" in notes[35]
    assert "`if a.shape[1] % 128 != 0: raise`" in notes[44]
    # A third caller with no test takes the guard away from every launch of the kernel.
    unchecked = text + "\n\ndef sum_routed_unchecked(x, out):\n    _launch_routed(x, out)\n"
    assert (26, "TL101") in _findings(str(path), unchecked, frozenset({"ALL"}))
    # The launcher passed on as a value may be called under no test.
    passed = text + "\n\nLAUNCHERS = [_launch_routed]\n"
    assert (26, "TL101") in _findings(str(path), passed, frozenset({"ALL"}))
    # A method named like the guarded launcher is another function: its launch inherits no test.
    method = text + ("\n\nclass Runner:\n    def _launch_routed(self, x, out):\n        M, K = x.shape\n"
                     "        routed_k_loop[(triton.cdiv(M, 64),)](x, out, K, BLOCK_K=128)\n")
    assert (26, "TL101") in _findings(str(path), method, frozenset({"ALL"}))
    # A chooser value no test keeps (the launcher's assert on 32, not 64) is a partial tile.
    weak = text.replace("assert K % 64 == 0, ", "assert K % 32 == 0, ")
    assert (35, "TL101") in _findings(str(path), weak, frozenset({"ALL"}))


def test_launch_arguments_fixed_as_literals_or_module_constants_keep_a_loops_tiles_whole() -> None:
    """A K loop whose every launch passes the extent and the step as integers (module constants,
    literals, a `.warmup` compile) is TL111 naming them; a constant that is no multiple, one a
    `global` rebinds, one a parameter shadows stay TL101."""
    path = FIXTURES / "loop_guarded_by_literals.py"
    text = path.read_text()
    assert _findings(str(path), text, frozenset({"ALL"})) == \
        [(27, "TL111"), (35, "TL111"), (43, "TL101"), (51, "TL101"), (59, "TL101")]
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    assert "`K_DIM=_K_DIM` (192) and `BLOCK_K=_BLOCK_K` (64) passed at loop_guarded_by_literals.py:64" in notes[27]
    assert "`K_DIM=256` and `BLOCK_K=64` passed at loop_guarded_by_literals.py:68" in notes[35]
    # A second launch with a size the constants do not fix takes the guard away.
    extra = text + "\n\ndef project_any(a, out, k):\n    constant_k_loop[(1,)](a, out, k, _BLOCK_K)\n"
    assert (27, "TL101") in _findings(str(path), extra, frozenset({"ALL"}))
    # A warmup for a size no multiple of the block is no guard either.
    assert (35, "TL101") in _findings(str(path), text.replace("K_DIM=256", "K_DIM=250"), frozenset({"ALL"}))


def test_an_autotune_pruner_keeping_the_size_a_multiple_of_the_block_guards_the_tiles() -> None:
    """A pruner that returns only configs whose BLOCK_N divides the launch's N (a list appended to
    under the test, or a filtering comprehension) keeps the first row tile and the tiles a loop
    counts whole: TL111 naming the pruner. A fallback append, a test of size, a single config, a
    tile not aligned to the block stay TL101."""
    path = FIXTURES / "pruned_to_whole_tiles.py"
    text = path.read_text()
    assert _findings(str(path), text, frozenset({"ALL"})) == \
        [(57, "TL111"), (61, "TL111"), (76, "TL111"), (90, "TL101"), (104, "TL101"), (118, "TL101")]
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    assert "the autotune pruner `keep_dividing_blocks` keeps only configs with `n % block_n == 0`" in notes[57]
    # The pruner's test on the other side of the `if` keeps the configs that do not divide.
    flipped = text.replace("        if n % block_n == 0:\n", "        if n % block_n != 0:\n")
    assert (57, "TL101") in _findings(str(path), flipped, frozenset({"ALL"}))
    # A tile placed at a start the pruner says nothing of is not kept whole.
    shifted = text.replace("    rows = tl.arange(0, BLOCK_N)\n    cols = tl.arange(0, D)\n    w = tl.load(w_ptr + rows)\n"
                           "    acc", "    rows = N // 3 + tl.arange(0, BLOCK_N)\n    cols = tl.arange(0, D)\n"
                           "    w = tl.load(w_ptr + rows)\n    acc", 1)
    assert shifted != text and (57, "TL101") in _findings(str(path), shifted, frozenset({"ALL"}))
    # The loop counting tiles of another size does not keep N's tiles whole.
    other = text.replace("for i in range(1, tl.cdiv(N, BLOCK_N)):", "for i in range(1, tl.cdiv(D, BLOCK_N)):")
    assert (61, "TL101") in _findings(str(path), other, frozenset({"ALL"}))


def test_a_capability_predicate_guarding_the_launch_is_read_as_the_test_it_returns() -> None:
    """`if gemv_supported(x, w):` around a launch, or `if not ...: raise` before it, where the
    predicate returns `... and k % 256 == 0`: the K loop's tiles are whole for `BLOCK_K=256`
    (TL111 naming the call). A weaker predicate, or one deciding in `if`s, is no guard."""
    path = FIXTURES / "loop_guarded_by_predicate.py"
    text = path.read_text()
    found = _findings(str(path), text, frozenset({"ALL"}))
    assert [code for line, code in found if line in (21, 31)] == ["TL111"] * 4
    assert [code for line, code in found if line in (41, 51)] == ["TL101"] * 4
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    assert "`if gemv_supported(x, w):` at loop_guarded_by_predicate.py:74" in notes[21]
    assert "`if not gemv_supported(x, w): raise` at loop_guarded_by_predicate.py:82" in notes[31]
    # The predicate's test of another size keeps nothing whole.
    weaker = text.replace("and k % 256 == 0", "and k % 128 == 0")
    assert {code for line, code in _findings(str(path), weaker, frozenset({"ALL"})) if line in (21, 31)} == {"TL101"}


def test_a_predicate_imported_from_the_package_is_read_with_its_own_constants(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "pkg"
    shutil.copytree(FIXTURES / "predicate_package", package)
    gemv = str(package / "gemv.py")
    found = _check_json(capsys, "--select", "ALL", gemv)
    assert [(f["line"], f["code"]) for f in found] == [(17, "TL111"), (17, "TL111"), (27, "TL101"), (27, "TL101")]
    assert all("`if gemv_supported(x):` at gemv.py:33" in " ".join(f["notes"]) for f in found[:2])  # type: ignore[arg-type]
    # `support`'s `_BLOCK_K` is its own: at 32 there, the launch's block of 128 is not kept whole,
    # whatever the launching module calls `_BLOCK_K`.
    support = package / "support.py"
    support.write_text(support.read_text().replace("_BLOCK_K = 128", "_BLOCK_K = 32"))
    assert [f["code"] for f in _check_json(capsys, "--select", "ALL", gemv)][:2] == ["TL101", "TL101"]


def test_a_tensor_the_host_pads_to_whole_tiles_keeps_the_loops_last_tile_in_bounds() -> None:
    """`torch.zeros(M, triton.cdiv(K, BLOCK_K) * BLOCK_K)` or `F.pad(a, (0, round_up(K, 64) - K))`
    passed for the tensor a K loop reads: TL111 naming the allocation; the tensor as given, or
    padded along the rows, stays TL101."""
    path = FIXTURES / "loop_padded_by_host.py"
    text = path.read_text()
    assert _findings(str(path), text, frozenset({"ALL"})) == \
        [(26, "TL111"), (35, "TL111"), (44, "TL101"), (53, "TL101")]
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    assert "`a_pad` is padded to whole tiles of BLOCK_K at loop_padded_by_host.py:59" in notes[26]
    assert "`a_pad` is padded to whole tiles of 64 at loop_padded_by_host.py:66" in notes[35]
    # Reassigned after the padding, the name passed holds the unpadded tensor.
    reassigned = text.replace("    a_pad[:, :K] = a\n", "    a_pad = a.contiguous()\n")
    assert (26, "TL101") in _findings(str(path), reassigned, frozenset({"ALL"}))
    # Padded to another block than the launch's, the last tile can still pass the end.
    other = text.replace("round_up(K, 64) - K", "round_up(K, 32) - K")
    assert (35, "TL101") in _findings(str(path), other, frozenset({"ALL"}))


def test_a_branch_every_launch_switches_off_keeps_its_access_from_the_tail() -> None:
    """An unmasked load under `if IS_GATED:` (or `if not SCALAR_GATE:`) where every launch passes
    the literal that skips it: TL111 naming the launches. One launch passing an unknown value, or
    launches taking the branch, leave TL101."""
    path = FIXTURES / "branch_no_launch_takes.py"
    text = path.read_text()
    assert _findings(str(path), text, frozenset({"ALL"})) == \
        [(22, "TL111"), (32, "TL111"), (44, "TL101"), (54, "TL101")]
    report = check_source(str(path), text, Config(select=check_selectors(["ALL"], "test")), strict=True)
    notes = {d.line: " ".join(d.notes) for d in report.diagnostics}
    assert "every launch passes `IS_GATED=False` (branch_no_launch_takes.py:61)" in notes[22]
    assert "`SCALAR_GATE=True` (branch_no_launch_takes.py:63)" in notes[32]
    # A second launch that takes the branch brings the finding back.
    taken = text.replace("    gated_rows[(M,)](x, g, out, D, False, BD)\n", "    gated_rows[(M,)](x, g, out, D, True, BD)\n")
    assert (22, "TL101") in _findings(str(path), taken, frozenset({"ALL"}))


def test_an_imported_predicates_module_change_is_seen_through_the_cache(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The module a launch's predicate comes from is part of the launching file's cache key, though
    it does not name the launching module (`ops.py` here)."""
    package = tmp_path / "pkg"
    shutil.copytree(FIXTURES / "predicate_package", package)
    (package / "gemv.py").rename(package / "ops.py")
    assert "ops" not in (package / "support.py").read_text()
    cache = str(tmp_path / "cache")
    gemv = str(package / "ops.py")
    main(["check", "--cache-dir", cache, "--select", "ALL", "--output-format", "json", gemv])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)][:2] == ["TL111", "TL111"]
    support = package / "support.py"
    support.write_text(support.read_text().replace("_BLOCK_K = 128", "_BLOCK_K = 32"))
    main(["check", "--cache-dir", cache, "--select", "ALL", "--output-format", "json", gemv])
    assert [f["code"] for f in json.loads(capsys.readouterr().out)][:2] == ["TL101", "TL101"]


GROUPS = '''\
import torch
import triton
import triton.language as tl


@triton.jit
def scale_groups(X, W, Y, width, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + g * width + cols, mask=cols < width, other=0.0)
    w = tl.load(W + cols)
    tl.store(Y + g * width + cols, x * w, mask=cols < width)


def launch(x, w, groups, width, block):
    y = torch.empty_like(x)
    scale_groups[(groups,)](x, w, y, width, BLOCK=TILE)
    return y
'''


def test_a_tile_the_launch_gives_the_sizes_own_value_is_never_partial() -> None:
    # `BLOCK=width` beside `width`: the unmasked twin of the masked load is kept whole by the host.
    same = GROUPS.replace("BLOCK=TILE", "BLOCK=width")
    assert _findings("g.py", same) == []
    assert _findings("g.py", same, frozenset({"ALL"})) == [(11, "TL111")]
    assert _findings("g.py", GROUPS.replace("BLOCK=TILE", "BLOCK=block")) == [(11, "TL101")]
