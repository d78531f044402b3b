# expect: failed class=odd_feature_size
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def _sum(self, t: torch.Tensor) -> torch.Tensor:
        # Blocked reduction, as a kernel would do it: whole blocks of 128 only, so the tail
        # of a feature size that is no multiple of 128 is dropped.
        d = t.shape[-1]
        if d < 128:
            return t.sum(-1, keepdim=True)
        total = torch.zeros_like(t[..., :1])
        for start in range(0, d - d % 128, 128):
            total = total + t[..., start : start + 128].sum(-1, keepdim=True)
        return total

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-1]
        mean = self._sum(x) / n
        var = self._sum((x - mean) ** 2) / n
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
