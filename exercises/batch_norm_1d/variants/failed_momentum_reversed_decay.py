# expect: failed mistake=momentum_reversed
"""Wrong: momentum taken as a decay rate, written as an exponential moving average helper."""

from __future__ import annotations

import torch
from torch import nn


def ema(average: torch.Tensor, value: torch.Tensor, decay: float) -> torch.Tensor:
    """An exponential moving average: keep `decay` of the old value."""
    return decay * average + (1.0 - decay) * value


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
        if self.training:
            mean = x.mean(dims)
            var = x.var(dims, unbiased=False)
            with torch.no_grad():
                self.running_mean.copy_(ema(self.running_mean, mean, self.momentum))
                self.running_var.copy_(ema(self.running_var, x.var(dims), self.momentum))
                self.num_batches_tracked.add_(1)
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean.view(view)) * torch.rsqrt(var.view(view) + self.eps)
        return self.weight.view(view) * x_hat + self.bias.view(view)
