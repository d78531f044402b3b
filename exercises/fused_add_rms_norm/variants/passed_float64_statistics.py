# expect: passed
"""Correct: statistics in float64 for every dtype (more precise than asked), cast back."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = torch.add(residual, x)
    h = new_residual.double()
    scale = (h.square().sum(-1, keepdim=True) / h.shape[-1] + eps) ** -0.5
    normed = (h * scale * weight.double()).to(x.dtype)
    return normed, new_residual
