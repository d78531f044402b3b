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
        # autograd.grad reached by a name built at run time: no static check can see it, so
        # only the run-time tripwire, watching inside backward, can.
        (x,) = ctx.saved_tensors
        differentiate = getattr(torch.autograd, "gr" + "ad")
        with torch.enable_grad():
            xr = x.detach().requires_grad_()
            (g,) = differentiate(xr * torch.sigmoid(xr), xr, grad_output)
        return g
