# expect: passed
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        # Save sigmoid(x) too: one more tensor kept, one sigmoid fewer in backward.
        s = torch.sigmoid(x.float()).to(x.dtype) if x.dtype != torch.float64 else torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return (
            x * s
            if x.dtype == torch.float64
            else (x.float() * torch.sigmoid(x.float())).to(x.dtype)
        )

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        x, s = ctx.saved_tensors
        if x.dtype != torch.float64:
            x, s, grad_output = x.float(), torch.sigmoid(x.float()), grad_output.float()
        return (grad_output * (s + x * s * (1 - s))).to(ctx.saved_tensors[0].dtype)
