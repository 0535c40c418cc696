# Fuzz finding (scripts/fuzz_long.py, detection case from unmasked-tail-store/gemm_epilogue_even_mn):
# a flag in parentheses is not read as a flag. `if not EVEN_M: masked else: unmasked` reports the
# unmasked store (TL102: EVEN_N may still be False); `if not (EVEN_M):` (as written here), and
# likewise `if (EVEN_M):` or `not(EVEN_M)`, report nothing.
import triton
import triton.language as tl


@triton.jit
def epilogue(acc_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             EVEN_M: tl.constexpr, EVEN_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    out_offs = offs_m[:, None] * N + offs_n[None, :]
    act = tl.load(acc_ptr + out_offs, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N), other=0.0)
    if not (EVEN_M):
        tl.store(y_ptr + out_offs, act, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
    else:
        tl.store(y_ptr + out_offs, act)  # expect: TL102
