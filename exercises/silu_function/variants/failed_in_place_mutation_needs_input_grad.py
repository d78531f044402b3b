# expect: failed mistake=in_place_mutation
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(x)
        if not ctx.needs_input_grad[0]:
            # No backward will come: write the result into x's own storage.
            return torch.mul(x, s, out=x)
        ctx.save_for_backward(x)
        return x * s

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * s * (1 + x * (1 - s))
