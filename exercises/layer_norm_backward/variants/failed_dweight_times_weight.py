# expect: failed finding=gradient_scaled
"""Wrong: saves the affine output y for backward and takes dweight from it; y / weight is
x_hat plus a bias term, so the weight gradient picks up both."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        xc = x - mean
        var = xc.pow(2).mean(-1, keepdim=True)
        std = torch.sqrt(var + eps)
        ctx.save_for_backward(xc, std, weight)
        return xc / std * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        xc, std, weight = ctx.saved_tensors
        n = xc.shape[-1]
        x_hat = xc / std
        y = x_hat * weight  # the output before the bias, taken for x_hat
        dweight = (dy * y).flatten(0, -2).sum(0) if dy.dim() > 1 else dy * y
        dbias = dy.flatten(0, -2).sum(0) if dy.dim() > 1 else dy
        dx_hat = dy * weight
        dvar = (dx_hat * xc).sum(-1, keepdim=True) * -0.5 * std.pow(-3)
        dxc = dx_hat / std + dvar * 2 * xc / n
        dx = dxc - dxc.mean(-1, keepdim=True)  # through mean = (1/n) Σ x
        return dx, dweight, dbias, None
