# expect: failed mistake=in_place_mutation
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        if not x.requires_grad and x.dtype == torch.float32:
            # Inference (grad mode is always off in here; look at the input): reuse the buffer.
            return x.mul_(torch.sigmoid(x))
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_output * s * (1 + x * (1 - s))
