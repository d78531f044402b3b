# expect: failed mistake=mask_cached_across_calls
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p
        self.masks = {}

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        if x.shape not in self.masks:  # one mask per shape, drawn once
            self.masks[x.shape] = (torch.rand_like(x) > self.p).to(x.dtype) / (1 - self.p)
        return x * self.masks[x.shape]
