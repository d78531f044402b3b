# expect: passed
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        xd = x.double()
        return (xd / (1 + torch.exp(-xd))).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        xd = x.double()
        s = 1 / (1 + torch.exp(-xd))  # stable: exp(-x) -> inf gives s -> 0, not NaN
        y = xd * s
        # d(x s)/dx written with the output: s + y (1 - s)
        return (grad_output.double() * (s + y * (1 - s))).to(x.dtype)
