# expect: error class=state_across_calls
"""Wrong: eval fuses weight / sqrt(running_var + eps) on the first call and reuses it forever."""

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
        self._fused: tuple[torch.Tensor, torch.Tensor] | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        if self.training:
            self._fused = None
            mean, var = x.mean(dims), x.var(dims, unbiased=False)
            n = x.numel() // x.shape[1]
            with torch.no_grad():
                m = self.momentum
                self.running_mean.mul_(1 - m).add_(m * mean)
                self.running_var.mul_(1 - m).add_(m * var * n / (n - 1))
                self.num_batches_tracked.add_(1)
            x_hat = (x - mean.reshape(shape)) / torch.sqrt(var.reshape(shape) + self.eps)
            return x_hat * self.weight.reshape(shape) + self.bias.reshape(shape)
        if self._fused is None:
            scale = self.weight / torch.sqrt(self.running_var + self.eps)
            self._fused = (scale, self.bias - self.running_mean * scale)
        scale, shift = self._fused
        return x * scale.reshape(shape) + shift.reshape(shape)
