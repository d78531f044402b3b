# expect: failed mistake=mask_cached_across_calls class=state_across_calls
import torch
from torch import nn


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
        if self.mask is None or self.mask.shape != x.shape:
            self.mask = torch.empty_like(x).bernoulli_(1 - self.p)  # kept for backward
        return x * self.mask / (1 - self.p)
