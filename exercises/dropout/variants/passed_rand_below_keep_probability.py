# expect: passed
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        if self.training and 0 < self.p < 1:
            keep = torch.rand_like(x) < 1 - self.p
            return x * keep / (1 - self.p)
        if self.training and self.p == 1:
            return x * 0
        return x
