# expect: failed mistake=derivative_sigmoid_only
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(x)
        ctx.save_for_backward(gate)  # x * gate: the gate is all backward needs (it is not)
        return x * gate

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (gate,) = ctx.saved_tensors
        return grad_output.mul(gate)
