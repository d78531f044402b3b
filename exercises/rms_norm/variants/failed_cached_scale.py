# expect: failed class=state_across_calls
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self._scale: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # "Fold" the weight once and reuse it: stale after the optimiser changes the weight.
        if self._scale is None:
            self._scale = self.weight.clone()
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self._scale
