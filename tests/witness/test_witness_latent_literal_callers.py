"""Callers whose sizes are a test's or a benchmark's literals, in the pattern of Triton's tutorials: the
kernels, a `torch.autograd.Function` launching them with `x.shape[2]`, its public name bound to
`Cls.apply`, a pytest (`pytest.mark.parametrize("Z, H, N_CTX", [...])`, stacked) and a
`triton.testing.perf_report` benchmark (`Benchmark(x_names=["N_CTX"], x_vals=[2**i for i in range(...)])`
appended to a module-level list in loops) in one module, and another module that pads the size to a
multiple of 128 before it calls the public name. When every listed value is a multiple of the run's tile,
the confirmation is latent and names the test and the benchmark; a value that is not (said in the reason:
that test would run out of bounds), a value that is no literal, a test also called directly with no literal,
or a caller importing the public name without padding marks nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from row_scale_kernels import PADDING_CALLER, ROW_SCALE
from witness_cli import witness_json

KERNELS = "import pytest\n" + ROW_SCALE + textwrap.dedent("""\


    row_scale = _RowScale.apply


    @pytest.mark.parametrize("Z, H, N_CTX", [(1, 2, 1024), (2, 3, 256)])
    @pytest.mark.parametrize("scale", [2.0])
    def test_op(Z, H, N_CTX, scale, dtype=torch.float16):
        x = (torch.empty((Z, H, N_CTX), dtype=dtype, device="cuda").normal_(mean=0.0, std=0.5).requires_grad_())
        ref = x * scale
        out = row_scale(x, scale)
        assert torch.allclose(out, ref)


    # The module binds the name to other configs first, as Triton's tutorial does for its autotuner.
    configs = [triton.Config({"BLOCK_M": 64}, num_warps=4)]
    FIRST_CONFIG = configs[0]

    configs = []
    for mode in ["fwd", "bwd"]:
        configs.append(
            triton.testing.Benchmark(
                x_names=["N_CTX"],
                x_vals=[2**i for i in range(10, 15)],
                line_arg="provider",
                line_vals=["triton-fp16"],
                line_names=["Triton [FP16]"],
                plot_name=f"row-scale-{mode}",
                args={"Z": 4, "H": 16, "mode": mode},
            ))


    @triton.testing.perf_report(configs)
    def bench_row_scale(Z, H, N_CTX, mode, provider, device="cuda"):
        if "triton" in provider:
            x = torch.randn((Z, H, N_CTX), dtype=torch.float16, device=device, requires_grad=True)
            if "fp8" in provider:
                x = x.to(torch.float8_e5m2)
            fn = lambda: row_scale(x, 2.0)
            if mode == "bwd":
                o = fn()
                do = torch.randn_like(o)
                fn = lambda: o.backward(do, retain_graph=True)
            return triton.testing.do_bench(fn)
        return 0.0


    if __name__ == "__main__":
        bench_row_scale.run(save_path=".", print_data=True)
