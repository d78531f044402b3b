# expect: failed mistake=backward_not_used
"""Wrong: right outputs and gradients, but autograd computes them: ``apply`` is overridden to
run plain tensor ops, so the hand-written backward never runs."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        raise AssertionError("never called: apply below bypasses the Function")

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        return dy, None, None

    @staticmethod
    def apply(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
