# expect: failed mistake=saved_on_ctx_attribute
"""Wrong: right values, the tensors kept in a dict on ctx."""

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
        ctx.saved = {"x_hat": x_hat, "rstd": rstd, "weight": weight}
        return x_hat * weight.view(shape) + bias.view(shape)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        x_hat, rstd, weight = ctx.saved["x_hat"], ctx.saved["rstd"], ctx.saved["weight"]
        dims = (0,) if dy.dim() == 2 else (0, 2)
        shape = (1, -1) if dy.dim() == 2 else (1, -1, 1)
        dweight = (dy * x_hat).sum(dims)
        dbias = dy.sum(dims)
        g = dy * weight.view(shape)
        dx = rstd * (g - g.mean(dims, keepdim=True) - x_hat * (g * x_hat).mean(dims, keepdim=True))
        return dx, dweight, dbias, None
