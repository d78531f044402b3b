# expect: passed
import torch
from torch import nn


class Dropout(nn.Module):
    """As PyTorch's own decomposition of dropout (torch/_refs/nn/functional): a uniform draw
    below the keep probability, the input times the mask times the scale."""

    def __init__(self, p=0.5):
        super().__init__()
        if p < 0.0 or p > 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, x):
        if not self.training:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        if self.p == 0:
            return x
        p_keep = 1 - self.p
        mask = torch.empty_like(x).uniform_(0, 1) < p_keep
        scale = 1 / p_keep
        return x * mask * scale
