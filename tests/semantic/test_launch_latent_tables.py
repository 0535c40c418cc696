"""The launch model's two witness-only facts, read from host code of our own: a literal table of the
sizes the host admits (`Launch.admitted`) and a multiple of a divisor Python does not hold
(`Launch.unknown_multiples`). Read without running anything; the witness tests show their use."""

from __future__ import annotations

import ast
import textwrap

from tritonlint.semantic.host.host_guards import parameter_names
from tritonlint.semantic.host.launches import Launch, find_launches

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl
    from ._ext import alignment

    SHAPES = frozenset({(1024, 8), (2048, 16)})
    WIDTHS = [64, 128]


    @triton.jit
    def tile_kernel(A, Idx, Out, M, K: tl.constexpr, N: tl.constexpr, BLOCK: tl.constexpr):
        pass
""")


def _launch(host: str) -> Launch:
    text = KERNEL + textwrap.dedent(host)
    tree = ast.parse(text)
    kernel = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list)
    (launch,) = find_launches(tree, {kernel.name: kernel.name}, {kernel.name: parameter_names(kernel)}, "ops.py",
                              local=True, text=text)
    return launch


def test_a_pair_tested_in_a_validator_admits_each_column() -> None:
    launch = _launch("""
        def _check(a, w):
            pair = (a.shape[1], w.shape[0])
            if a.dim() != 2 or pair not in SHAPES:
                raise ValueError(pair)


        def run(a, w, idx, out):
            _check(a, w)
            m, k = a.shape
            tile_kernel[(m,)](a, idx, out, m, K=k, N=w.shape[0], BLOCK=64)
    """)
    assert launch.admitted["K"][0] == (1024, 2048), launch.admitted
    assert launch.admitted["N"][0] == (8, 16), launch.admitted
    assert "raises in `_check`" in launch.admitted["K"][1], launch.admitted


def test_an_if_around_the_launch_and_a_flat_table() -> None:
    launch = _launch("""
        def run(a, idx, out):
            m, k = a.shape
            if k in WIDTHS:
                tile_kernel[(m,)](a, idx, out, m, K=k, N=1, BLOCK=64)
    """)
    assert launch.admitted == {"K": ((64, 128), "`if k in WIDTHS` at ops.py:15")}, launch.admitted


def test_a_membership_on_the_other_side_admits_nothing() -> None:
    # The launch runs where `k in WIDTHS` is false: the table says what K is not.
    for host in ("""
        def run(a, idx, out):
            m, k = a.shape
            if k in WIDTHS:
                return None
            tile_kernel[(m,)](a, idx, out, m, K=k, N=1, BLOCK=64)
    """, """
        def run(a, idx, out):
            m, k = a.shape
            if k in WIDTHS:
                out.zero_()
            else:
                tile_kernel[(m,)](a, idx, out, m, K=k, N=1, BLOCK=64)
    """):
        launch = _launch(host)
        assert not launch.admitted, launch.admitted


def test_an_early_return_outside_the_table_admits_it() -> None:
    launch = _launch("""
        def run(a, idx, out):
            m, k = a.shape
            if k not in WIDTHS:
                return fallback(a)
            tile_kernel[(m,)](a, idx, out, m, K=k, N=1, BLOCK=64)
    """)
    assert launch.admitted["K"][0] == (64, 128), launch.admitted


def test_a_call_without_arguments_is_an_unknown_divisor_of_rows_and_sizes() -> None:
    launch = _launch("""
        def run(a, idx, out):
            assert idx.size(0) == a.size(0)
            assert a.shape[0] % alignment() == 0
            M, K = a.shape
            tile_kernel[(M,)](a, idx, out, M, K=K, N=1, BLOCK=64)
    """)
    assert set(launch.unknown_multiples) == {("A", "alignment()"), ("Idx", "alignment()"), ("M", "alignment()")}, \
        launch.unknown_multiples
    assert "with `idx.size(0) == a.size(0)`" in launch.unknown_multiples[("Idx", "alignment()")]


def test_a_caller_picked_divisor_is_not_unknown() -> None:
    launch = _launch("""
        def run(a, idx, out, group):
            assert a.size(0) % group == 0
            M, K = a.shape
            tile_kernel[(M,)](a, idx, out, M, K=K, N=1, BLOCK=64)
    """)
    assert not launch.unknown_multiples, launch.unknown_multiples


def test_a_return_in_the_validator_admits_nothing() -> None:
    # The validator returning early does not stop the launch that follows its call.
    launch = _launch("""
        def _check(k):
            if k not in WIDTHS:
                return False
            return True


        def run(a, idx, out):
            m, k = a.shape
            _check(k)
            tile_kernel[(m,)](a, idx, out, m, K=k, N=1, BLOCK=64)
    """)
    assert not launch.admitted, launch.admitted
