# expect: failed mistake=eps_outside_sqrt diagnosis=robust
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The standard deviation written out, eps added to it (as in issue 10).
        mean = x.mean(-1, keepdim=True)
        std = torch.sqrt(((x - mean) ** 2).mean(-1, keepdim=True))
        return (x - mean) / (std + self.eps) * self.weight + self.bias
