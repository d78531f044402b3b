# expect: failed mistake=dx_mean_terms_dropped
"""Wrong: saves std and divides by it: dx = dy * weight / std, the mean and the variance held
constant as if they did not depend on x."""

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
        dx = dy * weight / std  # d(xc / std)/dx with mean and std treated as constants
        return dx, dweight, dbias, None
