# expect: failed mistake=running_stats_updated_in_eval
"""Wrong: the running estimates are refreshed at the end of every forward, eval included
(after the eval output was computed from them)."""

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
        dims = [0] if x.dim() == 2 else [0, 2]
        view = [1, -1] + [1] * (x.dim() - 2)
        batch_mean = x.mean(dims)
        batch_var = x.var(dims, unbiased=False)
        if self.training:
            mean, var = batch_mean, batch_var
        else:
            mean, var = self.running_mean.clone(), self.running_var.clone()
        out = (x - mean.view(view)) / torch.sqrt(var.view(view) + self.eps)
        out = out * self.weight.view(view) + self.bias.view(view)
        n = x.numel() // x.shape[1]
        with torch.no_grad():
            self.running_mean.lerp_(batch_mean, self.momentum)
            self.running_var.lerp_(batch_var * n / (n - 1), self.momentum)
            self.num_batches_tracked.add_(1)
        return out
