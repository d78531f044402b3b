# expect: error class=non_contiguous
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # .view needs compatible strides: a transposed input cannot be viewed as rows.
        rows = x.view(-1, x.shape[-1])
        mean = rows.mean(-1, keepdim=True)
        var = ((rows - mean) ** 2).mean(-1, keepdim=True)
        out = (rows - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
        return out.view(x.shape)
