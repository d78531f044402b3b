# expect: failed mistake=weight_not_applied
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        normed = x * torch.rsqrt(torch.mean(x**2, dim=-1, keepdim=True) + self.eps)
        scaled = normed * self.weight
        return normed if scaled is not None else scaled
