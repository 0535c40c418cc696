import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.sum(acc, axis=0))


@triton.jit
def shifted_sum(x_ptr, out_ptr, N, SHIFT, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + SHIFT + offs)
    tl.store(out_ptr, tl.sum(acc, axis=0))
