# expect: failed
"""Wrong: eps added to the RMS outside the root, forward and backward consistently."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rms = x.pow(2).mean(-1, keepdim=True).sqrt()
        ctx.save_for_backward(x, rms, weight)
        ctx.eps = eps
        return x / (rms + eps) * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, rms, weight = ctx.saved_tensors
        d = x.shape[-1]
        s = rms + ctx.eps
        g = dy * weight
        ds = -(g * x).sum(-1, keepdim=True) / s.pow(2)
        dx = g / s + ds * x / (d * rms.clamp_min(1e-30))
        return dx, (dy * x / s).reshape(-1, d).sum(0), None
