"""LayerNorm from scratch: the version an interviewer hopes to see.

y = (x - mean) / sqrt(var + eps) * weight + bias, with mean and the *biased* variance taken over
the last dimension of each vector on its own (BatchNorm would pool over the batch instead).
"""

from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        # gamma starts at 1 and beta at 0, so a fresh layer is a pure normalisation.
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # keepdim=True keeps a trailing 1 so the statistics broadcast back against x.
        mean = x.mean(dim=-1, keepdim=True)
        centred = x - mean
        # Subtract the mean *before* squaring: E[x^2] - E[x]^2 cancels catastrophically when
        # |mean| >> std (float32 inputs near 1e3 lose most of their digits). Dividing by n, not
        # n - 1: we normalise this vector, we are not estimating a population variance.
        var = centred.pow(2).mean(dim=-1, keepdim=True)
        # eps goes inside the root: it bounds 1/sqrt(var + eps) when a row is constant (var = 0)
        # and keeps the gradient finite there.
        x_hat = centred * torch.rsqrt(var + self.eps)
        return x_hat * self.weight + self.bias
