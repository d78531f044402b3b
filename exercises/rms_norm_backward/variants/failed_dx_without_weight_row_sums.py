# expect: failed mistake=dx_without_weight
"""Wrong: the projection written with sums over D, but from dy instead of dy * weight."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rstd = 1.0 / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, rstd, weight)
        return x * rstd * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, rstd, _ = ctx.saved_tensors
        d = x.shape[-1]
        dx = dy * rstd - x * rstd.pow(3) * (dy * x).sum(-1, keepdim=True) / d
        dweight = (dy * x * rstd).reshape(-1, d).sum(0)
        return dx, dweight, None
