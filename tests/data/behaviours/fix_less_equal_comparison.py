import triton
import triton.language as tl


@triton.jit
def row_sums(X, Y, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    last = M - 1
    x = tl.load(X + rows[:, None] * BLOCK_N + cols[None, :])
    tl.store(Y + rows, tl.sum(x, axis=1), mask=rows <= last)
