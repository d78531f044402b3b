# expect: failed mistake=float32_internals
"""Wrong here: a float32 tensor of the row size and eps (made once, "to save a cast") pulls
float64 input down to float32 in every division."""

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.n = dim
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        low = x.to(torch.float32)  # for every dtype: right for bfloat16, not for float64
        mean = low.sum(-1, keepdim=True) / self.n
        var = ((low - mean) ** 2).sum(-1, keepdim=True) / self.n
        y = (low - mean) / torch.sqrt(var + self.eps)
        return y.to(x.dtype) * self.weight + self.bias
