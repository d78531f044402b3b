# expect: failed mistake=eps_outside_sqrt
"""Known mistake `eps_outside_sqrt`, Hugging Face style: eps joins the RMS after the sqrt."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden = residual + x
    input_dtype = hidden.dtype
    h = hidden if input_dtype == torch.float64 else hidden.to(torch.float32)
    rms = torch.sqrt(torch.mean(h * h, dim=-1, keepdim=True))
    return weight * (h / (rms + eps)).to(input_dtype), hidden
