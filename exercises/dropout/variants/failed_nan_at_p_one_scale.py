# expect: failed mistake=nan_at_p_one
import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        if self.training and self.p > 0:
            scale = 1.0 / (1.0 - self.p) if self.p < 1 else float("inf")
            return x * torch.empty_like(x).bernoulli_(1.0 - self.p) * scale
        return x
