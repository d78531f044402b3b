# expect: failed mistake=detached_batch_statistics
"""Wrong: the batch statistics are computed inside the no_grad block that updates the buffers,
so backward never sees them."""

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
        if self.training:
            # "Statistics are bookkeeping": all of it without autograd.
            with torch.no_grad():
                mean = x.mean(dims, keepdim=True)
                var = x.var(dims, unbiased=False, keepdim=True)
                n = x.numel() // x.shape[1]
                m = self.momentum
                self.running_mean.mul_(1 - m).add_(m * mean.flatten())
                self.running_var.mul_(1 - m).add_(m * n / (n - 1) * var.flatten())
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean.view(view), self.running_var.view(view)
        y = (x - mean) / torch.sqrt(var + self.eps)
        return torch.addcmul(self.bias.view(view), y, self.weight.view(view))
