# expect: failed mistake=wrong_axis
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The statistic taken down the first axis, written as a sum over it.
        ms = (x * x).sum(dim=0, keepdim=True) / x.shape[0]
        return self.weight * x / torch.sqrt(ms + self.eps)
