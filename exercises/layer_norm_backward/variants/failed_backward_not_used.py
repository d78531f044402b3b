# expect: failed mistake=backward_not_used
"""Wrong: right outputs and gradients, but autograd computes them: ``apply`` is overridden to
run plain tensor ops, so the hand-written backward never runs (and would be wrong if it did)."""

from __future__ import annotations

from typing import Any

import torch


class LayerNormFunction(torch.autograd.Function):
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
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * weight + bias
