# expect: failed mistake=mean_centred
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # A LayerNorm without its bias: the variance is taken around the mean.
        var = x.var(-1, unbiased=False, keepdim=True)
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(var + self.eps) * self.weight
