# expect: failed mistake=p_not_validated
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = min(max(p, 0.0), 1.0)  # clamped instead of refused

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        return x * torch.empty_like(x).bernoulli_(1 - self.p) / (1 - self.p)
