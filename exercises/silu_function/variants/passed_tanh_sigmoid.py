# expect: passed
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        # sigmoid(x) = (1 + tanh(x / 2)) / 2
        return (xf * 0.5 * (1 + torch.tanh(xf / 2))).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        s = 0.5 * (1 + torch.tanh(xf / 2))
        g = grad_output.to(xf.dtype)
        return (g * s * (1 + xf * (1 - s))).to(x.dtype)
