# expect: failed
"""Wrong: the right forward; the projection term added instead of subtracted."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x * rstd, rstd, weight)
        return x * rstd * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        g = dy * weight
        dx = rstd * (g + x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, (dy * x_hat).reshape(-1, x_hat.shape[-1]).sum(0), None
