import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({'BLOCK_K': 32}), triton.Config({'BLOCK_K': 64})], key=['K'])
@triton.jit
def row_sum(X, Y, K, EVEN_K: tl.constexpr, BLOCK_K: tl.constexpr = 2):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        acc += tl.load(X + offs) if EVEN_K else tl.load(X + offs, mask=offs < K, other=0.0)
    tl.store(Y, tl.sum(acc))


def launch(x, y, K):
    row_sum[(1,)](x, y, K, EVEN_K=K % 2 == 0)
