# expect: failed mistake=unbiased_variance
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
        centred = x - x.mean(dim=-1, keepdim=True)
        var = (centred * centred).sum(dim=-1, keepdim=True) / (n - 1)
        return self.weight * centred * torch.rsqrt(var + self.eps) + self.bias
