# expect: rejected
"""Backward by aten's own BatchNorm backward kernel."""

from __future__ import annotations

from typing import Any

import torch


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        mean = x.mean(dims)
        var = x.var(dims, unbiased=False)
        rstd = torch.rsqrt(var + eps)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.eps = eps
        return (x - mean.view(shape)) * rstd.view(shape) * weight.view(shape) + bias.view(shape)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        x, weight, mean, rstd = ctx.saved_tensors
        dx, dw, db = torch.ops.aten.native_batch_norm_backward(
            dy, x, weight, None, None, mean, rstd, True, ctx.eps, [True, True, True]
        )
        return dx, dw, db, None
