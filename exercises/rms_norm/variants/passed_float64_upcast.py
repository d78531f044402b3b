# expect: passed
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.float64)
        inv_rms = (h.square().sum(-1, keepdim=True) / h.shape[-1] + self.eps).rsqrt()
        return (h * inv_rms * self.weight.to(torch.float64)).to(x.dtype)
