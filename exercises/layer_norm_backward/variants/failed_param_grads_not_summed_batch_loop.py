# expect: failed mistake=param_grads_not_summed
"""Wrong: weight and bias gradients accumulated by a loop over the batch, i.e. over dim 0 only:
(T, D) for a (B, T, D) input."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
        rstd = torch.rsqrt(var + eps)
        x_hat = (x - mean) * rstd
        ctx.save_for_backward(x_hat, rstd, weight)
        return x_hat * weight + bias

    @staticmethod
    def backward(
        ctx: Any, dy: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, None]:
        x_hat, rstd, weight = ctx.saved_tensors
        dweight = torch.zeros_like(dy[0])
        dbias = torch.zeros_like(dy[0])
        for i in range(dy.shape[0]):  # one sample of the batch at a time
            dweight += dy[i] * x_hat[i]
            dbias += dy[i]
        g = dy * weight
        proj = (g * x_hat).mean(-1, keepdim=True)
        dx = rstd * (g - g.mean(-1, keepdim=True) - x_hat * proj)
        return dx, dweight, dbias, None
