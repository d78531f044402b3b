# expect: failed mistake=residual_is_normed
"""Known mistake `residual_is_normed`: the stream variable is reassigned to its normalised copy."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    residual = residual + x
    dtype = residual.dtype
    f = residual.to(torch.float32) if dtype in (torch.float16, torch.bfloat16) else residual
    residual = (f * torch.rsqrt(f.pow(2).mean(-1, keepdim=True) + eps)).to(dtype) * weight
    return residual, residual
