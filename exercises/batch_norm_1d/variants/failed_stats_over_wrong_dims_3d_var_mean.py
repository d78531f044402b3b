# expect: failed mistake=stats_over_wrong_dims_3d
"""Wrong: torch.var_mean over dim 0, written once for every rank: (1, C) statistics for (N, C)
as it should be, but (1, C, L), one per channel and position, for (N, C, L)."""

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

    def _per_channel(self, stat: torch.Tensor) -> torch.Tensor:
        # The buffers hold one number per channel: average what is left over the positions.
        return stat.flatten(2).mean(-1).squeeze(0) if stat.dim() == 3 else stat.squeeze(0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        channel = [1, -1] + [1] * (x.dim() - 2)
        if self.training:
            var, mean = torch.var_mean(x, dim=0, keepdim=True, correction=0)
            correction = 1 if x.shape[0] > 1 else 0  # one sample: no unbiased variance
            unbiased = torch.var(x, dim=0, keepdim=True, correction=correction)
            with torch.no_grad():
                self.running_mean.lerp_(self._per_channel(mean), self.momentum)
                self.running_var.lerp_(self._per_channel(unbiased), self.momentum)
                self.num_batches_tracked.add_(1)
        else:
            mean, var = self.running_mean.view(channel), self.running_var.view(channel)
        y = (x - mean) / torch.sqrt(var + self.eps)
        return y * self.weight.view(channel) + self.bias.view(channel)
