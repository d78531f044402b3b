# expect: rejected
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Wraps the built-in module around its own parameters.
        inner = nn.LayerNorm(x.shape[-1], eps=self.eps).to(x.dtype)
        inner.weight = self.weight
        inner.bias = self.bias
        return inner(x)
