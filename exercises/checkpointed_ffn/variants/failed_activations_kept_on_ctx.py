# expect: failed mistake=saved_bytes_over_budget
import torch
import torch.nn.functional as F
from torch import nn


class _Ffn(torch.autograd.Function):
    # A hand-written backward that keeps the activations on ctx: nothing is recomputed.
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = F.linear(x, w1, b1)
        a = F.gelu(h)
        ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2 = x, h, a, w1, w2
        return F.linear(a, w2, b2)

    @staticmethod
    def backward(ctx, grad):
        x, h, a, w1, w2 = ctx.x, ctx.h, ctx.a, ctx.w1, ctx.w2
        rows_g = grad.reshape(-1, grad.shape[-1])
        d_a = grad @ w2
        cdf = 0.5 * (1 + torch.erf(h / 2**0.5))
        pdf = torch.exp(-0.5 * h * h) / (2 * torch.pi) ** 0.5
        d_h = d_a * (cdf + h * pdf)
        rows_h = d_h.reshape(-1, d_h.shape[-1])
        return (
            d_h @ w1,
            rows_h.T @ x.reshape(-1, x.shape[-1]),
            rows_h.sum(0),
            rows_g.T @ a.reshape(-1, a.shape[-1]),
            rows_g.sum(0),
        )


class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        a, b = self.linear1, self.linear2
        return _Ffn.apply(x, a.weight, a.bias, b.weight, b.bias)
