# expect: failed mistake=backward_not_used
"""Wrong: right outputs and gradients, but ``apply`` is rebound to a plain helper function, so
autograd differentiates the helper's tensor ops and the hand-written backward never runs."""

from __future__ import annotations

from typing import Any

import torch


def layer_norm(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
) -> torch.Tensor:
    var, mean = torch.var_mean(x, dim=-1, unbiased=False, keepdim=True)
    return torch.addcmul(bias, (x - mean) * torch.rsqrt(var + eps), weight)


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        return layer_norm(x, weight, bias, eps)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        return dy, dy, dy, None

    apply = staticmethod(layer_norm)  # "a shortcut": skips Function.apply altogether
