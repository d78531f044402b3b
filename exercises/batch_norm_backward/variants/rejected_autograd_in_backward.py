# expect: rejected
"""Backward hands the work to autograd, by a name built at run time."""

from __future__ import annotations

from typing import Any

import torch


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        ctx.save_for_backward(x, weight, bias)
        ctx.eps = eps
        return BatchNormFunction._f(x, weight, bias, eps)

    @staticmethod
    def _f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        mean = x.mean(dims, keepdim=True)
        var = ((x - mean) ** 2).mean(dims, keepdim=True)
        return (x - mean) * torch.rsqrt(var + eps) * w.view(shape) + b.view(shape)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        x, weight, bias = ctx.saved_tensors
        differentiate = getattr(torch.autograd, "gr" + "ad")
        with getattr(torch, "enable" + "_grad")():
            leaves = [t.detach().requires_grad_() for t in (x, weight, bias)]
            y = BatchNormFunction._f(*leaves, ctx.eps)
            dx, dw, db = differentiate(y, leaves, dy)
        return dx, dw, db, None
