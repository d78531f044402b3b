# expect: failed mistake=detached_statistics
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # "The scale is a constant per row."
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps).detach()
        return self.weight * (x / rms)
