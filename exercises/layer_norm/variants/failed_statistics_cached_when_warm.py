# expect: failed class=third_call
"""Wrong: "warms up" for two calls, then keeps the statistics of the last warm-up batch and
reuses them for every later batch of the same shape (a stale cache)."""

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.calls = 0
        self.cache: dict[tuple[int, ...], tuple[torch.Tensor, torch.Tensor]] = {}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        key = tuple(x.shape)
        if self.calls > 2 and key in self.cache:
            mean, var = self.cache[key]
        else:
            mean = x.mean(-1, keepdim=True)
            var = ((x - mean) ** 2).mean(-1, keepdim=True)
            self.cache[key] = (mean.detach(), var.detach())
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
