# expect: failed mistake=stats_over_wrong_dims_3d
"""Wrong: statistics over dim 0 only, with keepdim: right for (N, C), but one mean and
variance per channel *and position* for (N, C, L)."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    running_mean: torch.Tensor
    running_var: torch.Tensor
    num_batches_tracked: torch.Tensor

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        w, b = self.weight.reshape(shape), self.bias.reshape(shape)
        if not self.training:
            rm, rv = self.running_mean.reshape(shape), self.running_var.reshape(shape)
            return (x - rm) / torch.sqrt(rv + self.eps) * w + b
        mean = x.mean(0, keepdim=True)
        var = ((x - mean) ** 2).mean(0, keepdim=True)
        n = x.shape[0]
        with torch.no_grad():
            c = x.shape[1]
            unbiased = var * n / (n - 1) if n > 1 else var
            m = self.momentum
            self.running_mean.mul_(1 - m).add_(mean.reshape(c, -1).mean(-1), alpha=m)
            self.running_var.mul_(1 - m).add_(unbiased.reshape(c, -1).mean(-1), alpha=m)
            self.num_batches_tracked.add_(1)
        return (x - mean) / torch.sqrt(var + self.eps) * w + b
