# expect: rejected
import torch
from torch import nn

norm = torch.rms_norm  # an alias hides the name at the call site, not from the tripwire


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return norm(x, [x.shape[-1]], self.weight, self.eps)
