# expect: failed class=batch_of_one
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # "A single sample: one statistic is enough" - but it has many rows.
        single = x.dim() > 1 and x.shape[0] == 1
        ms = x.pow(2).mean() if single else x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(ms + self.eps) * self.weight
