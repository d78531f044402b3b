# expect: failed mistake=dx_without_weight
"""Wrong: the chain rule step by step, but starting from dy as if it were the gradient of x_hat,
forgetting that the output scaled x_hat by weight."""

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
        std = torch.sqrt(xc.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(xc, std)
        return xc / std * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        xc, std = ctx.saved_tensors
        n = xc.shape[-1]
        x_hat = xc / std
        dweight = (dy * x_hat).flatten(0, -2).sum(0) if dy.dim() > 1 else dy * x_hat
        dbias = dy.flatten(0, -2).sum(0) if dy.dim() > 1 else dy
        dvar = (dy * xc).sum(-1, keepdim=True) * -0.5 * std.pow(-3)
        dxc = dy / std + dvar * 2 * xc / n
        dx = dxc - dxc.mean(-1, keepdim=True)
        return dx, dweight, dbias, None
