# expect: failed mistake=mask_redrawn_in_backward
import torch
from torch import nn


def _mask_like(t, p):
    return torch.empty_like(t).bernoulli_(1 - p) / (1 - p)


class _Drop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, p):
        ctx.p = p
        return x * _mask_like(x, p)

    @staticmethod
    def backward(ctx, grad):
        return grad * _mask_like(grad, ctx.p), None


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        if self.training and 0 < self.p < 1:
            return _Drop.apply(x, self.p)
        if self.training and self.p == 1:
            return x * 0
        return x
