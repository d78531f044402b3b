# expect: failed mistake=stats_in_half_precision
"""The worked solution with the known mistake `stats_in_half_precision`."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    compute = None
    h = new_residual if compute is None else new_residual.to(compute)
    inv_rms = torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)
    normed = (h * inv_rms).to(new_residual.dtype) * weight
    return normed, new_residual
