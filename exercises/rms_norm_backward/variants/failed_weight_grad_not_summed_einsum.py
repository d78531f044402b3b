# expect: failed mistake=weight_grad_not_summed
"""Wrong: the weight gradient contracted over the batch index only, with einsum: (T, D) for a
(B, T, D) input."""

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
        dweight = torch.einsum("b...,b...->...", dy, x * rstd)  # sums over the batch b
        return dx, dweight, None
