# expect: failed mistake=rms_recomputed_without_eps
"""Wrong: saves only x and rebuilds the RMS in backward from the vector norm, norm / sqrt(D),
which has no eps."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rstd = 1.0 / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, weight)
        return x * rstd * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, weight = ctx.saved_tensors
        d = x.shape[-1]
        rms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / d**0.5
        g = dy * weight
        dx = g / rms - x * (g * x).sum(-1, keepdim=True) / (d * rms**3)
        dweight = (dy * x / rms).reshape(-1, d).sum(0)
        return dx, dweight, None
