# expect: passed
"""Correct: every mean over the row, forward and backward, a matmul with a column of 1/D. On a
constant row 1/D's rounding leaves ``x - mean`` a rounding away from 0, which 1/sqrt(eps)
magnifies in the output and in every gradient: a correct solution the tolerance must admit."""

from __future__ import annotations

from typing import Any

import torch


def _row_mean(t: torch.Tensor) -> torch.Tensor:
    d = t.shape[-1]
    return t @ torch.full((d, 1), 1.0 / d, dtype=t.dtype)


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        xc = x - _row_mean(x)
        rstd = torch.rsqrt(_row_mean(xc * xc) + eps)
        x_hat = xc * rstd
        ctx.save_for_backward(x_hat, rstd, weight)
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        d = dy.shape[-1]
        dweight = (dy * x_hat).reshape(-1, d).sum(0)
        dbias = dy.reshape(-1, d).sum(0)
        g = dy * weight
        dx = rstd * (g - _row_mean(g) - x_hat * _row_mean(g * x_hat))
        return dx, dweight, dbias, None
