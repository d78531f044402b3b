# expect: failed mistake=stats_in_half_precision
"""Known mistake `stats_in_half_precision`: Hugging Face's shape without the float32 cast."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden = residual + x
    variance = (hidden * hidden).mean(-1, keepdim=True)  # squared in the input dtype
    return weight * (hidden / torch.sqrt(variance + eps)), hidden
