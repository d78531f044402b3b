# expect: passed
"""Correct: move channels last, flatten to (rows, C), rebind the buffers to detached tensors."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    running_mean: torch.Tensor
    running_var: torch.Tensor
    num_batches_tracked: torch.Tensor

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.c, self.eps, self.momentum = num_features, eps, momentum
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xl = x.movedim(1, -1)  # (N, C) or (N, L, C)
        rows = xl.reshape(-1, self.c)  # reshape, not view: the moved tensor is not contiguous
        if self.training:
            mean = rows.mean(0)
            var = rows.var(0, unbiased=False)
            m = self.momentum
            # Assigning a tensor to a registered buffer's name replaces the buffer.
            self.running_mean = ((1 - m) * self.running_mean + m * mean).detach()
            self.running_var = ((1 - m) * self.running_var + m * rows.var(0)).detach()
            self.num_batches_tracked = self.num_batches_tracked + 1
        else:
            mean, var = self.running_mean, self.running_var
        y = (xl - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
        return y.movedim(-1, 1)
