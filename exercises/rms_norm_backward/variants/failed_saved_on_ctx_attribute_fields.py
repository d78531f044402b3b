# expect: failed mistake=saved_on_ctx_attribute
"""Wrong: right values, but x, 1/rms and weight kept as separate ctx fields instead of
save_for_backward."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rstd = 1.0 / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.x = x
        ctx.rstd = rstd
        ctx.weight = weight
        return x * rstd * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, rstd, weight = ctx.x, ctx.rstd, ctx.weight
        d = x.shape[-1]
        g = dy * weight
        dx = g * rstd - x * rstd.pow(3) * (g * x).sum(-1, keepdim=True) / d
        dweight = (dy * x * rstd).reshape(-1, d).sum(0)
        return dx, dweight, None
