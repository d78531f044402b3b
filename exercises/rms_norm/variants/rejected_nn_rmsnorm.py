# expect: rejected
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inner = nn.RMSNorm(x.shape[-1], eps=self.eps).to(x.dtype)
        inner.weight = self.weight
        return inner(x)
