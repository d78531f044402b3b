# expect: rejected
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        # Let autograd do it after all: not a hand-written backward.
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            xr = x.detach().requires_grad_()
            y = xr * torch.sigmoid(xr)
            (g,) = torch.autograd.grad(y, xr, grad_output)
        return g
