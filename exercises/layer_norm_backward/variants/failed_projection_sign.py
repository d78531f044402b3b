# expect: failed
"""Wrong: right forward; the variance term of dx added instead of subtracted."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        rstd = torch.rsqrt(var + eps)
        x_hat = (x - mean) * rstd
        ctx.save_for_backward(x_hat, rstd, weight)
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        d = dy.shape[-1]
        g = dy * weight
        dx = rstd * (g - g.mean(-1, keepdim=True) + x_hat * (g * x_hat).mean(-1, keepdim=True))
        return dx, (dy * x_hat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0), None
