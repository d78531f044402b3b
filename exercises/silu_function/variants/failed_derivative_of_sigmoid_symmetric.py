# expect: failed mistake=derivative_of_sigmoid
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        # sigmoid'(x) = sigmoid(x) * sigmoid(-x): no cancellation in 1 - s.
        return grad_output * torch.sigmoid(x) * torch.sigmoid(-x)
