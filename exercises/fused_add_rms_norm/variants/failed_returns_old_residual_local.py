# expect: failed mistake=returns_old_residual
"""Known mistake `returns_old_residual`: the sum lives in a local the return forgets."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden = x + residual
    input_dtype = hidden.dtype
    if input_dtype in (torch.float16, torch.bfloat16):
        hidden = hidden.float()
    ms = torch.mean(hidden**2, dim=-1, keepdim=True)
    normed = weight * (hidden * torch.rsqrt(ms + eps)).to(input_dtype)
    return normed, residual
