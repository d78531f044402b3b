# expect: failed mistake=normalises_x_not_sum
"""Known mistake `normalises_x_not_sum`, via a helper: x is normalised before the add."""

from __future__ import annotations

import torch


def _rms_normalise(t: torch.Tensor, eps: float) -> torch.Tensor:
    f = t.float() if t.dtype in (torch.float16, torch.bfloat16) else t
    return (f / torch.sqrt((f * f).mean(-1, keepdim=True) + eps)).to(t.dtype)


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    normed = weight * _rms_normalise(x, eps)
    return normed, residual + x
