# expect: rejected
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # A composite op reached through torch.ops: it decomposes into pow/mean/rsqrt before the
        # dispatch-level tripwire sees it, so only the name gives it away.
        return torch.ops.aten.rms_norm(x, [x.shape[-1]], self.weight, self.eps)
