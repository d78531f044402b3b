# expect: failed mistake=biased_running_variance
"""Wrong: one torch.var_mean(correction=0) serves both the normalisation and running_var."""

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
        c = x.shape[1]
        # Every value of one channel in one row: (C, N) or (C, N * L).
        per_channel = x.transpose(0, 1).reshape(c, -1)
        if self.training:
            var, mean = torch.var_mean(per_channel, dim=1, correction=0)
            with torch.no_grad():
                self.running_mean.lerp_(mean, self.momentum)
                self.running_var.lerp_(var, self.momentum)
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        view = (1, c) + (1,) * (x.dim() - 2)
        scale = self.weight / torch.sqrt(var + self.eps)
        return (x - mean.view(view)) * scale.view(view) + self.bias.view(view)
