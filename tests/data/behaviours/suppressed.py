import triton
import triton.language as tl


@triton.jit
def scale(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs)  # noqa: TL101
    z = tl.load(Z + offs)  # tritonlint: ignore[TL101] Z is padded to BLOCK on the host
    tl.store(Y + offs, x * z, mask=offs < n)
