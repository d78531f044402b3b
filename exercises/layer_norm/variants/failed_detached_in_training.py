# expect: failed mistake=detached_statistics class=training_mode
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
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        if self.training:
            # "Save memory in training": the statistics then get no gradient.
            mean, var = mean.detach(), var.detach()
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
