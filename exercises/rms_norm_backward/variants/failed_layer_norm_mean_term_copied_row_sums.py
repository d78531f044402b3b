# expect: failed mistake=layer_norm_mean_term_copied
"""Wrong: the projection written with sums over D, plus LayerNorm's centring step on dx, which
RMSNorm (no mean subtracted in forward) does not have."""

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
        x, rstd, weight = ctx.saved_tensors
        d = x.shape[-1]
        g = dy * weight
        dx = g * rstd - x * rstd.pow(3) * (g * x).sum(-1, keepdim=True) / d
        dx = dx - rstd * g.sum(-1, keepdim=True) / d  # "the mean term", as in LayerNorm
        dweight = (dy * x * rstd).reshape(-1, d).sum(0)
        return dx, dweight, None
