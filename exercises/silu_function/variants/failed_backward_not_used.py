# expect: failed mistake=backward_not_used
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(x)  # wrong, and never run

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        # "Simpler": skip the Function machinery, autograd will differentiate this.
        x = args[0]
        return x * torch.sigmoid(x)
