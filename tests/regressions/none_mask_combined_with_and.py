# Fuzz finding (scripts/fuzz_long.py, generic case from unmasked-tail-load/conditional_expression):
# the w load already has `mask=None if EVEN_K else offs_k < k_rem`; it is reported (EVEN_K is not
# recognised here) and the unsafe fix ANDs the sibling mask onto it:
#     mask=(None if EVEN_K else offs_k < k_rem) & (offs_k < k_rem)
# which is `None & tensor` in the EVEN_K=True specialization: the fixed kernel does not compile.
import triton
import triton.language as tl


@triton.jit
def k_loop(x_ptr, w_ptr, y_ptr, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_rem = K - k * BLOCK_K
        ks = k * BLOCK_K + offs_k
        x = tl.load(x_ptr + ks, mask=offs_k < k_rem, other=0.0)
        w = tl.load(w_ptr + ks, mask=None if EVEN_K else offs_k < k_rem, other=None if EVEN_K else 0)
        acc += x * w
    tl.store(y_ptr, tl.sum(acc, axis=0))


# The same mask shape on a call that IS reported (k_loop above no longer is: EVEN_K is recognised,
# so the fixer never runs on it). The mask bounds M off the EVEN_M side; the loop walks K with no
# bound. The fix must add the K bound inside each side of the switch, never `(None if ...) & ...`.
@triton.jit
def row_block_sum(X, Y, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_M: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(X + offs_m[:, None] * K + (k + offs_k)[None, :],
                    mask=None if EVEN_M else offs_m[:, None] < M, other=None if EVEN_M else 0.0)
        acc += tl.sum(x, axis=1)
    if EVEN_M:
        tl.store(Y + offs_m, acc)
    else:
        tl.store(Y + offs_m, acc, mask=offs_m < M)
