# expect: passed
"""Right: channels moved last and flattened to rows, float64 inside."""

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
        c = dy.shape[1]
        rows = lambda t: t.movedim(1, -1).reshape(-1, c).double()  # noqa: E731
        g, xh = rows(dy), rows(x_hat)
        w = weight.double()
        dweight = (g * xh).sum(0)
        dbias = g.sum(0)
        gw = g * w
        r = rows(rstd.expand_as(dy))
        dx_rows = r * (gw - gw.mean(0) - xh * (gw * xh).mean(0))
        moved = dy.movedim(1, -1).shape
        dx = dx_rows.reshape(moved).movedim(-1, 1)
        return dx.to(dy.dtype), dweight.to(dy.dtype), dbias.to(dy.dtype), None
