"""What the fixer knows of a kernel's values (tritonlint/fixing/types.py): pointers apart from
offsets, the loaded element's type, a sibling mask kept to this axis's terms, a loop bound that is
no extent, all on small kernels checked statically (no triton import)."""

from __future__ import annotations

import ast

import pytest

from tritonlint.config import Config
from tritonlint.diagnostics import Applicability
from tritonlint.engine import build_contexts, check_source, fix_source, parse_file
from tritonlint.fixing.types import compares_pointer, element_type, is_pointer

CONFIG = Config(line_length=240)
HEADER = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"


def _model(body: str):  # type: ignore[no-untyped-def]
    text = HEADER + body
    found, kernels = parse_file(text)
    _, by_name, _ = build_contexts("k.py", text, found, kernels, CONFIG, None)
    return next(iter(by_name.values()))


def _fixed_lines(body: str) -> list[str]:
    text = HEADER + body
    fixed = fix_source("k.py", text, CONFIG, unsafe=True, strict=True).fixed_text
    assert fixed is not None
    ast.parse(fixed)
    return [line.strip() for line in fixed[len(HEADER):].splitlines()]


LOCAL_POINTER = '''\
def k(T, Out, n, start, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = start + pid * BLOCK + tl.arange(0, BLOCK)
    t_ptrs = T + pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(t_ptrs)
    tl.store(Out + offs, x, mask=offs < n)
'''


def test_a_parameter_at_the_base_of_an_access_is_a_pointer_and_an_added_integer_is_not() -> None:
    model = _model(LOCAL_POINTER)
    import libcst as cst

    assert is_pointer(model, cst.Name("T")) and is_pointer(model, cst.Name("t_ptrs"))
    # `start` is added to the offsets, not the base of a pointer; `n` is compared.
    assert not is_pointer(model, cst.Name("start")) and not is_pointer(model, cst.Name("n"))
    assert not is_pointer(model, cst.Name("offs"))
    assert compares_pointer(model, "t_ptrs < n") and not compares_pointer(model, "offs < n")


def test_a_mask_never_compares_the_pointer() -> None:
    # Launch-grid kernel whose load goes through a pointer kept in a local: the mask compares what
    # the pointer adds to its base, never `t_ptrs < N` (Triton rejects `pointer<fp32> < int32`).
    body = '''\
def k(T, Out, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    t_ptrs = T + pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Out + pid * BLOCK + tl.arange(0, BLOCK), tl.load(t_ptrs))


def launch(t, out, n):
    k[(triton.cdiv(n, 64),)](t, out, n, BLOCK=64)
'''
    lines = _fixed_lines(body)
    assert "t_ptrs <" not in "\n".join(lines)
    assert "mask=pid * BLOCK + tl.arange(0, BLOCK) < N" in lines[3], lines[3]


@pytest.mark.parametrize("use, expected", [
    ("    tl.store(Y + tl.arange(0, BLOCK), tl.load(Y + x))", "int"),  # it indexes memory
    ("    tl.store(Y + tl.arange(0, BLOCK), x >> 2)", "int"),  # a bitwise operator
    ("    tl.store(Y + tl.arange(0, BLOCK), tl.exp(x))", "float"),
    ("    tl.store(Y, tl.exp(tl.max(x, axis=0)))", "float"),  # through a max
    ("    tl.store(Y + tl.arange(0, BLOCK), x)", None),
])
def test_the_loaded_element_type(use: str, expected: str | None) -> None:
    model = _model(f"def k(X, Y, n, BLOCK: tl.constexpr):\n    x = tl.load(X + tl.arange(0, BLOCK))\n{use}\n")
    load = next(a for a in model.accesses if a.kind == "load" and "X" in model.module.code_for_node(a.pointer))
    assert element_type(model, load) == expected


def test_an_annotated_integer_pointer_is_an_integer_load() -> None:
    model = _model("def k(X: tl.pointer_type(tl.int32), Y, BLOCK: tl.constexpr):\n"
                   "    tl.store(Y + tl.arange(0, BLOCK), tl.load(X + tl.arange(0, BLOCK)))\n")
    load = next(a for a in model.accesses if a.kind == "load")
    assert element_type(model, load) == "int"


