# expect: rejected
"""Backward calls the fused ATen LayerNorm backward kernel."""

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
        ctx.save_for_backward(x, mean, rstd, weight, bias)
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x, mean, rstd, weight, bias = ctx.saved_tensors
        kernel = torch.ops.aten.native_layer_norm_backward.default
        dx_, dw_, db_ = kernel(dy, x, [x.shape[-1]], mean, rstd, weight, bias, [True] * 3)
        return dx_, dw_, db_, None
