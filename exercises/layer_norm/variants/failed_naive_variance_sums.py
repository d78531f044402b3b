# expect: failed mistake=naive_variance
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # One pass over the data: sum and sum of squares.
        mean = torch.mean(x, dim=-1, keepdim=True)
        mean_sq = torch.mean(x.pow(2), dim=-1, keepdim=True)
        var = mean_sq - mean.pow(2)
        return self.weight * ((x - mean) / torch.sqrt(var + self.eps)) + self.bias
