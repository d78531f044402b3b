# expect: failed mistake=no_sqrt
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean_square = torch.mean(torch.square(x), dim=-1, keepdim=True)
        return self.weight * x * torch.reciprocal(mean_square + self.eps)
