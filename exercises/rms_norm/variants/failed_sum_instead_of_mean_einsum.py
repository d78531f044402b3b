# expect: failed mistake=sum_instead_of_mean
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sq = torch.einsum("...d,...d->...", x, x).unsqueeze(-1)
        return x / torch.sqrt(sq + self.eps) * self.weight
