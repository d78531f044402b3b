# expect: failed mistake=unstable_sigmoid
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        s = torch.exp(x) / (1 + torch.exp(x))
        return x * s

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.exp(x) / (1 + torch.exp(x))
        return grad_output * s * (1 + x * (1 - s))
