# expect: failed mistake=backward_not_used
"""Wrong: right outputs and gradients, but autograd computes them: ``apply`` is overridden to
run plain tensor ops, so the hand-written backward never runs."""

from __future__ import annotations

from typing import Any

import torch


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        raise AssertionError("never called: apply below bypasses the Function")

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        return dy, None, None, None

    @staticmethod
    def apply(
        x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        dims = (0,) if x.dim() == 2 else (0, 2)
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)
        mean = x.mean(dims, keepdim=True)
        var = x.var(dims, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + eps) * weight.view(shape) + bias.view(shape)
