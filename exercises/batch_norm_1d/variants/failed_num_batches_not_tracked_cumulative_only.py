# expect: failed mistake=num_batches_not_tracked
"""Wrong: the batch count is kept only where it is used, for momentum=None (a cumulative
average), so with a numeric momentum it never moves."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    running_mean: torch.Tensor
    running_var: torch.Tensor
    num_batches_tracked: torch.Tensor

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1) -> None:
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def _factor(self) -> float:
        if self.momentum is None:
            self.num_batches_tracked += 1
            return 1.0 / float(self.num_batches_tracked)
        return self.momentum

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        if self.training:
            var, mean = torch.var_mean(x, dim=dims, unbiased=False)
            n = x.numel() // x.shape[1]
            with torch.no_grad():
                f = self._factor()
                self.running_mean.mul_(1 - f).add_(f * mean)
                self.running_var.mul_(1 - f).add_(f * var * n / (n - 1))
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean.reshape(shape)) / (var.reshape(shape) + self.eps).sqrt()
        return y * self.weight.reshape(shape) + self.bias.reshape(shape)
