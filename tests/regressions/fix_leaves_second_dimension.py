# Fuzz finding (scripts/fuzz_long.py, generic case): the x load walks two unbounded dimensions,
# K (the loop; its sibling w load is masked on K) and M (the output store is masked on M).
# `check` reports only K and `--fix --unsafe-fixes` masks only K; re-checking the fixed file then
# reports the same call again, now for `offs_m`, with no fix. A fixed call is reported again.
import triton
import triton.language as tl


@triton.jit
def two_dims(x_ptr, w_ptr, y_ptr, M, N, K,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        x = tl.load(x_ptr + offs_m[:, None] * K + ks[None, :])
        w = tl.load(w_ptr + ks[:, None] * N + offs_n[None, :], mask=ks[:, None] < K, other=0.0)
        acc = tl.dot(x, w, acc)
    tl.store(y_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=offs_m[:, None] < M)
