import triton
import triton.language as tl


@triton.heuristics({"K_FLAG": lambda args: args["K"] % args["BLOCK_K"] != 0})
@triton.jit
def row_sum(X, Y, K, K_FLAG: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        acc += tl.load(X + offs, mask=None if K_FLAG else offs < K, other=0.0)
    tl.store(Y, tl.sum(acc))
