# A fix whose first round creates the evidence for a second (docs/testing/fuzz.md's multi-round class; cut
# down from scripts/fuzz_long.py seed 716, a mutated flag_named_oddly kernel). Round 1 masks K on
# the tail side of the `a` load, writing `... if mask_a is None else ...`; that new test is a path
# on which M is not bounded, so round 2 reports the same call for `offs_m` and masks it too. A
# fixer that stops after one round leaves a file that a second `--fix` changes again.
import triton
import triton.language as tl


@triton.jit
def scale_rows(A, O, M, K, TILE_M: tl.constexpr, TILE_K: tl.constexpr,
               DIVISIBLE_M: tl.constexpr, DIVISIBLE_K: tl.constexpr):
    offs_m = tl.program_id(0) * TILE_M + tl.arange(0, TILE_M)
    offs_k = tl.arange(0, TILE_K)
    mask_m = offs_m < M
    a_ptrs = A + offs_m[:, None] * K + offs_k[None, :]
    acc = tl.zeros((TILE_M,), dtype=tl.float32)
    for _ in range(tl.cdiv(K, TILE_K)):
        if DIVISIBLE_K:
            mask_k = offs_k < K
            if DIVISIBLE_M:
                mask_a = mask_k[None, :]
            else:
                mask_a = mask_m[:, None] & mask_k[None, :]
        else:
            mask_a = None if DIVISIBLE_M else mask_m[:, None]
        a = tl.load(a_ptrs, mask_a)
        offs_k += TILE_K
        a_ptrs += TILE_K
        acc += tl.sum(a, axis=1)
    tl.store(O + offs_m, acc, mask=mask_m)
