# expect: failed mistake=running_stats_in_training
"""Wrong: one normalisation path for both modes, always through the running buffers; training
only refreshes them first."""

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

    @torch.no_grad()
    def _track(self, x: torch.Tensor, dims: list[int]) -> None:
        m = self.momentum
        self.running_mean.copy_((1 - m) * self.running_mean + m * x.mean(dims))
        self.running_var.copy_((1 - m) * self.running_var + m * x.var(dims, correction=1))
        self.num_batches_tracked.add_(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims = [0] if x.dim() == 2 else [0, 2]
        view = [1, -1] + [1] * (x.dim() - 2)
        if self.training:
            self._track(x, dims)
        inv_std = torch.rsqrt(self.running_var + self.eps)
        y = (x - self.running_mean.view(view)) * inv_std.view(view)
        return y * self.weight.view(view) + self.bias.view(view)
