# expect: rejected
"""Rejected: the norm built-in does the whole job (F.rms_norm(h, h.shape[-1:], eps=eps))."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn  # noqa: F401


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    h = new_residual.float()
    normed = F.rms_norm(h, h.shape[-1:], eps=eps)
    return normed.to(x.dtype) * weight, new_residual
