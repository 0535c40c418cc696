import triton
import triton.language as tl

SCALE = 2  # tritonlint: noqa


@triton.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, x * SCALE, mask=offs < n)
