"""RMSNorm from scratch: y = x / sqrt(mean(x^2) + eps) * weight, over the last dimension.

Unlike LayerNorm it does not subtract the mean and has no bias: the vector is only divided by
its root mean square (which scales the mean along with everything else), then multiplied by a
learned per-feature gain. One reduction instead of two, and it trains as well in practice
(Zhang and Sennrich 2019; Llama, Mistral).
"""

from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        # Only a gain, initialised to 1 so that a fresh layer is a pure normalisation.
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)
        # As in Llama's reference code: normalise in float32 and cast back. A mean of squares
        # over hundreds of bfloat16 values, rounded after every op, has 2-3x the error of
        # nn.RMSNorm (which accumulates in float32 and rounds once), and float16 squares
        # overflow above 256. float32 and float64 inputs stay as they are.
        compute_dtype = torch.promote_types(x.dtype, torch.float32)
        h = x.to(compute_dtype)  # (..., dim)
        # Mean of squares (not the sum: that would be an L2 norm, off by sqrt(dim)), over the
        # last dim with keepdim so it broadcasts back. No h - mean: that would be LayerNorm.
        mean_square = h.pow(2).mean(dim=-1, keepdim=True)  # (..., 1)
        # eps inside the root, added to the mean square. An all-zero row then gives
        # 0 * rsqrt(eps) = 0 with a finite gradient; with eps outside (sqrt(ms) + eps) the
        # forward is still 0 but the gradient is NaN, since d sqrt(v)/dv is infinite at 0.
        x_hat = h * torch.rsqrt(mean_square + self.eps)  # (..., dim), unit RMS
        return (x_hat * self.weight.to(compute_dtype)).to(x.dtype)
