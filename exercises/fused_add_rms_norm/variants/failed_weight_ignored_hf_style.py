# expect: failed mistake=weight_ignored
"""Known mistake `weight_ignored`: the gain is passed in and never used."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden = residual + x
    input_dtype = hidden.dtype
    h = hidden if input_dtype == torch.float64 else hidden.to(torch.float32)
    rms = torch.sqrt(h.square().mean(-1, keepdim=True) + eps)
    return (h / rms).to(input_dtype), hidden
