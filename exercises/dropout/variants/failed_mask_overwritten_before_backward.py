# expect: failed mistake=mask_overwritten_before_backward class=state_across_calls
import torch
from torch import nn


class _Drop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, module):
        ctx.module = module
        return x * module.mask

    @staticmethod
    def backward(ctx, grad):
        # The module's current mask: a second forward before this backward has replaced it.
        return grad * ctx.module.mask, None


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p
        self.mask = None

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        self.mask = torch.empty_like(x).bernoulli_(1 - self.p) / (1 - self.p)
        return _Drop.apply(x, self)
