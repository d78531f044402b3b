# expect: passed
"""Right: the computation graph walked back node by node (x_hat, var, mean)."""

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
        mean = x.mean(dims, keepdim=True)
        var = ((x - mean) ** 2).mean(dims, keepdim=True)
        rstd = 1.0 / torch.sqrt(var + eps)
        x_hat = (x - mean) * rstd
        ctx.save_for_backward(x, x_hat, rstd, weight)
        ctx.eps = eps
        return x_hat * weight.view(shape) + bias.view(shape)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        x, x_hat, rstd, weight = ctx.saved_tensors
        dims = (0,) if dy.dim() == 2 else (0, 2)
        shape = (1, -1) if dy.dim() == 2 else (1, -1, 1)
        m = x.numel() // x.shape[1]
        mean = x.mean(dims, keepdim=True)
        xc = x - mean
        dweight = (dy * x_hat).sum(dims)
        dbias = dy.sum(dims)
        dx_hat = dy * weight.view(shape)
        dvar = (dx_hat * xc).sum(dims, keepdim=True) * -0.5 * rstd**3
        dmean = -(dx_hat * rstd).sum(dims, keepdim=True) + dvar * (-2.0 / m) * xc.sum(
            dims, keepdim=True
        )
        dx = dx_hat * rstd + dvar * 2.0 * xc / m + dmean / m
        return dx, dweight, dbias, None
