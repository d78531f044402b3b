# expect: failed finding=gradient_scaled
"""Wrong: the weight gradient uses the output (x_hat * weight) where x_hat is due, so it comes
out multiplied by the weight."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        # x: (..., D), weight: (D,). No mean is subtracted: the statistic is the mean square.
        ctx.dtype = x.dtype
        x, weight = x.double(), weight.double()
        ms = (x * x).mean(-1, keepdim=True)  # (..., 1)
        rstd = torch.rsqrt(ms + eps)  # (..., 1)
        x_hat = x * rstd  # (..., D)
        ctx.save_for_backward(x_hat, rstd, weight)
        return (x_hat * weight).to(ctx.dtype)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        dy = dy.double()
        # (D,): weight is shared by every row of every leading dim. Flattened first: .sum(())
        # over an empty tuple of dims would sum everything for a 1-D input.
        dweight = (dy * x_hat * weight).reshape(-1, dy.shape[-1]).sum(0)
        g = dy * weight  # gradient with respect to x_hat, (..., D)
        # x reaches x_hat directly and through the mean square. Only one correction term: with
        # no mean subtracted, shifting the row does change the output, so dx need not sum to
        # zero; scaling it does not (up to eps), so dx is orthogonal to x_hat.
        dx = rstd * (g - x_hat * (g * x_hat).mean(-1, keepdim=True))  # (..., D)
        return dx.to(ctx.dtype), dweight.to(ctx.dtype), None
