# expect: failed mistake=count_is_batch_size
"""Wrong: m = len(x), the textbook's batch size, on (N, C, L) input too."""

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
        _x, x_hat, rstd, weight = ctx.saved_tensors
        dims = (0,) if dy.dim() == 2 else (0, 2)
        shape = (1, -1) if dy.dim() == 2 else (1, -1, 1)
        dweight = (dy * x_hat).sum(dims)
        dbias = dy.sum(dims)
        m = len(dy)
        g = dy * weight.view(shape)
        dx = (rstd / m) * (
            m * g - g.sum(dims, keepdim=True) - x_hat * (g * x_hat).sum(dims, keepdim=True)
        )
        return dx, dweight, dbias, None
