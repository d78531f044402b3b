# expect: failed finding=axis
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # (batch, seq, dim): normalise each feature over the sequence positions.
        axis = 1 if x.dim() >= 3 else -1
        mean = x.mean(axis, keepdim=True)
        var = ((x - mean) ** 2).mean(axis, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
