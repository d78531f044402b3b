# expect: failed mistake=in_place_mutation
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
        if x.requires_grad:
            return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
        # "Nothing to differentiate, so reuse the buffer": the augmented assignments below
        # write into the caller's tensor.
        x -= mean
        x /= torch.sqrt(var + self.eps)
        return x * self.weight + self.bias
