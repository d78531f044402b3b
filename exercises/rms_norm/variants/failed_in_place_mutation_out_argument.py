# expect: failed mistake=in_place_mutation
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        if x.requires_grad:
            return x / rms * self.weight
        # No graph to keep, so x / rms is written into x's own storage with out=: the
        # caller's tensor is overwritten.
        torch.div(x, rms, out=x)
        return x * self.weight
