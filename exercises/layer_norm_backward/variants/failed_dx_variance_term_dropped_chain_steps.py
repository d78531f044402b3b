# expect: failed mistake=dx_variance_term_dropped
"""Wrong: the chain rule step by step, through the mean but with no step through the variance."""

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
        ctx.save_for_backward(xc, std, weight)
        return xc / std * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        xc, std, weight = ctx.saved_tensors
        x_hat = xc / std
        dweight = (dy * x_hat).flatten(0, -2).sum(0) if dy.dim() > 1 else dy * x_hat
        dbias = dy.flatten(0, -2).sum(0) if dy.dim() > 1 else dy
        dx_hat = dy * weight
        dxc = dx_hat / std  # std taken as a constant: no dvar step
        dx = dxc - dxc.mean(-1, keepdim=True)  # through mean = (1/n) Σ x
        return dx, dweight, dbias, None
