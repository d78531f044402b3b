# expect: failed mistake=running_stats_in_training class=training_mode
"""Wrong: updates the running estimates, then normalises the training batch with them."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.weight = nn.Parameter(torch.ones(num_features))  # gamma, (C,)
        self.bias = nn.Parameter(torch.zeros(num_features))  # beta, (C,)
        # Buffers, not parameters: they move with .to() and live in the state_dict, but no
        # optimiser touches them; they are estimated from data, not learned by gradient.
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        self.running_mean: torch.Tensor
        self.running_var: torch.Tensor
        self.num_batches_tracked: torch.Tensor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() not in (2, 3) or x.shape[1] != self.num_features:
            raise ValueError(
                f"expected (N, {self.num_features}) or (N, {self.num_features}, L), "
                f"got {tuple(x.shape)}"
            )
        # Channels sit at dim 1: the statistics of one channel pool the batch and, for (N, C, L),
        # every position. Reducing over dims (0, 2) leaves one number per channel.
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)  # broadcasts a (C,) vector over x

        if self.training:
            n = x.numel() // x.shape[1]  # values per channel: N, or N * L
            if n < 2:
                # One value per channel: the batch variance is 0 and the unbiased one 0/0.
                raise ValueError("BatchNorm in training needs more than one value per channel")
            mean = x.mean(dims)  # (C,)
            # Normalise with the biased variance: it describes this batch exactly.
            var = ((x - mean.reshape(shape)) ** 2).mean(dims)  # (C,)
            with torch.no_grad():
                # The running estimates stand in for the population at eval time, so they take
                # the unbiased variance (n / (n - 1) times the batch's). momentum weighs the
                # new batch: 0.1 keeps 90% of the history. no_grad: buffers must not drag this
                # step's graph into the next one.
                m = self.momentum
                self.running_mean.mul_(1 - m).add_(mean, alpha=m)
                self.running_var.mul_(1 - m).add_(var * (n / (n - 1)), alpha=m)
                self.num_batches_tracked.add_(1)
            mean, var = self.running_mean, self.running_var
        else:
            # Eval: fixed statistics, so a sample's output does not depend on its batch.
            mean, var = self.running_mean, self.running_var

        x_hat = (x - mean.reshape(shape)) / torch.sqrt(var.reshape(shape) + self.eps)
        return x_hat * self.weight.reshape(shape) + self.bias.reshape(shape)
