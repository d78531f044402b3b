# expect: failed mistake=detached_statistics
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
            inv_std = torch.rsqrt(var + self.eps)
        return (x - mean) * inv_std * self.weight + self.bias
