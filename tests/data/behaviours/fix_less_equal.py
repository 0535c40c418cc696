import triton
import triton.language as tl


@triton.jit
def copy_upto(X, Y, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    last = N - 1
    x = tl.load(X + offs, mask=offs <= last, other=0.0)
    tl.store(Y + offs, x)
