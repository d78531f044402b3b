# expect: rejected
"""Backward runs autograd's own backward on a recomputed forward and returns the leaves'
.grad: autograd.backward is banned here, and the grader's own backward call does not trip it."""

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
        run = getattr(torch.autograd, "back" + "ward")
        with getattr(torch, "enable" + "_grad")():
            xl, wl = x.detach().requires_grad_(), weight.detach().requires_grad_()
            y = xl * torch.rsqrt(xl.pow(2).mean(-1, keepdim=True) + ctx.eps) * wl
            run([y], [dy])
        return xl.grad, wl.grad, None
