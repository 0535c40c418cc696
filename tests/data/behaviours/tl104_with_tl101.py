import triton
import triton.language as tl


@triton.jit
def row_sums(X, Y, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        x = tl.load(X + rows[:, None] * stride + start + cols[None, :], mask=cols[None, :] < N, other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(Y + rows, acc, mask=rows < M)
