# expect: passed
import torch
import torch.nn.functional as F
from torch import nn


class _Recompute(torch.autograd.Function):
    # The recomputation and the backward by hand: no autograd at all in backward.
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        ctx.save_for_backward(x, w1, b1, w2, b2)
        return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)

    @staticmethod
    def backward(ctx, grad):
        x, w1, b1, w2, _b2 = ctx.saved_tensors
        h = F.linear(x, w1, b1)
        a = F.gelu(h)
        rows_g = grad.reshape(-1, grad.shape[-1])
        rows_a = a.reshape(-1, a.shape[-1])
        d_w2 = rows_g.T @ rows_a
        d_b2 = rows_g.sum(0)
        d_a = grad @ w2
        cdf = 0.5 * (1 + torch.erf(h / 2**0.5))
        pdf = torch.exp(-0.5 * h * h) / (2 * torch.pi) ** 0.5
        d_h = d_a * (cdf + h * pdf)
        rows_h = d_h.reshape(-1, d_h.shape[-1])
        d_w1 = rows_h.T @ x.reshape(-1, x.shape[-1])
        d_b1 = rows_h.sum(0)
        return d_h @ w1, d_w1, d_b1, d_w2, d_b2


class CheckpointedFFN(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x):
        a, b = self.linear1, self.linear2
        return _Recompute.apply(x, a.weight, a.bias, b.weight, b.bias)
