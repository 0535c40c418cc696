"""Positional arguments after a starred one: `kernel[grid](x, *strides, n_rounded, ...)` binds
`n_rounded` to its parameter when `strides` is a tuple of known length (its elements fill that many
parameters); after a starred argument of unknown length nothing more is bound."""

from __future__ import annotations

import ast
import textwrap

from tritonlint.semantic.host.host_guards import parameter_names
from tritonlint.semantic.host.launches import find_launches

HOST = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def rows_kernel(X, Bias, Out, stride_b0, stride_b1, stride_b2, n, n_rounded, BLOCK: tl.constexpr):
        pass


    def rows(x, bias, out, n, has_bias):
        n_rounded = triton.cdiv(n, 128) * 128
        strides = (bias.stride(0), bias.stride(1), bias.stride(2)) if has_bias else (0, 0, 0)
        rows_kernel[(1,)](x, bias, out, *strides, n, n_rounded, BLOCK=128)
""")


def _args(text: str) -> dict[str, str]:
    tree = ast.parse(text)
    kernel = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list)
    (launch,) = find_launches(tree, {kernel.name: kernel.name}, {kernel.name: parameter_names(kernel)}, "rows.py",
                              local=True, text=text)
    return dict(launch.args)


def test_arguments_after_a_starred_tuple_of_known_length_bind() -> None:
    args = _args(HOST)
    assert args["n"] == "n" and args["n_rounded"] == "n_rounded", args
    assert args["BLOCK"] == "128"
    assert "stride_b0" not in args  # the tuple's elements are not named


def test_a_literal_starred_tuple_binds_too() -> None:
    args = _args(HOST.replace("*strides,", "*(0, 0, 0),"))
    assert args["n_rounded"] == "n_rounded", args


def test_nothing_binds_after_a_starred_argument_of_unknown_length() -> None:
    args = _args(HOST.replace("*strides,", "*bias.stride(),"))
    assert "n" not in args and "n_rounded" not in args, args
    assert args["X"] == "x" and args["BLOCK"] == "128"


def test_lengths_that_differ_by_branch_bind_nothing_after() -> None:
    args = _args(HOST.replace("else (0, 0, 0)", "else (0, 0)"))
    assert "n_rounded" not in args, args
