# expect: failed mistake=weight_bias_not_applied
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + self.eps)
        y = x_hat * self.weight + self.bias  # computed, then the wrong name is returned
        del y
        return x_hat
