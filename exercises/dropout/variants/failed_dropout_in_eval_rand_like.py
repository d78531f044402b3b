# expect: failed mistake=dropout_in_eval
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        # Drops in every mode: the draw is right, the mode never read.
        if self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        keep = torch.rand_like(x) >= self.p
        return x * keep / (1 - self.p)
