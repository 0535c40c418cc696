import triton
import triton.language as tl


@triton.jit
def dot(X, W, Y, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            x = tl.load(X + k + offs)
            w = tl.load(W + k + offs)
        else:
            x = tl.load(X + k + offs, mask=k + offs < K, other=0.0)
            w = tl.load(W + k + offs)
        acc += x * w
    tl.store(Y, tl.sum(acc, axis=0))
