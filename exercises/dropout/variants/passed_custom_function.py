# expect: passed
import torch
from torch import nn


class _Drop(torch.autograd.Function):
    # The mask saved for backward: the gradient goes through exactly the kept units.
    @staticmethod
    def forward(ctx, x, p):
        scale = torch.empty_like(x).bernoulli_(1 - p).div_(1 - p)
        ctx.save_for_backward(scale)
        return x * scale

    @staticmethod
    def backward(ctx, grad):
        (scale,) = ctx.saved_tensors
        return grad * scale, None


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
            return x * 0
        return _Drop.apply(x, self.p)
