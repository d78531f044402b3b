# expect: passed
"""Correct: save x, the mean and 1/std (what fused kernels keep), recompute x_hat in backward,
and work on rows flattened to (M, D) with sums instead of means."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        var, mean = torch.var_mean(x, -1, keepdim=True, correction=0)
        rstd = 1.0 / torch.sqrt(var + eps)
        ctx.save_for_backward(x, mean, rstd, weight)
        return (x - mean) * rstd * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x, mean, rstd, weight = ctx.saved_tensors
        d = x.shape[-1]
        x_hat = ((x - mean) * rstd).reshape(-1, d)  # (M, D)
        dy2 = dy.reshape(-1, d)
        rstd2 = rstd.reshape(-1, 1)
        g = dy2 * weight
        dx = (rstd2 / d) * (
            d * g - g.sum(1, keepdim=True) - x_hat * (g * x_hat).sum(1, keepdim=True)
        )
        return dx.reshape(x.shape), (dy2 * x_hat).sum(0), dy2.sum(0), None
