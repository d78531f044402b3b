# expect: failed mistake=mask_overwritten_before_backward
import torch
from torch import nn


class DropMask(torch.autograd.Function):
    last = None  # the mask of the latest forward, shared by every call

    @staticmethod
    def forward(ctx, x, keep, scale):
        DropMask.last = keep * scale
        return x * DropMask.last

    @staticmethod
    def backward(ctx, grad):
        return grad * DropMask.last, None, None


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
        keep = torch.empty_like(x).bernoulli_(1 - self.p)
        return DropMask.apply(x, keep, 1.0 / (1 - self.p))