def test_other_is_an_integer_zero_on_an_index_load_and_the_siblings_float_on_a_float_one() -> None:
    body = '''\
def k(X, Idx, W, Out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    w = tl.load(W + offs, mask=offs < n, other=0.0)
    rows = tl.load(Idx + offs)
    x = tl.load(X + offs)
    y = tl.load(X + rows, mask=offs < n, other=0.0)
    tl.store(Out + offs, tl.exp(x) * w + y, mask=offs < n)
'''
    lines = _fixed_lines(body)
    assert lines[3] == "rows = tl.load(Idx + offs, mask=offs < n, other=0)"
    assert lines[4] == "x = tl.load(X + offs, mask=offs < n, other=0.0)"


def test_a_sibling_mask_is_kept_to_its_terms_over_this_axis() -> None:
    # `idx_k > 0` guards the sibling's own load: copying it would zero `y` as well.
    body = '''\
def k(X, Y, Out, n, idx_k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=(offs < n) & (idx_k > 0), other=0.0)
    y = tl.load(Y + offs)
    tl.store(Out + offs, x + y, mask=offs < n)
'''
    assert _fixed_lines(body)[3] == "y = tl.load(Y + offs, mask=offs < n, other=0)"


def test_a_sibling_bound_for_another_axis_is_not_taken() -> None:
    body = '''\
def k(X, Y, Out, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(X + offs_m[:, None] * stride + offs_n[None, :], mask=(offs_m[:, None] < M) & (offs_n[None, :] < N), other=0.0)
    y = tl.load(Y + offs_n, mask=offs_n < N, other=0.0)
    z = tl.load(Y + N + offs_m)
    tl.store(Out + offs_m[:, None] * stride + offs_n[None, :], x + y[None, :] + z[:, None], mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
'''
    (diag,) = check_source("k.py", HEADER + body, CONFIG, strict=True).diagnostics
    assert diag.fix is not None
    assert "offs_n" not in diag.fix.title and "N" not in diag.fix.title.split("`")[1], diag.fix.title


def test_a_causal_loop_bound_gives_no_mask_and_says_why() -> None:
    body = '''\
def k(K, Out, N_CTX, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    offs_n = tl.arange(0, BLOCK_N)
    k_ptrs = K + offs_n * stride
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start_n in range(0, (start_m + 1) * BLOCK_M, BLOCK_N):
        acc += tl.load(k_ptrs)
        k_ptrs += BLOCK_N * stride
    tl.store(Out + start_m * BLOCK_N + offs_n, acc)
'''
    diags = [d for d in check_source("k.py", HEADER + body, CONFIG, strict=True).diagnostics if d.line == 12]
    assert len(diags) == 1 and diags[0].fix is not None
    assert diags[0].fix.applicability is Applicability.DISPLAY_ONLY
    assert "the loop bound `(start_m + 1) * BLOCK_M` bounds the loop, not the tensor" in diags[0].fix.title


def test_a_loop_bound_clamped_to_the_extent_masks() -> None:
    body = '''\
def k(K, Out, N_CTX, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    offs_n = tl.arange(0, BLOCK_N)
    k_ptrs = K + offs_n * stride
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    for start_n in range(0, hi, BLOCK_N):
        acc += tl.load(k_ptrs)
        k_ptrs += BLOCK_N * stride
    tl.store(Out + start_m * BLOCK_N + offs_n, acc)
'''
    assert _fixed_lines(body)[7] == "acc += tl.load(k_ptrs, mask=offs_n < hi - start_n, other=0)"


STATIC_ASSERTED = '''\
def k(S, X, Out, n, BLOCK: tl.constexpr):
    tl.static_assert({test})
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    s = tl.load(S + offs)
    tl.store(Out + offs, tl.exp(x) * tl.exp(s), mask=offs < n)
'''


@pytest.mark.parametrize("test, expected", [
    ("S.dtype.element_ty == tl.uint8", "int"),  # the kernel states the element type outright
    ("tl.uint8 == S.dtype.element_ty", "int"),
    ("X.dtype.element_ty == tl.uint8", "float"),  # another pointer's type: the use (`tl.exp`) decides
    ("S.dtype.element_ty != tl.uint8", "float"),  # not a statement of what it is
])
def test_a_static_assertion_on_the_pointer_element_type(test: str, expected: str) -> None:
    model = _model(STATIC_ASSERTED.format(test=test))
    load = next(a for a in model.accesses if a.kind == "load" and "S" in model.module.code_for_node(a.pointer))
    assert element_type(model, load) == expected
    other = "0" if expected == "int" else "0.0"
    assert f"s = tl.load(S + offs, mask=offs < n, other={other})" in _fixed_lines(STATIC_ASSERTED.format(test=test))
