"""Worked solution for ``batch_norm_backward``: BatchNorm in training mode as a Function,
backward by hand (the three terms)."""

from __future__ import annotations

from typing import Any

import torch


def _dims(x: torch.Tensor) -> tuple[int, ...]:
    # Every axis but the channels': N for (N, C), N and L for (N, C, L).
    return (0,) if x.dim() == 2 else (0, 2)


def _per_channel(t: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    # (C,) -> (1, C) or (1, C, 1): broadcast along the channel axis.
    return t.view(1, -1) if like.dim() == 2 else t.view(1, -1, 1)


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        dims = _dims(x)
        mean = x.mean(dims, keepdim=True)  # (1, C[, 1])
        xc = x - mean
        var = (xc * xc).mean(dims, keepdim=True)  # biased: divide by the m = N (* L) values
        rstd = torch.rsqrt(var + eps)
        x_hat = xc * rstd
        # x_hat and 1/std are all backward needs (with the weight): no statistics recomputed.
        ctx.save_for_backward(x_hat, rstd, weight)
        return x_hat * _per_channel(weight, x) + _per_channel(bias, x)

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        dims = _dims(dy)
        # weight and bias are shared by every value of a channel: sum over all other axes,
        # so their gradients come back shaped (C,).
        dweight = (dy * x_hat).sum(dims)
        dbias = dy.sum(dims)
        g = dy * _per_channel(weight, dy)  # the gradient reaching x_hat
        # Each x reaches the loss three ways: directly (g), through the batch mean (minus
        # mean(g)) and through the batch variance (minus x_hat * mean(g * x_hat)):
        # dx = rstd / m * (m * g - sum(g) - x_hat * sum(g * x_hat)).
        g_mean = g.mean(dims, keepdim=True)
        gx_mean = (g * x_hat).mean(dims, keepdim=True)
        dx = rstd * (g - g_mean - x_hat * gx_mean)
        return dx, dweight, dbias, None  # eps is a constant: no gradient
