import triton
import triton.language as tl


@triton.jit
def softmax_denominator(X, Y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + row * N + offs, mask=offs < N, other=0.0)
    p = tl.exp2(x * 1.4426950408889634)
    tl.store(Y + row, tl.sum(p, axis=0))
