# expect: passed
"""Correct: the RMS from torch.linalg.vector_norm, backward via the chain rule through ms."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        d = x.shape[-1]
        ms = torch.linalg.vector_norm(x, dim=-1, keepdim=True).pow(2) / d
        denom = torch.sqrt(ms + eps)
        ctx.save_for_backward(x, denom, weight)
        return x / denom * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, denom, weight = ctx.saved_tensors
        d = x.shape[-1]
        g = dy * weight
        # y = x / s with s = sqrt(ms + eps): dL/ds = -Σ g x / s^2, ds/dx = x / (d s).
        ds = -(g * x).sum(-1, keepdim=True) / denom.pow(2)
        dx = g / denom + ds * x / (d * denom)
        lead = list(range(dy.dim() - 1))
        dweight = (dy * x / denom).sum(lead) if lead else dy * x / denom
        return dx, dweight, None
