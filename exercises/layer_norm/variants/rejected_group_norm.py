# expect: rejected
import torch
import torch.nn.functional as F
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # One group over (rows, dim) is LayerNorm over the last dim in disguise.
        rows = x.reshape(-1, x.shape[-1])
        y = F.group_norm(rows, 1, self.weight, self.bias, self.eps)
        return y.reshape(x.shape)
