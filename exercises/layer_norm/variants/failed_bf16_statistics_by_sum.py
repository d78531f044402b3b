# expect: failed mistake=low_precision_statistics
"""Wrong in bfloat16: mean and variance as sums divided by the row size, each sum rounded to the
input's dtype first; exact in float32, off by the rounding of dim * value in bfloat16."""

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-1]
        mean = torch.sum(x, dim=-1, keepdim=True) / n
        centred = x - mean
        var = torch.sum(centred * centred, dim=-1, keepdim=True) / n
        return centred / torch.sqrt(var + self.eps) * self.weight + self.bias
