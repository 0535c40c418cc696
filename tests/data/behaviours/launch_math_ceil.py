import math

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)


def add(x, y, n, BLOCK=1024):
    out = torch.empty(n)
    add_kernel[(math.ceil(n / BLOCK),)](x, y, out, n, BLOCK_SIZE=BLOCK)
    return out
