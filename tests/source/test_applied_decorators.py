"""A kernel jitted by assignment with its decorators applied as calls
(`f = triton.autotune(...)(triton.heuristics(...)(triton.jit(f)))`) is a kernel, and its context
reads those decorators as its own (tritonlint/source/outline.py, KernelContext.applied)."""

from __future__ import annotations

from tritonlint import engine
from tritonlint.config import Config
from tritonlint.source.names import code_of
from tritonlint.source.outline import outline

KERNEL = '''import triton
import triton.language as tl


def kernel(X, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            tl.load(X + k + offs)
        else:
            tl.load(X + k + offs, mask=k + offs < K)


'''


def test_a_kernel_jitted_through_applied_decorators_is_found_with_them() -> None:
    text = KERNEL + ('kernel = triton.autotune(configs=[triton.Config({"BLOCK_K": 32})], key=["K"])(\n'
                     '    triton.heuristics({"EVEN_K": lambda args: args["K"] % 16 == 0})(triton.jit(kernel)))\n')
    found = outline(text)
    assert [kernel.name for kernel in found.kernels] == ["kernel"]
    assert found.kernels[0].applied_line == 14
    _, kernels = engine.parse_file(text)
    models, helpers, _ = engine.build_contexts("k.py", text, found, kernels, Config(), None, strict=True)
    try:
        context = models[0][1]
        assert [code_of(d).split("(")[0] for d in context.ir.decorators] == [
            "triton.autotune", "triton.heuristics", "triton.jit"]
        heuristic = next(d for d in context.ir.decorators if code_of(d).startswith("triton.heuristics"))
        assert context.line_of(heuristic) == 15  # placed where the assignment writes it
        assert [flag.atom for flag in context.flags.flags if flag.source == "heuristics"] == ["EVEN_K"]
    finally:
        helpers.clear()


def test_the_weak_heuristic_in_the_assignment_is_reported_where_it_is_written() -> None:
    text = KERNEL + 'kernel = triton.heuristics({"EVEN_K": lambda args: args["K"] % 16 == 0})(triton.jit(kernel))\n'
    report = engine.check_source("k.py", text, Config(), strict=True)
    assert {(d.code, d.line) for d in report.diagnostics} >= {("TL103", 14), ("TL101", 9)}


def test_a_plain_function_applied_to_the_kernel_is_no_decorator() -> None:
    # `wrap(triton.jit(kernel))` calls a function on the kernel: not a decorator factory's result
    text = KERNEL + "kernel = wrap(triton.jit(kernel))\n"
    assert outline(text).kernels == []
