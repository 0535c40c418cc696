# Fuzz finding (scripts/fuzz_long.py seed 700930, from unmasked-tail-load/constexpr_local): the
# constant in `mask=None if False else m` was learned as an evenness flag "False", and a fix then
# rewrote a call nobody reported. A constant test decides nothing; its dead side is not a mask.
"""Evenness carried through local constexprs: ``HAS_TAIL: tl.constexpr = not EVEN_K``.

Imitates kernels that name the tail condition once and branch on the alias.

Hazard:
  * under ``if HAS_TAIL:`` (EVEN_K False) the B load has no K mask while A is masked.
Safe look-alikes:
  * the ``else`` side of ``HAS_TAIL`` (EVEN_K True);
  * ``FULL_K: tl.constexpr = EVEN_K`` guarding an unmasked row-scale load, masked otherwise;
  * the masked store.
"""
import triton
import triton.language as tl


@triton.jit
def gemm_tail_alias_kernel(a_ptr, b_ptr, rs_ptr, c_ptr, M, N, K,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           EVEN_K: tl.constexpr):
    HAS_TAIL: tl.constexpr = not EVEN_K
    FULL_K: tl.constexpr = EVEN_K
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a_ptrs = a_ptr + (offs_m % M)[:, None] * K + (k0 + offs_k)[None, :]
        b_ptrs = b_ptr + (k0 + offs_k)[:, None] * N + (offs_n % N)[None, :]
        if HAS_TAIL:
            a = _fz_load(a_ptrs, mask=(k0 + offs_k)[None, :] < K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_m[:, None] < M)  # expect: TL101
        else:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        if not (FULL_K):
            rs = tl.load(rs_ptr + k0 + offs_k, mask=None if False else ((k0 + offs_k)[None, :] < K) & (offs_m[:, None] < M))
        else:
            rs = tl.load(rs_ptr + k0 + offs_k, mask=k0 + offs_k < K, other=0.0)
        acc = tl.dot(a * rs[None, :], b, acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def _fz_load(p, *rest, mask=None, other=None):
    return tl.load(p, *rest, mask=mask, other=other)

