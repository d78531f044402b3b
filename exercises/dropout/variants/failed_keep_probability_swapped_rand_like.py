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
        if not self.training:
            return x
        keep = (torch.rand_like(x) < self.p).to(x.dtype)  # p taken as the keep probability
        return x * keep / self.p if self.p > 0 else torch.zeros_like(x)
