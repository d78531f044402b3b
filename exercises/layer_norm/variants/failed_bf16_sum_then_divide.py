# expect: failed mistake=low_precision_statistics class=bf16_rounding
import torch
import torch.nn as nn


class LayerNorm(nn.Module):
    """Sums in the input's dtype, then divides: in bfloat16 the sum of a row around 100 is
    rounded to 8 significant bits before the division, off by as much as the spread."""

    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(dim))
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-1]
        mean = x.sum(-1) / n
        centred = x - mean.unsqueeze(-1)
        var = (centred * centred).sum(-1) / n
        inv_std = 1.0 / torch.sqrt(var + self.eps)
        return centred * inv_std.unsqueeze(-1) * self.weight + self.bias
