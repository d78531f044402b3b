# expect: passed
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # ||x|| / sqrt(n) is the RMS; square it back to add eps under the root.
        ms = torch.linalg.vector_norm(x, dim=-1, keepdim=True).pow(2) / x.shape[-1]
        return x / torch.sqrt(ms + self.eps) * self.weight
