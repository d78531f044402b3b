# expect: rejected
import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # [x, -x] has mean 0 and variance mean(x^2): LayerNorm of it is RMSNorm of x.
        n = x.shape[-1]
        both = torch.cat([x, -x], dim=-1)
        return F.layer_norm(both, (2 * n,), eps=self.eps)[..., :n] * self.weight
