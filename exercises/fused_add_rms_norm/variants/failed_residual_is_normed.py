# expect: failed mistake=residual_is_normed
"""The worked solution with the known mistake `residual_is_normed`."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    compute = torch.float32 if new_residual.dtype in (torch.float16, torch.bfloat16) else None
    h = new_residual if compute is None else new_residual.to(compute)
    inv_rms = torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)
    normed = (h * inv_rms).to(new_residual.dtype) * weight
    return normed, normed
