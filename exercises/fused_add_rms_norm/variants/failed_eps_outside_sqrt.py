# expect: failed mistake=eps_outside_sqrt
"""The worked solution with the known mistake `eps_outside_sqrt`."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    compute = torch.float32 if new_residual.dtype in (torch.float16, torch.bfloat16) else None
    h = new_residual if compute is None else new_residual.to(compute)
    inv_rms = 1 / (h.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps)
    normed = (h * inv_rms).to(new_residual.dtype) * weight
    return normed, new_residual
