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
