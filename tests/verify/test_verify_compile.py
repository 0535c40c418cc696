"""compile_check: sm_90 TTIR on the CPU, and the parser of its loads/stores and masks."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import pytest

pytest.importorskip("triton")

from tritonlint.verify.compile_check import (  # noqa: E402
    check_fix,
    compile_ttir,
    parse_accesses,
    same_accesses,
    unmasked,
)

GEMM = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        offs_m = tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
        b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            if EVEN_K:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            else:
                a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
                b = tl.load(b_ptrs)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * N
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
''')
FIXED = GEMM.replace("            b = tl.load(b_ptrs)\n        acc",
                     "            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)\n        acc")
assert FIXED != GEMM
SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
CONST = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}


def _load(tmp_path, name, text, monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"{name}_{id(tmp_path)}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.gemm, str(path)


def line(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, s in enumerate(text.splitlines(), 1) if needle in s][nth]


def test_even_unmasked_tail_masked(tmp_path, monkeypatch):
    fn, path = _load(tmp_path, "gemm_orig", GEMM, monkeypatch)
    even = parse_accesses(compile_ttir(fn, SIG, {**CONST, "EVEN_K": True}))
    tail = parse_accesses(compile_ttir(fn, SIG, {**CONST, "EVEN_K": False}))
    assert [(a.kind, a.masked) for a in even] == [("load", False), ("load", False), ("store", False)]
    assert [(a.kind, a.masked) for a in tail] == [("load", True), ("load", False), ("store", False)]
    assert all(a.path == path for a in even + tail)
    assert [a.line for a in tail[:2]] == [line(GEMM, "a = tl.load(a_ptrs, mask"), line(GEMM, "b = tl.load(b_ptrs)", 1)]
    assert [a.line for a in unmasked(tail, path=path) if a.kind == "load"] == [line(GEMM, "b = tl.load(b_ptrs)", 1)]


def test_check_fix_keeps_even_and_masks_tail(tmp_path, monkeypatch):
    orig, _ = _load(tmp_path, "gemm_orig2", GEMM, monkeypatch)
    fixed, _ = _load(tmp_path, "gemm_fixed", FIXED, monkeypatch)
    res = check_fix(orig, fixed, SIG, CONST, fixed_lines=[line(FIXED, "b = tl.load(b_ptrs, mask")])
    assert res["even_unchanged"] is True
    assert [a["line"] for a in res["tail_unmasked_before"] if a["kind"] == "load"] == [line(GEMM, "b = tl.load(b_ptrs)", 1)]
    assert res["tail_unmasked_after"] == [] and res["ok"] is True
    assert not same_accesses(compile_ttir(orig, SIG, {**CONST, "EVEN_K": False}),
                             compile_ttir(fixed, SIG, {**CONST, "EVEN_K": False}))


def test_parse_resolves_callsite_and_named_locs():
    ttir = textwrap.dedent('''\
        #loc = loc("/k.py":1:0)
        module {
          tt.func public @f(%p: !tt.ptr<f32> loc("p"(#loc))) {
            %x = tt.load %ptrs, %mask, %cst : tensor<16x!tt.ptr<f32>> loc(#loc7)
            %y = tt.load %ptrs cacheModifier = ca : tensor<16x!tt.ptr<f32>> loc(#loc8)
            tt.store %ptrs, %y : tensor<16x!tt.ptr<f32>> loc(#loc3)
            %z = tt.load %bp {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<16xf32>> loc(#loc3)
          } loc(#loc)
        } loc(#loc)
        #loc3 = loc("/k.py":9:4)
        #loc4 = loc("/helper.py":30:12)
        #loc5 = loc("/k.py":7:8)
        #loc6 = loc(callsite(#loc4 at #loc5))
        #loc7 = loc("x"(#loc6))
        #loc8 = loc(fused[#loc3, #loc5])
    ''')
    acc = parse_accesses(ttir)
    assert [(a.kind, a.masked, a.path, a.line) for a in acc] == [
        ("load", True, "/helper.py", 30), ("load", False, "/k.py", 9),
        ("store", False, "/k.py", 9), ("load", True, "/k.py", 9)]
    assert acc[0].callers == (("/k.py", 7, 8),)
