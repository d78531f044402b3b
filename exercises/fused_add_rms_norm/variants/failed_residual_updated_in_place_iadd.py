# expect: failed mistake=residual_updated_in_place
"""Known mistake `residual_updated_in_place`: the vLLM buffer habit, `residual += x`."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    residual += x
    input_dtype = residual.dtype
    h = residual if input_dtype == torch.float64 else residual.to(torch.float32)
    variance = h.pow(2).mean(-1, keepdim=True)
    normed = h / torch.sqrt(variance + eps)
    return weight * normed.to(input_dtype), residual
