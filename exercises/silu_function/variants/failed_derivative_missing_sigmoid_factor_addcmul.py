# expect: failed mistake=derivative_missing_sigmoid_factor
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        x, s = ctx.saved_tensors
        # d/dx [x * s] = s + x * (1 - s)   (sigmoid' taken as 1 - s)
        return grad_output * torch.addcmul(s, x, 1 - s)
