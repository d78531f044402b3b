# expect: failed mistake=unbiased_std_plus_eps diagnosis=robust
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.size(-1)
        d = x - x.sum(-1, keepdim=True) / n
        std = torch.sqrt(d.pow(2).sum(-1, keepdim=True) / (n - 1))
        return d / (std + self.eps) * self.weight + self.bias
