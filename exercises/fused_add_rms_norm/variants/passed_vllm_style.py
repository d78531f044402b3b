# expect: passed
"""Correct: vLLM's native path (the sum in float32, normalised, cast, then the gain)."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    orig_dtype = x.dtype
    compute = torch.float64 if orig_dtype == torch.float64 else torch.float32
    h = x.to(compute) + residual.to(compute)
    new_residual = h.to(orig_dtype)
    variance = h.pow(2).mean(dim=-1, keepdim=True)
    h = h * torch.rsqrt(variance + eps)
    return h.to(orig_dtype) * weight, new_residual
