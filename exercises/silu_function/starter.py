from __future__ import annotations

from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        # Compute x * sigmoid(x); keep what backward needs with ctx.save_for_backward(...).
        raise NotImplementedError("implement SiLUFunction.forward")

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        # Read ctx.saved_tensors and return grad_output times dSiLU/dx.
        raise NotImplementedError("implement SiLUFunction.backward")
