# expect: rejected
"""Backward hands the work to autograd, by a name built at run time: only the run-time
check inside backward can see it."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        # x: (..., D); weight, bias: (D,). Autograd does not record inside forward: every
        # derivative below is ours.
        mean = x.mean(-1, keepdim=True)  # (..., 1)
        xc = x - mean
        var = (xc * xc).mean(-1, keepdim=True)  # (..., 1), biased: divide by D
        rstd = torch.rsqrt(var + eps)  # (..., 1)
        x_hat = xc * rstd  # (..., D)
        ctx.save_for_backward(x, weight, bias)
        ctx.eps = eps
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x, weight, bias = ctx.saved_tensors
        differentiate = getattr(torch.autograd, "gr" + "ad")
        with getattr(torch, "enable" + "_grad")():
            leaves = [t.detach().requires_grad_() for t in (x, weight, bias)]
            xl, wl, bl = leaves
            m = xl.mean(-1, keepdim=True)
            v = ((xl - m) ** 2).mean(-1, keepdim=True)
            y = (xl - m) * torch.rsqrt(v + ctx.eps) * wl + bl
            dx_, dw_, db_ = differentiate(y, leaves, dy)
        return dx_, dw_, db_, None
