# expect: failed
"""Wrong: the blog-post forward (unbiased std, eps outside the sqrt), with a matching backward."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        x_hat = (x - mean) / (std + eps)
        ctx.save_for_backward(x_hat, std, weight)
        ctx.eps = eps
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x_hat, std, weight = ctx.saved_tensors
        n = x_hat.shape[-1]
        d = dy.shape[-1]
        g = dy * weight
        # Its own exact derivative: x_hat = (x - mean) / (s + eps), s the unbiased std, whose
        # derivative is (x - mean) / ((n - 1) s). Consistent, and still not LayerNorm's.
        r = 1 / (std + ctx.eps)
        gx = (g * x_hat).sum(-1, keepdim=True)
        dx = r * (g - g.mean(-1, keepdim=True)) - x_hat * gx / ((n - 1) * std.clamp_min(1e-30))
        return dx, (dy * x_hat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0), None