""")

# `row_scale` is `_RowScale.apply` here: no default for the scale.
INTERFACE = PADDING_CALLER.replace("row_scale(x)", "row_scale(x, 2.0)")

FWD, BWD = 12, 21  # the unmasked loads of the two kernels


def _witnessed(tmp_path: Path, kernels: str = KERNELS, interface: str = INTERFACE) -> dict[int, tuple[Any, str]]:
    """Line of each finding -> (its latent note, its reason); every finding must be confirmed."""
    package = tmp_path / "rows"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(kernels)
    (package / "interface.py").write_text(interface)
    found = witness_json(package / "kernels.py")
    assert {d["witness"]["status"] for d in found} == {"confirmed"}, found
    return {d["line"]: (d["witness"]["evidence"].get("latent"), d["witness"]["reason"]) for d in found}


def test_tests_and_benchmarks_at_whole_tiles_mark_latent(tmp_path: Path) -> None:
    seen = _witnessed(tmp_path)
    assert sorted(seen) == [FWD, BWD], seen
    for line, tile in ((FWD, 64), (BWD, 32)):
        note = seen[line][0]
        assert note and f"every caller gives N_CTX a multiple of 128, a whole number of BLOCK_M ({tile} here)" in note, note
        assert "`test_op` runs N_CTX at 256, 1024 (pytest.mark.parametrize, kernels.py:" in note, note
        assert ("`bench_row_scale` runs N_CTX at 1024, 2048, 4096, 8192, 16384 (triton.testing.perf_report, "
                "kernels.py:") in note, note
        assert "`scale_sequence` pads dim 1 of `x`" in note, note


def test_a_test_value_that_breaks_the_tile_marks_nothing_and_says_so(tmp_path: Path) -> None:
    kernels = KERNELS.replace("[(1, 2, 1024), (2, 3, 256)]", "[(1, 2, 1024), (2, 3, 1000)]")
    seen = _witnessed(tmp_path, kernels=kernels)
    for line, tile in ((FWD, 64), (BWD, 32)):
        latent, reason = seen[line]
        assert latent is None, seen
        assert (f"`test_op` runs N_CTX at 1000, 1024 (pytest.mark.parametrize, kernels.py:51): N_CTX=1000 is no "
                f"multiple of BLOCK_M ({tile} here), a partial tile as in this run, so that caller would run out "
                "of bounds too") in reason, reason


def test_a_benchmark_value_that_breaks_the_tile_marks_only_the_tile_it_keeps_whole(tmp_path: Path) -> None:
    # 2**i + 32 * i: 1344, 2400, 4480, 8608, 16832, all multiples of 32, not all of 64.
    kernels = KERNELS.replace("x_vals=[2**i for i in range(10, 15)]", "x_vals=[2**i + 32 * i for i in range(10, 15)]")
    seen = _witnessed(tmp_path, kernels=kernels)
    latent, reason = seen[FWD]
    assert latent is None, seen
    assert ("`bench_row_scale` runs N_CTX at 1344, 2400, 4480, 8608, 16832 (triton.testing.perf_report, kernels.py:"
            in reason and "N_CTX=2400 is no multiple of BLOCK_M (64 here)" in reason), reason
    latent, reason = seen[BWD]
    assert latent and "every caller gives N_CTX a multiple of 32, a whole number of BLOCK_M (32 here)" in latent, seen


def test_a_value_that_is_no_literal_marks_nothing(tmp_path: Path) -> None:
    kernels = KERNELS.replace("[(1, 2, 1024), (2, 3, 256)]", "[(1, 2, 1024), (2, 3, SEQ)]").replace(
        "import pytest\n", "import pytest\n\nSEQ = 256\n")
    seen = _witnessed(tmp_path, kernels=kernels)
    assert seen[FWD + 2][0] is None and seen[BWD + 2][0] is None, seen
    assert "runs N_CTX at" not in seen[FWD + 2][1], seen


def test_a_test_also_called_directly_is_one_more_caller(tmp_path: Path) -> None:
    # `if __name__ == "__main__": test_op(...)`: a literal there is one more value; anything else reads nothing.
    main = '    bench_row_scale.run(save_path=".", print_data=True)\n'
    kernels = KERNELS.replace(main, main + "    test_op(1, 1, 512, 2.0)\n")
    assert "test_op(1, 1, 512, 2.0)" in kernels
    seen = _witnessed(tmp_path, kernels=kernels)
    assert seen[FWD][0] and "`test_op` runs N_CTX at 256, 512, 1024 (pytest.mark.parametrize, kernels.py:51; called at " \
        "kernels.py:" in seen[FWD][0], seen
    seen = _witnessed(tmp_path / "named", kernels=KERNELS.replace(main, main + "    test_op(1, 1, SEQ, 2.0)\n"))
    assert seen[FWD][0] is None and seen[BWD][0] is None, seen


def test_a_benchmark_tensor_assigned_after_its_lambda_marks_nothing(tmp_path: Path) -> None:
    # The lambda reads `x` when it runs: a later `x` (here one row longer) is the one launched.
    kernels = KERNELS.replace("fn = lambda: row_scale(x, 2.0)\n", "fn = lambda: row_scale(x, 2.0)\n"
                              "        x = torch.randn((Z, H, N_CTX + 1), dtype=torch.float16, device=device)\n")
    assert "N_CTX + 1" in kernels
    seen = _witnessed(tmp_path, kernels=kernels)
    assert seen[FWD][0] is None and seen[BWD][0] is None, seen


def test_another_module_calling_the_public_alias_unpadded_marks_nothing(tmp_path: Path) -> None:
    interface = INTERFACE + "\n\ndef scale_raw(x):\n    return row_scale(x, 2.0)\n"
    seen = _witnessed(tmp_path, interface=interface)
    assert seen[FWD][0] is None and seen[BWD][0] is None, seen
