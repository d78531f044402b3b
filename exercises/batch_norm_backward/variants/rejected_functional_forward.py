# expect: rejected
"""Forward by the built-in: F.batch_norm does the forward this exercise asks for."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        return F.batch_norm(x, None, None, weight, bias, training=True, eps=eps)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[Any, ...]:
        _x, _weight = ctx.saved_tensors
        return dy, dy.sum(0), dy.sum(0), None
