# expect: failed mistake=saved_on_ctx_attribute
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.x = x
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(ctx.x)
        return grad_output * s * (1 + ctx.x * (1 - s))
