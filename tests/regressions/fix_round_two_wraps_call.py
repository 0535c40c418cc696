# Fuzz finding (tests/test_fuzz.py::test_check_and_fix_properties, generic case from
# insufficient-mask/packed_k_units.py with the activation load's mask dropped, then tabs and CRLF):
# round 1 masks the `a` load; its mask is round 2's evidence that the packed `w` load's mask is
# in other units, and that fix, too long for the line, wraps the `w` call over lines. The oracle
# read every change outside round 1's calls as damage; it now compares syntax trees with the
# arguments of the calls any round reported put back.
"""A matmul of activations with 4-bit weights packed two to a byte along K: the weight tile is
`BLOCK_K // 2` bytes wide and its pointer moves `BLOCK_K // 2` bytes per K tile.

Hazard:
  * `matmul_packed_k_units`, the weight load: `offs_kp[:, None] < K - k * BLOCK_K` compares
    bytes with the elements left, the bound the activation load uses for its `BLOCK_K` tile: on
    the last, partial tile the load reads up to `BLOCK_K // 2` bytes past each column of W.
Safe look-alike:
  * `matmul_packed_k`: the same load compares with the bytes left, `(K - k * BLOCK_K + 1) // 2`.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_packed_k_units(a_ptr, w_ptr, c_ptr, M, N, K, stride_am, stride_wk, stride_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_kp = tl.arange(0, BLOCK_K // 2)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    w_ptrs = w_ptr + offs_kp[:, None] * stride_wk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs)
        w = tl.load(w_ptrs, mask=(offs_kp[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0)  # expect: TL104
        lo = (w & 0xF).to(tl.float32) - 8.0
        hi = (w >> 4).to(tl.float32) - 8.0
        b = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BLOCK_K, BLOCK_N))
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        w_ptrs += (BLOCK_K // 2) * stride_wk
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc, mask=c_mask)


@triton.jit
def matmul_packed_k(a_ptr, w_ptr, c_ptr, M, N, K, stride_am, stride_wk, stride_cm,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    offs_kp = tl.arange(0, BLOCK_K // 2)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    w_ptrs = w_ptr + offs_kp[:, None] * stride_wk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_kp[:, None] < (K - k * BLOCK_K + 1) // 2) & (offs_n[None, :] < N), other=0)
        lo = (w & 0xF).to(tl.float32) - 8.0
        hi = (w >> 4).to(tl.float32) - 8.0
        b = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BLOCK_K, BLOCK_N))
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        w_ptrs += (BLOCK_K // 2) * stride_wk
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc, mask=c_mask)
