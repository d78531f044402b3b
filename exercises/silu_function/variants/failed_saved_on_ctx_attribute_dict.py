# expect: failed mistake=saved_on_ctx_attribute
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(x)
        ctx.cache = {"x": x, "s": s}
        return x * s

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        x, s = ctx.cache["x"], ctx.cache["s"]
        return grad_output * (s + x * s * (1 - s))
