"""The row-scale kernels and autograd class the latent-mark tests share: a forward and a backward kernel
whose unmasked loads are kept in bounds only by the sizes their callers pass (the tests add the callers), and a
public entry point that pads the sequence to a multiple of 128 before it calls them."""

import textwrap

ROW_SCALE = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def row_scale_fwd(X, Out, stride_bh, N_CTX, BLOCK_M: tl.constexpr):
        pid = tl.program_id(0)
        bh = tl.program_id(1)
        offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        x = tl.load(X + bh * stride_bh + offs)
        tl.store(Out + bh * stride_bh + offs, x * 2.0, mask=offs < N_CTX)


    @triton.jit
    def row_scale_bwd(X, DOut, DX, stride_bh, N_CTX, BLOCK_M: tl.constexpr):
        pid = tl.program_id(0)
        bh = tl.program_id(1)
        offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        x = tl.load(X + bh * stride_bh + offs)
        do = tl.load(DOut + bh * stride_bh + offs, mask=offs < N_CTX, other=0.0)
        tl.store(DX + bh * stride_bh + offs, do * 2.0 + x * 0.0, mask=offs < N_CTX)


    class _RowScale(torch.autograd.Function):

        @staticmethod
        def forward(ctx, x, scale):
            out = torch.empty_like(x)
            grid = (triton.cdiv(x.shape[2], 64), x.shape[0] * x.shape[1])
            row_scale_fwd[grid](x, out, x.stride(1), x.shape[2], BLOCK_M=64)
            ctx.save_for_backward(out, x)
            return out

        @staticmethod
        def backward(ctx, dout):
            out, x = ctx.saved_tensors
            batch, heads, n_ctx = x.shape[:3]
            dx = torch.empty_like(x)
            grid = (triton.cdiv(n_ctx, 32), batch * heads)
            row_scale_bwd[grid](x, dout, dx, x.stride(1), n_ctx, BLOCK_M=32)
            return dx, None
""")

PADDING_CALLER = textwrap.dedent("""\
    import torch

    from rows.kernels import row_scale

    BLOCK = 128


    def scale_sequence(x):
        x = x.contiguous() if not x.is_contiguous() else x
        batch, seq_len, heads = x.shape
        pad = (BLOCK - seq_len % BLOCK) % BLOCK
        if pad > 0:
            x = torch.cat([x, torch.zeros(batch, pad, heads, dtype=x.dtype, device=x.device)], dim=1)
        x = x.transpose(1, 2).contiguous()
        out = row_scale(x)
        return out.transpose(1, 2)[:, :seq_len]
""")
