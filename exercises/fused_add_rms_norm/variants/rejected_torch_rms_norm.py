# expect: rejected
"""Rejected: the norm built-in does the whole job (torch.rms_norm(h, [h.shape[-1]], eps=eps))."""

from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401
from torch import nn  # noqa: F401


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    h = new_residual.float()
    normed = torch.rms_norm(h, [h.shape[-1]], eps=eps)
    return normed.to(x.dtype) * weight, new_residual
