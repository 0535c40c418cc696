"""Two loops move one pointer: the outer loop by whole channels, the inner one along the rows.

The inner loop must be credited with the rows only, never with the columns (`offs_hw`, one
full-width tile). Which loop a dimension was credited to once depended on set iteration order
(PYTHONHASHSEED): the same file gave 1 or 2 findings from one run to the next.
"""
import triton
import triton.language as tl


@triton.jit
def two_loops(X, Y, N, C, HW: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs_n = tl.arange(0, BLOCK_N)
    offs_hw = tl.arange(0, HW)
    for c in range(pid * 4, pid * 4 + 4):
        acc = tl.load(X + c * HW + offs_n[:, None] * C * HW + offs_hw[None, :],
                      mask=(offs_n < N)[:, None], other=0.0)
        for n_start in range(1, tl.cdiv(N, BLOCK_N)):
            rows = n_start * BLOCK_N + offs_n
            ptr = X + c * HW + rows[:, None] * C * HW + offs_hw[None, :]
            acc += tl.load(ptr)
        tl.store(Y + c * HW + offs_hw, tl.sum(acc, axis=0))
