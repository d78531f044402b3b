# expect: failed mistake=wrong_output_dtype class=dtype_leak
"""Wrong (dtype leak): half-precision inputs get a float32 normed output."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    h = new_residual.float()
    normed = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * weight.float()
    return normed, new_residual
