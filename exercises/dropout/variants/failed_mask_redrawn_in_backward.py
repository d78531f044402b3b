# expect: failed mistake=mask_redrawn_in_backward
import torch
from torch import nn


class _Drop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, p):
        ctx.p = p
        return x * torch.empty_like(x).bernoulli_(1 - p) / (1 - p)

    @staticmethod
    def backward(ctx, grad):
        mask = torch.empty_like(grad).bernoulli_(1 - ctx.p)  # "the same distribution"
        return grad * mask / (1 - ctx.p), None


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        return _Drop.apply(x, self.p)
