# expect: rejected
"""Backward hands the work to autograd, by a name built at run time: only the run-time
check inside backward can see it."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        # x: (..., D), weight: (D,). No mean is subtracted: the statistic is the mean square.
        ms = (x * x).mean(-1, keepdim=True)  # (..., 1)
        rstd = torch.rsqrt(ms + eps)  # (..., 1)
        x_hat = x * rstd  # (..., D)
        ctx.save_for_backward(x, weight)
        ctx.eps = eps
        return x_hat * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, weight = ctx.saved_tensors
        differentiate = getattr(torch.autograd, "gr" + "ad")
        with getattr(torch, "enable" + "_grad")():
            xl, wl = x.detach().requires_grad_(), weight.detach().requires_grad_()
            y = xl * torch.rsqrt(xl.pow(2).mean(-1, keepdim=True) + ctx.eps) * wl
            dx_, dw_ = differentiate(y, (xl, wl), dy)
        return dx_, dw_, None
