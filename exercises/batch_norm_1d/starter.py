from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        # The grader loads and compares the state by these names: keep them.
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (N, C) or (N, C, L), channels at dim 1. Statistics per channel over every other dim.
        # Training: normalise with the batch's mean and biased variance, and update the running
        # estimates (unbiased variance) without tracking gradients. Eval: use the running ones.
        raise NotImplementedError("implement BatchNorm1d.forward")
