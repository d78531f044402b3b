# expect: failed
"""Wrong (gradient only): the new residual is returned detached, so its gradient is lost."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        new_residual = x + residual  # "just bookkeeping", but the stream carries gradient too
    h = (x + residual).float()
    normed = (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * weight
    return normed, new_residual
