# expect: rejected
"""Rejected: the norm built-in does the whole job (nn.RMSNorm without affine)."""

from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401
from torch import nn


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    h = new_residual.float()
    normed = nn.RMSNorm(h.shape[-1], eps=eps, elementwise_affine=False)(h)
    return normed.to(x.dtype) * weight, new_residual
