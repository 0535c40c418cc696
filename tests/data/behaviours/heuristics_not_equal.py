import triton
import triton.language as tl


@triton.heuristics({"K_FLAG": lambda args: args["K"] % args["BLOCK_K"] != 0})
@triton.jit
def row_sum(X, Y, K, K_FLAG: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        if K_FLAG:
            acc += tl.load(X + offs)
    tl.store(Y, tl.sum(acc))
