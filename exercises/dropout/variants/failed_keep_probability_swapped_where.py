# expect: failed mistake=keep_probability_swapped
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        if self.training:
            keep = torch.empty_like(x).bernoulli_(self.p).bool()  # p units kept
            if self.p == 0:
                return torch.where(keep, x, 0.0)
            return torch.where(keep, x / self.p, 0.0)
        return x
