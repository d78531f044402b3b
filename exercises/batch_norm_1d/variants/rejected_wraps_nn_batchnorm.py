# expect: rejected
"""Rejected: wraps nn.BatchNorm1d and forwards its state under the contract's names."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        inner = nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)
        self.weight, self.bias = inner.weight, inner.bias
        self.register_buffer("running_mean", inner.running_mean)
        self.register_buffer("running_var", inner.running_var)
        self.register_buffer("num_batches_tracked", inner.num_batches_tracked)
        self.eps, self.momentum = eps, momentum

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.batch_norm(
            x,
            self.weight,
            self.bias,
            self.running_mean,
            self.running_var,
            self.training,
            self.momentum,
            self.eps,
            False,
        ) + 0 * self.num_batches_tracked.add_(int(self.training))
