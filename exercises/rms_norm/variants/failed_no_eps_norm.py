# expect: failed mistake=no_eps
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = x.norm(p=2, dim=-1, keepdim=True) * x.shape[-1] ** -0.5
        return x / rms * self.weight
