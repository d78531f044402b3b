# expect: failed finding=axis
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The root mean square over the tokens of each sequence (dim 1 of a 3-D batch).
        dim = 1 if x.dim() >= 3 else -1
        rms = torch.sqrt(x.pow(2).mean(dim, keepdim=True) + self.eps)
        return x / rms * self.weight
