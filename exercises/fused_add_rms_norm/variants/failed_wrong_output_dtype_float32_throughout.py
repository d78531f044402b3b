# expect: failed mistake=wrong_output_dtype class=dtype_leak
"""Known mistake `wrong_output_dtype`: everything computed in float32, never cast back."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden = x.float() + residual.float()
    if x.dtype == torch.float64:
        hidden = x + residual
    rms = torch.sqrt(hidden.square().mean(-1, keepdim=True) + eps)
    return hidden / rms * weight, hidden
