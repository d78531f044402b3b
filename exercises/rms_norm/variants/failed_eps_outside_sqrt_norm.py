# expect: failed mistake=eps_outside_sqrt diagnosis=robust
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The root mean square through the L2 norm: ||x|| / sqrt(n), eps added to it.
        rms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / x.shape[-1] ** 0.5
        return self.weight * x / (rms + self.eps)
