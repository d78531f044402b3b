# expect: failed mistake=normalises_x_not_sum
"""The worked solution with the known mistake `normalises_x_not_sum`."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    compute = torch.float32 if new_residual.dtype in (torch.float16, torch.bfloat16) else None
    h = x if compute is None else x.to(compute)
    inv_rms = torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)
    normed = (h * inv_rms).to(new_residual.dtype) * weight
    return normed, new_residual
