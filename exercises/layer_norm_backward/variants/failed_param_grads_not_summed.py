# expect: failed mistake=param_grads_not_summed
"""Wrong: weight and bias gradients summed over dim 0 only, as if x were always (N, D)."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        # x: (..., D); weight, bias: (D,). Autograd does not record inside forward: every
        # derivative below is ours.
        mean = x.mean(-1, keepdim=True)  # (..., 1)
        xc = x - mean
        var = (xc * xc).mean(-1, keepdim=True)  # (..., 1), biased: divide by D
        rstd = torch.rsqrt(var + eps)  # (..., 1)
        x_hat = xc * rstd  # (..., D)
        # Keep x_hat and 1/std, not x: backward needs exactly these, and recomputing the
        # statistics there would be a second chance to get them wrong.
        ctx.save_for_backward(x_hat, rstd, weight)
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        # Parameters are shared by every row: their gradients sum over all leading dims, so
        # they come back shaped (D,) like the parameters. Flattened to (rows, D) first:
        # .sum(()) over an empty tuple of dims would sum everything for a 1-D input.
        dweight = (dy * x_hat).sum(0)
        dbias = dy.sum(0)
        g = dy * weight  # gradient with respect to x_hat, (..., D)
        # x_hat = (x - mean) * rstd depends on x three ways: directly, through the mean and
        # through the variance. The two mean terms remove what the mean path and the variance
        # path take back: dx has zero mean over the row and is orthogonal to x_hat.
        g_mean = g.mean(-1, keepdim=True)  # (..., 1)
        gx_mean = (g * x_hat).mean(-1, keepdim=True)  # (..., 1)
        dx = rstd * (g - g_mean - x_hat * gx_mean)  # (..., D)
        return dx, dweight, dbias, None  # eps is a constant: no gradient
