# expect: failed mistake=wrong_output_dtype
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Hard-codes float32 "as everyone trains in it": a float64 (or half) input comes back
        # as float32.
        h = x.to(torch.float32)
        var, mean = torch.var_mean(h, dim=-1, unbiased=False, keepdim=True)
        y = (h - mean) * torch.rsqrt(var + self.eps)
        return y * self.weight.float() + self.bias.float()
