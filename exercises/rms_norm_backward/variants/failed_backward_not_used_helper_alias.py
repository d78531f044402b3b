# expect: failed mistake=backward_not_used
"""Wrong: right outputs and gradients, but ``apply`` is rebound to a plain helper function, so
autograd differentiates the helper's tensor ops and the hand-written backward never runs."""

from __future__ import annotations

from typing import Any

import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return weight * x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        return rms_norm(x, weight, eps)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        return dy, dy, None

    apply = staticmethod(rms_norm)  # "a shortcut": skips Function.apply altogether
